if redis.call('GET', KEY.lock) == ARG.owner then
  redis.call('PEXPIRE', KEY.lock, ARG.ttlMs)
  return 1
end
if redis.call('SET', KEY.lock, ARG.owner, 'NX', 'PX', ARG.ttlMs) then return 1 end
return 0
