--[[
  A page of a repository's ranked index; a ranking other than the stored one rescores the index first,
  so the order always matches the ranking asked for.

    KEYS
      order               the candidates by ranking score (sorted set)
      facts               the candidates' facts by member (hash of JSON)
      meta                the ranking the index is scored by, and when it was refreshed (hash)
    ARGV
      ranking             the ranking to page by (JSON)
      offset              the first rank of the page (0-based)
      limit               the most candidates on the page (0: only refreshedAt and total)
    Reply
      {refreshedAt, total, facts...}  refreshedAt '' when never refreshed; then each candidate's facts
]]

--- @include "queue"
local stored = redis.call('HGET', KEY.meta, 'ranking')
if stored ~= ARG.ranking then
  queue_rescore(KEY.order, KEY.facts, cjson.decode(ARG.ranking))
  redis.call('HSET', KEY.meta, 'ranking', ARG.ranking)
end
local reply = { redis.call('HGET', KEY.meta, 'refreshedAt') or '', redis.call('ZCARD', KEY.order) }
local limit = tonumber(ARG.limit)
if limit > 0 then
  local offset = tonumber(ARG.offset)
  local members = redis.call('ZRANGE', KEY.order, offset, offset + limit - 1)
  if #members > 0 then
    local facts = redis.call('HMGET', KEY.facts, unpack(members))
    for i = 1, #members do
      if facts[i] then table.insert(reply, facts[i]) end
    end
  end
end
return reply
