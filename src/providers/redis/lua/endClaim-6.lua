--- @include "history"
--- @include "indexes"
--- @include "guards"

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
  -- Above the high-water mark, so a generation burnt by a rolled-back claim is never reused.
  local high_water = tonumber(redis.call('GET', KEY.highWater) or '0')
  local gen = int(math.max(high_water, tonumber(cur.generation)) + 1)
  redis.call('SET', KEY.highWater, gen)
  set[#set + 1] = 'generation'
  set[#set + 1] = gen
  set[#set + 1] = 'supersedes'
  set[#set + 1] = cur.generation
end
redis.call('HSET', KEY.record, unpack(set))
redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
redis.call('ZREM', KEY.deadlines, ARG.member)
drop_holder(KEY.holders, ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
local ender = nil
if ARG.endedBy ~= '' then ender = ARG.endedBy end
push_history(KEY.history, ARG.now, cur.generation, ARG.to, ender)
local m, flat = load(KEY.record)
return {'ended', cur_flat, flat}
