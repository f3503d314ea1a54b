--[[
  Gives a named lock up, only when the owner still holds it (an expired lock may have moved on).

    KEYS
      lock                the lock (string: its owner, with an expiry)
    ARGV
      owner               who gives it up
    Reply
      1                   released
      0                   someone else holds it, or nobody
]]

if redis.call('GET', KEY.lock) == ARG.owner then return redis.call('DEL', KEY.lock) end
return 0
