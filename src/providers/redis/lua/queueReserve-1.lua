-- The first of the given issues (ARGV[REST…], in order) nobody else holds a live reservation of,
-- reserved for ARG.owner until now + ttlMs; false when there is none. Values: "<expiresAt>|<owner>".
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
