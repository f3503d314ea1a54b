-- Takes the due deliveries for one claimant: each hidden for the lease, its try counted. Replies the depth, then id, entry, attempt triples.
local ids = redis.call("ZRANGEBYSCORE", KEY.due, "-inf", ARG.now, "LIMIT", 0, tonumber(ARG.limit))
local hiddenUntil = tonumber(ARG.now) + tonumber(ARG.leaseMs)
local reply = {0}
for _, id in ipairs(ids) do
  local entry = redis.call("HGET", KEY.entries, id)
  if entry then
    redis.call("ZADD", KEY.due, hiddenUntil, id)
    redis.call("HSET", KEY.claims, id, ARG.claimant)
    local attempt = redis.call("HINCRBY", KEY.attempts, id, 1)
    reply[#reply + 1] = id
    reply[#reply + 1] = entry
    reply[#reply + 1] = attempt
  else
    -- An index entry without its delivery (deleted by hand): nothing to send.
    redis.call("ZREM", KEY.due, id)
    redis.call("HDEL", KEY.attempts, id)
    redis.call("HDEL", KEY.claims, id)
  end
end
reply[1] = redis.call("ZCARD", KEY.due)
return reply
