--[[
  An agent session claims a subject: a new generation over an ended, expired or taken-over record,
  a re-claim by the proven holding session, or the reason it may not have it now.

    KEYS
      record              the subject's claim record (hash)
      highWater           the highest generation the subject ever had, so none is given twice
      digests             the subject's lease token digests by generation, and the rotated ones (hash)
      history             the subject's transitions, newest first (list)
      deadlines           the installation's active claims by deadline, for the janitor (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      loginSet            the claimant login's live claims by live-until (sorted set)
      sessionSet          the claimant session's live claims by live-until (sorted set)
      repository          the repository's subjects by last activity (sorted set)
      liveIndexed         set once the installation's holders are in the live-claim sets (backfill mark)
      epoch               the installation's store epoch (string, ms): set to now when there is none
      repositories        the installation's repositories with subjects in the store (set of repo ids)
      writeLock           the subject's write lock (string: its owner, with an expiry; lockWrite-2.lua)
      failures            the subject's failed attempts, oldest first (list, the failure breaker's)
    ARGV
      now                 the time of the call (ms)
      member              the subject in the installation's indexes ("repoId:issue")
      claimant            the claiming actor (JSON)
      tokenDigest         the digest of the new lease token
      takeover            '1' when the claimant asks to take over a silent (or stalled, onStall reclaimable) holder
      minGeneration       the highest generation seen on GitHub: the new one is above it
      perSession          the most live claims one session may hold
      perLogin            the most live claims one login may hold
      hasSessionIdentity  '1' when the claimant counts against a session's cap (sessionSet)
      sessionKeyDigest    the digest of the claimant's session key, or ''
      leaseTokenDigest    the digest of the lease token the claimant shows, or ''
      repoId              the subject's repository id
      writeLockOwner      who takes the write lock with a new generation (for the write that follows), or ''
      writeLockTtlMs      how long that lock holds without another call (ms)
      maxFailures         queue.maxFailures: no new generation begins at this many failures, and a stalled takeover whose attempt brings the count to it trips the breaker
      override            '1' when the claimant sends override: a tripped subject (or a tripping takeover) is still taken
    REST                  the new record's field/value pairs, without generation and supersedes
    Reply (records as field/value lists)
      {'created', record, previous, writeLocked, failures}  a new generation; previous is {} when there was none; writeLocked '1' or '0' (taken or not), '' when not asked; failures: the attempts after a stalled generation taken over (or {})
      {'failing', previous, record, failures}  a stalled takeover tripped the breaker without override: the stalled generation ended reaped (bumped), no new one
      {'tripped', failures}                     the breaker is tripped (failures: the count, at maxFailures or more) and the claimant has no override: nothing changed
      {'reclaimed', record}                     the holding session again, its new token pending
      {'held', current, intent}                 another session holds it; intent: a takeover's claimant or ''
      {'human_held', current}                   a person holds it
      {'takeover_pending', current, retryAfterMs}  this claimant's takeover intent waits out its grace
      {'cap_reached', limit, max}               limit 'session' or 'login' is at its max live claims
]]

--- @include "session"
--- @include "history"
--- @include "generations"
--- @include "indexes"
--- @include "failures"

-- The installation's data begins no later than its first claim (epoch-1.lua), and the janitor finds
-- the repository: both whatever the answer, as when each was its own call before the claim.
redis.call('SET', KEY.epoch, ARG.now, 'NX')
redis.call('SADD', KEY.repositories, ARG.repoId)

local now = tonumber(ARG.now)
local member = ARG.member
local claimant_json = ARG.claimant
local claimant = cjson.decode(claimant_json)
local takeover = ARG.takeover == '1'
local session_key = nil
if ARG.hasSessionIdentity == '1' then session_key = KEY.sessionSet end

