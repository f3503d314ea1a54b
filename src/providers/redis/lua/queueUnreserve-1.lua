local held = redis.call('HGET', KEY.reservations, ARG.member)
if held and string.sub(held, (string.find(held, '|', 1, true) or 0) + 1) == ARG.owner then
  redis.call('HDEL', KEY.reservations, ARG.member)
  return 1
end
return 0
