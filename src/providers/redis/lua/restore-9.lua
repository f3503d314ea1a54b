--- @include "history"
--- @include "indexes"

local generation = tonumber(ARG.generation)
local high_water = tonumber(redis.call('GET', KEY.highWater) or '0')
if generation > high_water then redis.call('SET', KEY.highWater, ARG.generation) end
-- The restored generation's token stays recognisable even when a newer record is kept,
-- so an old holder is told "superseded" rather than "unauthorized".
if ARG.tokenDigest ~= '' then redis.call('HSETNX', KEY.digests, ARG.generation, ARG.tokenDigest) end
local current = redis.call('HGET', KEY.record, 'generation')
if current and tonumber(current) >= generation then return 'exists' end
local fields = {}
for i = REST, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('DEL', KEY.record)
redis.call('HSET', KEY.record, unpack(fields))
if ARG.tokenDigest ~= '' then redis.call('HSET', KEY.digests, ARG.generation, ARG.tokenDigest) end
local session_key = nil
if ARG.hasSessionIdentity == '1' then session_key = KEY.sessionSet end
index_record(load(KEY.record), KEY.deadlines, KEY.holders, ARG.member, KEY.loginSet, session_key)
touch(KEY.repository, ARG.now, ARG.member)
push_history(KEY.history, ARG.now, ARG.generation, 'restored', ARG.actor)
return 'restored'
