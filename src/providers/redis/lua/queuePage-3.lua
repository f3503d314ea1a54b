--- @include "queue"
-- A page of the ranked index: {refreshedAt, total, facts…}; a new ranking rescores the index first.
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
