--[[
  Reads (writes nothing) the deliveries waiting for another try: a try failed, and no sender holds
  them now. Soonest due first, among the first `scan` deliveries by due time.

    KEYS
      due                 the deliveries by due time (sorted set)
      entries             the deliveries by id (hash of JSON)
      attempts            the tries of each delivery (hash)
      claims              the claimant holding each delivery (hash)
    ARGV
      limit               the most deliveries answered
      scan                the most deliveries looked at
    Reply
      {deliveries...}     each delivery's id, entry, tries and due time
]]

local reply = {}
local limit = tonumber(ARG.limit)
local queued = redis.call("ZRANGE", KEY.due, 0, tonumber(ARG.scan) - 1, "WITHSCORES")
for i = 1, #queued, 2 do
  if #reply >= limit * 4 then break end
  local id = queued[i]
  local attempts = tonumber(redis.call("HGET", KEY.attempts, id) or "0")
  if attempts > 0 and redis.call("HEXISTS", KEY.claims, id) == 0 then
    local entry = redis.call("HGET", KEY.entries, id)
    if entry then
      reply[#reply + 1] = id
      reply[#reply + 1] = entry
      reply[#reply + 1] = attempts
      reply[#reply + 1] = queued[i + 1]
    end
  end
end
return reply
