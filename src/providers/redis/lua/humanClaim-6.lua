--[[
  A person takes the subject (or releases it as abandoned): a new generation in state human that keeps
  the current durations and branch, out of the agents' live-claim indexes.

    KEYS
      record              the subject's claim record (hash)
      highWater           the highest generation the subject ever had, so none is given twice
      history             the subject's transitions, newest first (list)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      repository          the repository's subjects by last activity (sorted set)
    ARGV
      now                 the time of the call (ms)
      member              the subject in the installation's indexes ("repoId:issue")
      minGeneration       the highest generation seen on GitHub: the new one is above it
      actor               the person (JSON)
      release             '1' records it released as abandoned, not claimed
      ttlMs               durations for a subject without a record (with reclaimAfterMs and heartbeatMs)
      reclaimAfterMs      the reclaim-after for a subject without a record (ms)
      heartbeatMs         the heartbeat interval for a subject without a record (ms)
    REST                  the new record's field/value pairs, without generation, supersedes, durations
                          and branch (the script decides or copies them)
    Reply (records as field/value lists)
      {record, previous}  the new record, and the one it replaced ({} when none)
]]

--- @include "history"
--- @include "generations"
--- @include "indexes"

local cur, cur_flat = load(KEY.record)
local gen = next_generation(KEY.highWater, cur and tonumber(cur.generation) or 0, tonumber(ARG.minGeneration))
if cur and cur.state == 'active' then
  push_history(KEY.history, ARG.now, cur.generation, 'superseded', ARG.actor, stalled_note(cur, tonumber(ARG.now)))
end
local fields = {'generation', gen}
local function add(name, value)
  fields[#fields + 1] = name
  fields[#fields + 1] = value
end
if cur then
  add('supersedes', cur.generation)
  add('ttlMs', cur.ttlMs)
  add('reclaimAfterMs', cur.reclaimAfterMs)
  add('heartbeatMs', cur.heartbeatMs)
  if cur.branch then add('branch', cur.branch) end
else
  add('ttlMs', ARG.ttlMs)
  add('reclaimAfterMs', ARG.reclaimAfterMs)
  add('heartbeatMs', ARG.heartbeatMs)
end
for i = REST, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('DEL', KEY.record)
redis.call('HSET', KEY.record, unpack(fields))
redis.call('ZREM', KEY.deadlines, ARG.member)
drop_holder(KEY.holders, ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
if ARG.release == '1' then
  push_history(KEY.history, ARG.now, gen, 'released', ARG.actor, 'abandoned')
else
  push_history(KEY.history, ARG.now, gen, 'claimed', ARG.actor)
end
local m, flat = load(KEY.record)
return {flat, cur_flat}
