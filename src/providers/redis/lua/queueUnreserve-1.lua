--[[
  Gives a reservation up, only when the owner still holds it.

    KEYS
      reservations        the picks reserved: member to "<expiresAt>|<owner>" (hash)
    ARGV
      member              the reserved candidate (zero-padded issue number)
      owner               who gives it up
    Reply
      1                   released
      0                   someone else holds it, or nobody
]]

local held = redis.call('HGET', KEY.reservations, ARG.member)
if held and string.sub(held, (string.find(held, '|', 1, true) or 0) + 1) == ARG.owner then
  redis.call('HDEL', KEY.reservations, ARG.member)
  return 1
end
return 0
