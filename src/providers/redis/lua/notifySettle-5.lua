--[[
  Settles a delivery its claimant still holds: a retry is due again at dueAt; sent or dropped, it leaves
  (and joins the recent list, unless it was discarded unread).

    KEYS
      due                 the deliveries by due time (sorted set)
      entries             the deliveries by id (hash of JSON)
      attempts            the tries of each delivery (hash)
      claims              the claimant holding each delivery (hash)
      recent              the last settled deliveries, newest first (list of JSON)
    ARGV
      id                  the delivery
      claimant            who settles it (it must still hold it)
      outcome             'retry', or how it ended
      dueAt               when a retry is due (ms)
      recent              its recent-list record (JSON), or '' for none
      recentKept          how many recent records are kept
    Reply
      1                   settled
      0                   the claimant no longer holds it
]]

if redis.call("HGET", KEY.claims, ARG.id) ~= ARG.claimant then
  return 0
end
if ARG.outcome == "retry" then
  redis.call("ZADD", KEY.due, ARG.dueAt, ARG.id)
  redis.call("HDEL", KEY.claims, ARG.id)
  return 1
end
redis.call("ZREM", KEY.due, ARG.id)
redis.call("HDEL", KEY.entries, ARG.id)
redis.call("HDEL", KEY.attempts, ARG.id)
redis.call("HDEL", KEY.claims, ARG.id)
-- An empty record: a delivery discarded unread (it could not be parsed), not one to list.
if ARG.recent ~= "" then
  redis.call("LPUSH", KEY.recent, ARG.recent)
  redis.call("LTRIM", KEY.recent, 0, tonumber(ARG.recentKept) - 1)
end
return 1
