--[[
  Reserves the first of the given issues nobody else holds a live reservation of, so two agents asking
  for the next issue at once are not handed the same one.

    KEYS
      reservations        the picks reserved: member to "<expiresAt>|<owner>" (hash)
    ARGV
      owner               who reserves (its own live reservation does not block it)
      ttlMs               how long the reservation holds (ms)
      now                 the time of the call (ms)
    REST                  the members to try, in order
    Reply
      member              the member reserved
      false               none was free (nil to the caller)
]]

local now = tonumber(ARG.now)
for i = REST, #ARGV do
  local member = ARGV[i]
  local held = redis.call('HGET', KEY.reservations, member)
  local free = not held
  if held then
    local bar = string.find(held, '|', 1, true)
    local expires_at = tonumber(string.sub(held, 1, bar - 1))
    local owner = string.sub(held, bar + 1)
    free = owner == ARG.owner or expires_at <= now
  end
  if free then
    redis.call('HSET', KEY.reservations, member, string.format('%.0f', now + tonumber(ARG.ttlMs)) .. '|' .. ARG.owner)
    return member
  end
end
return false
