--- @include "queue"
-- Merges the patch's fields into the stored facts; an issue the index does not hold stays out.
local stored = redis.call('HGET', KEY.facts, ARG.member)
if not stored then return 0 end
local facts = cjson.decode(stored)
for field, value in pairs(cjson.decode(ARG.patch)) do facts[field] = value end
local encoded = cjson.encode(facts)
redis.call('HSET', KEY.facts, ARG.member, encoded)
local ranking = cjson.decode(queue_ranking(KEY.meta, ARG.defaultRanking))
redis.call('ZADD', KEY.order, queue_score(facts, ranking), ARG.member)
return 1
