--[[
  Takes the due deliveries for one claimant: each hidden for the lease and its try counted, so two
  senders never send the same delivery at once.

    KEYS
      due                 the deliveries by due time (sorted set)
      entries             the deliveries by id (hash of JSON)
      attempts            the tries of each delivery (hash)
      claims              the claimant holding each delivery (hash)
    ARGV
      now                 the time of the call (ms)
      leaseMs             how long a taken delivery stays hidden (ms)
      limit               the most deliveries taken
      claimant            who takes them
    Reply
      {depth, deliveries...}  the deliveries left in due, then each delivery's id, entry and attempt
]]

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
