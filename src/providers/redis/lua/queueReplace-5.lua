--- @include "queue"
-- The repository's index becomes exactly the given candidates (member, facts pairs from ARGV[REST]).
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
