--[[
  A repository's index becomes exactly the given candidates (a full refresh); reservations of issues
  that left it go with them.

    KEYS
      order               the candidates by ranking score (sorted set)
      facts               the candidates' facts by member (hash of JSON)
      reservations        the picks reserved: member to "<expiresAt>|<owner>" (hash)
      meta                the ranking the index is scored by, and when it was refreshed (hash)
      names               the installation's repositories: lower-cased owner/name to id (hash)
    ARGV
      refreshedAt         when the candidates were read (ms)
      defaultRanking      the ranking to score by when the index has none yet (JSON)
      repoName            the repository's lower-cased owner/name
      repoId              the repository's id
    REST                  member, facts (JSON) pairs
    Reply
      1                   replaced
]]

--- @include "queue"
local ranking = cjson.decode(queue_ranking(KEY.meta, ARG.defaultRanking))
redis.call('HSET', KEY.names, ARG.repoName, ARG.repoId)
redis.call('DEL', KEY.order, KEY.facts)
local kept = {}
for i = REST, #ARGV, 2 do
  local member, json = ARGV[i], ARGV[i + 1]
  kept[member] = true
  redis.call('HSET', KEY.facts, member, json)
  redis.call('ZADD', KEY.order, queue_score(cjson.decode(json), ranking), member)
end
-- Reservations of issues that left the index go with them.
local reserved = redis.call('HKEYS', KEY.reservations)
for _, member in ipairs(reserved) do
  if not kept[member] then redis.call('HDEL', KEY.reservations, member) end
end
redis.call('HSET', KEY.meta, 'refreshedAt', ARG.refreshedAt)
return 1
