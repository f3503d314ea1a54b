--[[
  Notes a push to the holder's branch on the active generation; an older push never overwrites a newer one.
  A push is progress: on a claim heartbeating but stalled, it ends the takeover intent its stall
  allowed (onStall reclaimable) and the App's ask for a person on its behalf (onStall needs-human).

    KEYS
      record              the subject's claim record (hash)
    ARGV
      generation          the generation the push belongs to
      at                  when it was pushed (ms)
    Reply
      2                   noted, and the App's ask for a person on the stalled claim's behalf withdrawn
      1                   noted
      0                   another generation, not active, or not newer than the last push
]]

--- @include "record"
--- @include "liveness"

local cur = load(KEY.record)
if not cur or tonumber(cur.generation) ~= tonumber(ARG.generation) or cur.state ~= 'active' then return 0 end
if cur.lastPushAt and tonumber(cur.lastPushAt) >= tonumber(ARG.at) then return 0 end
redis.call('HSET', KEY.record, 'lastPushAt', ARG.at)
-- An intent on a holder that still heartbeats stood only by the stall this push ends (a silent
-- holder's intent stands: a push is progress, not proof of life).
if cur.takeoverBy and tonumber(ARG.at) - alive_at(cur) < tonumber(cur.ttlMs) then
  redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
end
if cur.stallAsk then
  redis.call('HDEL', KEY.record, 'stallAsk')
  return 2
end
return 1
