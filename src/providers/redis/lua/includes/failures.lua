-- The failure breaker's attempts (src/domain/failure-breaker.ts FailedAttempt), oldest first, kept to the last FAILURES_KEPT.
-- Built from the record before the end, as JSON of its own (the actor is stored as JSON already).
local function push_failure(key, cur, reason, now, note)
  local entry = '{"generation":' .. cur.generation .. ',"reason":"' .. reason .. '","actor":' .. cur.actor
    .. ',"claimedAt":' .. cur.claimedAt .. ',"endedAt":' .. now
  if cur.branch and cur.branch ~= '' then entry = entry .. ',"branch":' .. cjson.encode(cur.branch) end
  if cur.pullRequest and cur.pullRequest ~= '' then entry = entry .. ',"pullRequest":' .. cur.pullRequest end
  if note and note ~= '' then entry = entry .. ',"note":' .. cjson.encode(note) end
  redis.call('RPUSH', key, entry .. '}')
  redis.call('LTRIM', key, -FAILURES_KEPT, -1)
  return redis.call('LRANGE', key, 0, -1)
end
