--[[
  An operator's "drop": a queued delivery no sender holds leaves the outbox and joins the recent list
  as dropped. Its event's mark (seen) stays, so no replica queues or sends it again. One held by a
  sender whose lease still runs is left to that sender (it may be arriving at the sink right now).

    KEYS
      due                 the deliveries by due time (sorted set)
      entries             the deliveries by id (hash of JSON)
      attempts            the tries of each delivery (hash)
      claims              the claimant holding each delivery (hash)
      recent              the last settled deliveries, newest first (list of JSON)
    ARGV
      id                  the delivery
      now                 the time of the call (ms)
      reason              the reason its recent-list record gives
      recentKept          how many recent records are kept
    Reply
      {'done', entry, attempts, dueAt}  dropped: its entry, tries so far and the due time it had
      {'inFlight', leaseEndsAt}  a sender holds it until leaseEndsAt: nothing changed
      {'missing'}         never queued, or settled (sent or dropped) already: nothing changed
]]

local dueAt = redis.call("ZSCORE", KEY.due, ARG.id)
local entry = redis.call("HGET", KEY.entries, ARG.id)
if not dueAt or not entry then
  return {'missing'}
end
if tonumber(dueAt) > tonumber(ARG.now) and redis.call("HEXISTS", KEY.claims, ARG.id) == 1 then
  return {'inFlight', dueAt}
end
local attempts = tonumber(redis.call("HGET", KEY.attempts, ARG.id) or "0")
redis.call("ZREM", KEY.due, ARG.id)
redis.call("HDEL", KEY.entries, ARG.id)
redis.call("HDEL", KEY.attempts, ARG.id)
redis.call("HDEL", KEY.claims, ARG.id)
-- The record as recentOf writes it; an entry that does not read back leaves without one.
local ok, stored = pcall(cjson.decode, entry)
if ok and type(stored) == "table" and type(stored.notification) == "table" then
  local notification = stored.notification
  local record = cjson.encode({
    id = ARG.id,
    event = notification.event,
    subject = notification.subject,
    sinkId = stored.sinkId,
    result = "dropped",
    reason = ARG.reason,
    attempts = attempts,
    at = tonumber(ARG.now),
  })
  -- cjson writes numbers with 14 significant digits: a Gitea record id (above 2^48) is written exactly.
  local installationId = notification.installationId
  if type(installationId) == "number" then
    record = '{"installationId":' .. string.format("%d", installationId) .. "," .. string.sub(record, 2)
  end
  redis.call("LPUSH", KEY.recent, record)
  redis.call("LTRIM", KEY.recent, 0, tonumber(ARG.recentKept) - 1)
end
return {'done', entry, attempts, dueAt}
