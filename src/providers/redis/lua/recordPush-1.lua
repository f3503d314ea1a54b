--[[
  Notes a push to the holder's branch on the active generation; an older push never overwrites a newer one.

    KEYS
      record              the subject's claim record (hash)
    ARGV
      generation          the generation the push belongs to
      at                  when it was pushed (ms)
    Reply
      1                   noted
      0                   another generation, not active, or not newer than the last push
]]

--- @include "record"

local cur = load(KEY.record)
if not cur or tonumber(cur.generation) ~= tonumber(ARG.generation) or cur.state ~= 'active' then return 0 end
if cur.lastPushAt and tonumber(cur.lastPushAt) >= tonumber(ARG.at) then return 0 end
redis.call('HSET', KEY.record, 'lastPushAt', ARG.at)
return 1
