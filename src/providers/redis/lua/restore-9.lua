--[[
  Puts back a record read from its claim comment (a store that lost it) unless the store already has
  that generation or a newer one; the restored token stays recognisable either way.

    KEYS
      record              the subject's claim record (hash)
      highWater           the highest generation the subject ever had (raised to the restored one)
      digests             the subject's lease token digests by generation, and the rotated ones (hash)
      history             the subject's transitions, newest first (list)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      loginSet            the holder login's live claims (sorted set)
      sessionSet          the holder session's live claims (sorted set)
      repository          the repository's subjects by last activity (sorted set)
    ARGV
      now                 the time of the call (ms)
      member              the subject in the installation's indexes ("repoId:issue")
      hasSessionIdentity  '1' when the holder counts against a session's cap (sessionSet)
      generation          the restored generation
      tokenDigest         the restored lease token's digest, or ''
      actor               the restored record's actor (JSON), for the history
    REST                  the restored record's field/value pairs
    Reply
      'restored'          the record is back
      'exists'            the store has this generation or a newer one: nothing replaced
]]

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
