if redis.call('GET', KEY.lock) == ARG.owner then return redis.call('DEL', KEY.lock) end
return 0
