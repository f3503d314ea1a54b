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