-- The proven holding session claims again: same generation, the new token pending until committed.
local function reclaim(cur)
  -- The old token stays the lease's until commitReclaim: a failed GitHub write keeps it valid.
  local set = {'pendingTokenDigest', ARG.tokenDigest, 'lastHeartbeatAt', ARG.now, 'sync', 'pending'}
  if ARG.sessionKeyDigest ~= '' then
    set[#set + 1] = 'sessionKeyDigest'
    set[#set + 1] = ARG.sessionKeyDigest
  end
  redis.call('HSET', KEY.record, unpack(set))
  redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest', 'staleMarkedAt')
  local m, flat = load(KEY.record)
  index_record(m, KEY.deadlines, KEY.holders, member, KEY.loginSet, session_key)
  touch(KEY.repository, ARG.now, member)
  push_history(KEY.history, ARG.now, cur.generation, 'reclaimed', claimant_json)
  return {'reclaimed', flat}
end

-- Another session claims an unexpired record: held, or a takeover intent; nil when it may supersede.
local function contest(cur, cur_flat, silent)
  local intent = cur.takeoverBy
  local intent_at, grace, intent_alive = nil, nil, false
  if intent then
    intent_at = tonumber(cur.takeoverAt)
    grace = tonumber(cur.takeoverGraceMs)
    intent_alive = now < intent_at + TAKEOVER_INTENT_LIFETIME_FACTOR * grace
  end
  -- A claim stalled with `onStall: reclaimable` may be taken over while its heartbeats go on.
  if (silent < tonumber(cur.ttlMs) and not stall_takeover(cur, now)) or not takeover then
    if intent_alive then return {'held', cur_flat, intent} end
    return {'held', cur_flat, ''}
  end
  -- The intent is its claimant session's: naming that (public) session id is not enough when
  -- the intent was made with a session key.
  local intent_key_differs = cur.takeoverKeyDigest and not digests_equal(cur.takeoverKeyDigest, ARG.sessionKeyDigest)
  if intent_alive and (not same_session(cjson.decode(intent), claimant) or intent_key_differs) then
    return {'held', cur_flat, intent}
  end
  if intent_alive and now >= intent_at + grace then return nil end
  if not intent_alive then
    intent_at = now
    grace = tonumber(cur.heartbeatMs)
    redis.call('HSET', KEY.record, 'takeoverBy', claimant_json, 'takeoverAt', ARG.now, 'takeoverGraceMs', cur.heartbeatMs)
    -- The intent is its own claimant's: an expired one's session key goes with it.
    if ARG.sessionKeyDigest ~= '' then
      redis.call('HSET', KEY.record, 'takeoverKeyDigest', ARG.sessionKeyDigest)
    else
      redis.call('HDEL', KEY.record, 'takeoverKeyDigest')
    end
    touch(KEY.repository, ARG.now, member)
    push_history(KEY.history, ARG.now, cur.generation, 'takeover-requested', claimant_json)
    cur, cur_flat = load(KEY.record)
  end
  return {'takeover_pending', cur_flat, int(intent_at + grace - now)}
end

-- An agent's refusal at its per-session or per-login cap of live claims (nil while under both).
local function cap_refusal()
  -- Before the first cap check, not only an agent's: a new installation is marked while it is small.
  index_backfill(KEY.liveIndexed, KEY.holders)
  if claimant.kind ~= 'agent' then return nil end
  local sessions = 0
  if session_key then sessions = count_live(session_key, member, now) end
  if sessions >= tonumber(ARG.perSession) then return {'cap_reached', 'session', ARG.perSession} end
  if count_live(KEY.loginSet, member, now) >= tonumber(ARG.perLogin) then
    return {'cap_reached', 'login', ARG.perLogin}
  end
  return nil
end

local cur, cur_flat = load(KEY.record)
if cur and cur.state == 'human' then return {'human_held', cur_flat} end
if cur and cur.state == 'active' then
  local silent = now - alive_at(cur)
  local expired = silent >= tonumber(cur.reclaimAfterMs)
  local same = same_session(cjson.decode(cur.actor), claimant)
  -- Invariant 14: the session proves itself with its session key or the current lease token; an
  -- unproven claimant naming the holder's (public) session id is just another session. A record
  -- restored from its claim comment has no sessionKeyDigest: then only the token proves it.
  if same and not expired then
    local by_key = ARG.sessionKeyDigest ~= '' and digests_equal(cur.sessionKeyDigest, ARG.sessionKeyDigest)
    local by_token = ARG.leaseTokenDigest ~= '' and digests_equal(redis.call('HGET', KEY.digests, cur.generation), ARG.leaseTokenDigest)
    same = by_key or by_token
  end
  if same and not expired then return reclaim(cur) end
  if not expired then
    local answer = contest(cur, cur_flat, silent)
    if answer then return answer end
  elseif not takeover and not same then
    return {'held', cur_flat, ''}
  end
end
local refusal = cap_refusal()
if refusal then return refusal end

-- A live, stalled generation taken over counts as a failed attempt, in this same step (the failure breaker).
local stalled = cur and cur.state == 'active' and stalled_note(cur, now)
local failures = {}
if stalled then
  failures = push_failure(KEY.failures, cur, 'stalled', ARG.now, nil)
  -- The attempt that trips the breaker leaves the subject to a person unless the claimant overrides:
  -- the stalled generation ends as a reap (bumped; its lease answers gone, reaped) and none begins.
  if #failures >= tonumber(ARG.maxFailures) and ARG.override ~= '1' then
    local bumped = next_generation(KEY.highWater, tonumber(cur.generation))
    redis.call('HSET', KEY.record, 'state', 'reaped', 'endedAt', ARG.now, 'sync', 'pending',
      'generation', bumped, 'supersedes', cur.generation)
    redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest', 'stallAsk')
    redis.call('ZREM', KEY.deadlines, member)
    drop_holder(KEY.holders, member)
    touch(KEY.repository, ARG.now, member)
    push_history(KEY.history, ARG.now, cur.generation, 'reaped', nil, 'stalled')
    local m, flat = load(KEY.record)
    return {'failing', cur_flat, flat, failures}
  end
elseif ARG.override ~= '1' then
  -- The breaker decides in the same step as the claim: a trip written by another replica's end
  -- since the caller's read still refuses it.
  local count = redis.call('LLEN', KEY.failures)
  if count >= tonumber(ARG.maxFailures) then return {'tripped', tostring(count)} end
end
local gen = next_generation(KEY.highWater, cur and tonumber(cur.generation) or 0, tonumber(ARG.minGeneration))
if cur and cur.state == 'active' then
  push_history(KEY.history, ARG.now, cur.generation, 'superseded', claimant_json, stalled_note(cur, now))
end
local fields = {'generation', gen}
if cur then
  fields[#fields + 1] = 'supersedes'
  fields[#fields + 1] = cur.generation
end
for i = REST, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('DEL', KEY.record)
redis.call('HSET', KEY.record, unpack(fields))
redis.call('HSET', KEY.digests, gen, ARG.tokenDigest)
local m, flat = load(KEY.record)
index_record(m, KEY.deadlines, KEY.holders, member, KEY.loginSet, session_key)
touch(KEY.repository, ARG.now, member)
push_history(KEY.history, ARG.now, gen, 'claimed', claimant_json)
-- The write that follows needs the subject's write lock: taken here when free, it costs no call of its own.
local write_locked = ''
if ARG.writeLockOwner ~= '' then
  write_locked = '0'
  if redis.call('SET', KEY.writeLock, ARG.writeLockOwner, 'NX', 'PX', ARG.writeLockTtlMs) then write_locked = '1' end
end
return {'created', flat, cur_flat, write_locked, failures}
