--[[
  An operator's "clear needs-human": withdraws the active holder's ask (and the App's on a stalled claim's
  behalf, `stallAsk`) and forgets the subject's failed
  attempts (the failure breaker), only while the record is the generation the operator saw. A withdrawn
  ask is progress (progressAt = now): the ask paused the stall clock, and the clear must not leave the
  holder stalled at once.

    KEYS
      record              the subject's claim record (hash)
      failures            the subject's failed attempts, oldest first (list)
    ARGV
      generation          the generation the operator saw; another one is left alone
      now                 the clock (ms): progressAt when the ask is withdrawn
    Reply (records as field/value lists)
      {'cleared', record, withdrewAsk, failuresCleared}  the record as written; withdrewAsk '1' when the ask went; failuresCleared the attempts forgotten
      {'skipped', reason, current}      reason 'missing', 'moved-on', or 'nothing' (no ask and no failure)
]]

local generation, state, needs_human, stall_ask, progress_at =
  unpack(redis.call('HMGET', KEY.record, 'generation', 'state', 'needsHuman', 'stallAsk', 'progressAt'))
if not generation then return {'skipped', 'missing', {}} end
if tonumber(generation) ~= tonumber(ARG.generation) then
  return {'skipped', 'moved-on', redis.call('HGETALL', KEY.record)}
end
local asks = state == 'active' and (needs_human == 'true' or stall_ask == 'true')
local failures = redis.call('LLEN', KEY.failures)
if not asks and failures == 0 then return {'skipped', 'nothing', redis.call('HGETALL', KEY.record)} end
local withdrew = '0'
if asks then
  redis.call('HDEL', KEY.record, 'needsHuman', 'stallAsk')
  if not progress_at or tonumber(progress_at) < tonumber(ARG.now) then
    redis.call('HSET', KEY.record, 'progressAt', ARG.now)
  end
  withdrew = '1'
end
if failures > 0 then redis.call('DEL', KEY.failures) end
return {'cleared', redis.call('HGETALL', KEY.record), withdrew, failures}
