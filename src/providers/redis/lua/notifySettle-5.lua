-- Settles a delivery its claimant still holds: a retry is due again at ARG.dueAt; sent or dropped, it leaves (and joins recent).
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
