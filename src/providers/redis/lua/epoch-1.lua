--[[
  The installation's store epoch: when this store first served it. Silence before it is unknown, not
  proven, so the janitor never reaps on time the store did not see.

    KEYS
      epoch               the installation's epoch (string, ms)
    ARGV
      now                 the time of the call (ms), the epoch when none is set
    Reply
      epoch               the epoch (ms), set to now on the first call
]]

local known = redis.call('GET', KEY.epoch)
if known then return known end
redis.call('SET', KEY.epoch, ARG.now)
return ARG.now
