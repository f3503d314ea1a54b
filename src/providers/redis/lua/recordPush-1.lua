--- @include "record"

local cur = load(KEY.record)
if not cur or tonumber(cur.generation) ~= tonumber(ARG.generation) or cur.state ~= 'active' then return 0 end
if cur.lastPushAt and tonumber(cur.lastPushAt) >= tonumber(ARG.at) then return 0 end
redis.call('HSET', KEY.record, 'lastPushAt', ARG.at)
return 1
