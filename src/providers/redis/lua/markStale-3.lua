--[[
  Marks a silent holder's claim stale (the reclaim-after deadline starts to count) after re-checking the
  generation and the silence, so a heartbeat in between wins.

    KEYS
      record              the subject's claim record (hash)
      deadlines           the installation's active claims by deadline (sorted set)
      repository          the repository's subjects by last activity (sorted set)
    ARGV
      generation          the generation to mark
      now                 the time of the call (ms)
      requireSilentMs     the silence the holder must still have (ms), or '' for none
      storeEpoch          the installation's store epoch (ms): silence before it does not count
      member              the subject in the installation's indexes ("repoId:issue")
    Reply (records as field/value lists)
      {'marked', record}                the record as marked
      {'skipped', reason, current}      reason 'missing', 'moved-on', 'not-active', 'live' or 'already-marked'
]]

--- @include "indexes"
--- @include "guards"

local now = tonumber(ARG.now)
local cur, cur_flat = load(KEY.record)
local reason = end_guard(cur, ARG.generation)
if not reason and cur.staleMarkedAt then reason = 'already-marked' end
if not reason and still_live(cur, now, ARG.requireSilentMs, ARG.storeEpoch) then reason = 'live' end
if reason then return {'skipped', reason, cur_flat} end
redis.call('HSET', KEY.record, 'staleMarkedAt', ARG.now)
local m, flat = load(KEY.record)
redis.call('ZADD', KEY.deadlines, int(deadline_of(m)), ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
return {'marked', flat}
