--[[
  An operator's "retry now": a queued delivery no sender holds is due now (unless it was due sooner).
  Its entry (the event id, so the same Idempotency-Key) and its tries stay: the next claim counts one
  more. One held by a sender whose lease still runs is left to that sender (never sent twice at once).

    KEYS
      due                 the deliveries by due time (sorted set)
      entries             the deliveries by id (hash of JSON)
      attempts            the tries of each delivery (hash)
      claims              the claimant holding each delivery (hash)
    ARGV
      id                  the delivery
      now                 the time of the call (ms)
    Reply
      {'done', entry, attempts, dueAt}  made due now: its entry, tries so far and the due time it had
      {'inFlight', leaseEndsAt}  a sender holds it until leaseEndsAt: nothing changed
      {'missing'}         never queued, or settled (sent or dropped) already: nothing changed
]]

local dueAt = redis.call("ZSCORE", KEY.due, ARG.id)
local entry = redis.call("HGET", KEY.entries, ARG.id)
if not dueAt or not entry then
  return {'missing'}
end
local now = tonumber(ARG.now)
if tonumber(dueAt) > now and redis.call("HEXISTS", KEY.claims, ARG.id) == 1 then
  return {'inFlight', dueAt}
end
local attempts = tonumber(redis.call("HGET", KEY.attempts, ARG.id) or "0")
if tonumber(dueAt) > now then
  redis.call("ZADD", KEY.due, ARG.now, ARG.id)
end
-- A claimant whose lease ran out lost it: its late settle changes nothing.
redis.call("HDEL", KEY.claims, ARG.id)
return {'done', entry, attempts, dueAt}
