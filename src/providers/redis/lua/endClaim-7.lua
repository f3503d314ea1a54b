--[[
  The App ends a claim (reaped, revoked, completed, released) after re-checking, in the same step, that
  the generation is still the active one and, when asked, that its holder is still silent.

    KEYS
      record              the subject's claim record (hash)
      highWater           the highest generation the subject ever had (raised by a bump)
      history             the subject's transitions, newest first (list)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      repository          the repository's subjects by last activity (sorted set)
      failures            the subject's failed attempts, oldest first (list, the failure breaker's)
    ARGV
      generation          the generation to end
      now                 the time of the call (ms)
      to                  the state it ends in
      bump                '1' gives the ended record a new generation, so the old lease answers superseded
      endedBy             who ended it (JSON), or ''
      requireSilentMs     the silence the holder must still have (ms), or '' for none
      storeEpoch          the installation's store epoch (ms): silence before it does not count
      member              the subject in the installation's indexes ("repoId:issue")
      failure             why the ended generation counts as failed ('reaped', 'revoked', 'stalled'), or ''
    Reply (records as field/value lists)
      {'ended', previous, record, failures}  the record before and after; the subject's attempts after this end (this one last when it failed)
      {'skipped', reason, current}      reason 'missing', 'moved-on', 'not-active' or 'live'
]]

--- @include "history"
--- @include "generations"
--- @include "indexes"
--- @include "guards"
--- @include "failures"

local now = tonumber(ARG.now)
local cur, cur_flat = load(KEY.record)
local reason = end_guard(cur, ARG.generation)
if not reason and still_live(cur, now, ARG.requireSilentMs, ARG.storeEpoch) then reason = 'live' end
if reason then return {'skipped', reason, cur_flat} end
local set = {'state', ARG.to, 'endedAt', ARG.now, 'sync', 'pending'}
if ARG.endedBy ~= '' then
  set[#set + 1] = 'endedBy'
  set[#set + 1] = ARG.endedBy
end
if ARG.bump == '1' then
  local gen = next_generation(KEY.highWater, tonumber(cur.generation))
  set[#set + 1] = 'generation'
  set[#set + 1] = gen
  set[#set + 1] = 'supersedes'
  set[#set + 1] = cur.generation
end
redis.call('HSET', KEY.record, unpack(set))
-- An ended record returns to the shape 0.1.0 reads: the App's ask on a stall ends with the claim.
redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest', 'stallAsk')
redis.call('ZREM', KEY.deadlines, ARG.member)
drop_holder(KEY.holders, ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
local ender = nil
if ARG.endedBy ~= '' then ender = ARG.endedBy end
push_history(KEY.history, ARG.now, cur.generation, ARG.to, ender)
local failures = {}
if ARG.failure ~= '' then
  failures = push_failure(KEY.failures, cur, ARG.failure, ARG.now, nil)
else
  failures = redis.call('LRANGE', KEY.failures, 0, -1)
end
local m, flat = load(KEY.record)
return {'ended', cur_flat, flat, failures}
