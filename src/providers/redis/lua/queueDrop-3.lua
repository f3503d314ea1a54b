redis.call('ZREM', KEY.order, ARG.member)
redis.call('HDEL', KEY.facts, ARG.member)
redis.call('HDEL', KEY.reservations, ARG.member)
return 1
