--[[
  Takes or extends a named lock for one owner, so one replica runs a job at a time.

    KEYS
      lock                the lock (string: its owner, with an expiry)
    ARGV
      owner               who takes it
      ttlMs               how long it holds without another call (ms)
    Reply
      1                   the owner holds it (taken, or extended)
      0                   someone else holds it
]]

if redis.call('GET', KEY.lock) == ARG.owner then
  redis.call('PEXPIRE', KEY.lock, ARG.ttlMs)
  return 1
end
if redis.call('SET', KEY.lock, ARG.owner, 'NX', 'PX', ARG.ttlMs) then return 1 end
return 0
