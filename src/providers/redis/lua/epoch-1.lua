local known = redis.call('GET', KEY.epoch)
if known then return known end
redis.call('SET', KEY.epoch, ARG.now)
return ARG.now
