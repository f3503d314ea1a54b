-- A lease's reported usage against its last report, kept in the subject's spend hash.
--- @include "record"

-- A subject's spend hash (docs/agents.md#spend-and-budgets), beside its record: 'c:<generation>' and
-- 't:<generation>' hold each lease's last reported cost (micro-dollars) and tokens, 'total' the sum of
-- the costs over every generation (a takeover keeps it), 'warned' the once-only budget-warn mark.

-- Checks a lease's cumulative usage against its last report and stores it. Answers nil and the
-- subject's spend before and after, and whether it was warned; or the refusal when a figure went down.
-- Call it before changing anything else, so a refused report changes nothing.
local function record_usage(spend_key, generation, cost_arg, tokens_arg)
  local g = tostring(generation)
  local got = redis.call('HMGET', spend_key, 'c:' .. g, 't:' .. g, 'total', 'warned')
  local last_cost = tonumber(got[1] or '0')
  local last_tokens = tonumber(got[2] or '0')
  local cost = last_cost
  if cost_arg ~= '' then cost = tonumber(cost_arg) end
  local tokens = last_tokens
  if tokens_arg ~= '' then tokens = tonumber(tokens_arg) end
  if cost < last_cost then return {'usage_decreased', 'costUsd', int(last_cost)} end
  if tokens < last_tokens then return {'usage_decreased', 'tokens', int(last_tokens)} end
  local before = tonumber(got[3] or '0')
  local after = before + cost - last_cost
  redis.call('HSET', spend_key, 'c:' .. g, int(cost), 't:' .. g, int(tokens), 'total', int(after))
  local warned = '0'
  if got[4] then warned = '1' end
  return nil, {int(before), int(after), warned}
end
