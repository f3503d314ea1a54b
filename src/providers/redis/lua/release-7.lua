--[[
  A holder gives its lease up (released, or completed with that outcome); repeated, it answers the same.

    KEYS
      record              the subject's claim record (hash)
      digests             the subject's lease token digests by generation, and the rotated ones (hash)
      history             the subject's transitions, newest first (list)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      repository          the repository's subjects by last activity (sorted set)
      failures            the subject's failed attempts, oldest first (list, the failure breaker's); an outcome 'completed' clears it
    ARGV
      generation          the lease's generation
      tokenDigest         the digest of the lease token shown
      now                 the time of the call (ms)
      member              the subject in the installation's indexes ("repoId:issue")
      outcome             the holder's outcome; 'completed' ends it completed, any other released
      note                the holder's note (bounded), kept with the attempt an outcome 'failed' records
    Reply (records as field/value lists)
      {'released', record, repeated, failures, stallAsked}  repeated '1' when it had already been released or completed; failures: the subject's attempts after this release (none after 'completed'); stallAsked '1' when the App's ask on a stall stood until now
      {'missing'}                       no record, or a generation it never reached
      {'invalid_token'}                 the token is not this generation's
      {'superseded', current, rotatedAt}  a newer generation holds it; rotatedAt only for a rotated token
      {'gone', reason, current}         ended otherwise (reaped, revoked)
]]

--- @include "history"
--- @include "indexes"
--- @include "tokens"
--- @include "failures"

local cur, cur_flat = load(KEY.record)
local refusal = refuse(cur, cur_flat, KEY.digests, ARG.generation, ARG.tokenDigest)
if refusal then return refusal end
if cur.state == 'released' or cur.state == 'completed' then return {'released', cur_flat, '1', {}, '0'} end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
local state = 'released'
if ARG.outcome == 'completed' then state = 'completed' end
redis.call('HSET', KEY.record, 'state', state, 'outcome', ARG.outcome, 'endedAt', ARG.now, 'endedBy', cur.actor, 'sync', 'pending')
-- An ended record returns to the shape 0.1.0 reads: the App's ask on a stall ends with the lease
-- (answered as stallAsked, so the release's write still takes its label off).
redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest', 'stallAsk')
redis.call('ZREM', KEY.deadlines, ARG.member)
drop_holder(KEY.holders, ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
push_history(KEY.history, ARG.now, cur.generation, state, cur.actor, ARG.outcome)
local failures = {}
if ARG.outcome == 'failed' then
  failures = push_failure(KEY.failures, cur, 'failed', ARG.now, ARG.note)
elseif ARG.outcome == 'completed' then
  -- Work completed ends the issue's run of failures: the breaker counts failures since the last success.
  redis.call('DEL', KEY.failures)
else
  failures = redis.call('LRANGE', KEY.failures, 0, -1)
end
local m, flat = load(KEY.record)
local stall_asked = '0'
if cur.stallAsk then stall_asked = '1' end
return {'released', flat, '0', failures, stall_asked}
