--[[
  Undoes a claim whose GitHub write failed: the previous record comes back (or none), re-indexed, so a
  failed claim leaves no lease behind. The generation stays burnt (highWater is not lowered).

    KEYS
      record              the subject's claim record (hash)
      history             the subject's transitions, newest first (list)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      loginSet            the previous holder login's live claims (sorted set)
      sessionSet          the previous holder session's live claims (sorted set)
      repository          the repository's subjects by last activity (sorted set)
      failures            the subject's failed attempts (list): the previous generation's stalled one, recorded by the claim, is taken back
    ARGV
      generation          the generation to roll back; only while it is still unsynced
      now                 the time of the call (ms)
      member              the subject in the installation's indexes ("repoId:issue")
      hasPrevious         '1' when REST holds the previous record to put back
      hasSessionIdentity  '1' when the previous holder counts against a session's cap (sessionSet)
    REST                  the previous record's field/value pairs, when there is one
    Reply
      1                   rolled back
      0                   nothing to do: another generation, or already synced
]]

--- @include "history"
--- @include "indexes"

-- The claim counted the stalled generation it took over (claim-14.lua); put back, it has not failed.
local function unpush_stalled(previous_generation)
  local last = redis.call('LINDEX', KEY.failures, -1)
  if not last then return end
  local attempt = cjson.decode(last)
  if attempt.reason == 'stalled' and tonumber(attempt.generation) == tonumber(previous_generation) then
    redis.call('RPOP', KEY.failures)
  end
end

local cur = load(KEY.record)
if not cur or tonumber(cur.generation) ~= tonumber(ARG.generation) or cur.sync ~= 'pending' then return 0 end
redis.call('DEL', KEY.record)
if ARG.hasPrevious == '1' then
  local fields = {}
  for i = REST, #ARGV do fields[#fields + 1] = ARGV[i] end
  redis.call('HSET', KEY.record, unpack(fields))
  unpush_stalled(redis.call('HGET', KEY.record, 'generation'))
  local session_key = nil
  if ARG.hasSessionIdentity == '1' then session_key = KEY.sessionSet end
  index_record(load(KEY.record), KEY.deadlines, KEY.holders, ARG.member, KEY.loginSet, session_key)
  touch(KEY.repository, ARG.now, ARG.member)
else
  redis.call('ZREM', KEY.deadlines, ARG.member)
  drop_holder(KEY.holders, ARG.member)
  redis.call('ZREM', KEY.repository, string.match(ARG.member, '[^:]*$'))
end
push_history(KEY.history, ARG.now, cur.generation, 'rolled-back')
return 1
