--[[
  Merges changed facts into a candidate the index holds and rescores it; an issue the index does not
  hold stays out (a patch is never a whole candidate).

    KEYS
      order               the candidates by ranking score (sorted set)
      facts               the candidates' facts by member (hash of JSON)
      meta                the ranking the index is scored by, and when it was refreshed (hash)
    ARGV
      member              the candidate (zero-padded issue number)
      patch               the changed facts (JSON object)
      defaultRanking      the ranking to score by when the index has none yet (JSON)
    Reply
      1                   patched
      0                   the index does not hold it
]]

--- @include "queue"
local stored = redis.call('HGET', KEY.facts, ARG.member)
if not stored then return 0 end
local facts = cjson.decode(stored)
for field, value in pairs(cjson.decode(ARG.patch)) do facts[field] = value end
local encoded = cjson.encode(facts)
redis.call('HSET', KEY.facts, ARG.member, encoded)
local ranking = cjson.decode(queue_ranking(KEY.meta, ARG.defaultRanking))
redis.call('ZADD', KEY.order, queue_score(facts, ranking), ARG.member)
return 1
