--[[
  A holder's heartbeat: proves the lease, refreshes its liveness and indexes, and records its phase,
  blocker, wait, pull request, durations, ask for a person, usage and the gap since its last beat, in
  one round trip. It reads only
  the record fields its guards and writes need (the whole record only for a refusal, or when asked)
  and writes only what changes.

    KEYS
      record              the subject's claim record (hash)
      digests             the subject's lease token digests by generation, and the rotated ones (hash)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      repository          the repository's subjects by last activity (sorted set)
      spend               the subject's reported cost and tokens per generation, and their total (hash)
      gaps                the last gaps between the generation's beats: "<generation>:<ms>,<ms>,…" (string)
    ARGV
      generation          the lease's generation
      tokenDigest         the digest of the lease token shown
      now                 the time of the call (ms)
      member              the subject in the installation's indexes ("repoId:issue")
      phaseEditEveryMs    the least time between two claim-comment edits for a phase change
      hasPhase            '1' when phase is given
      phase               the holder's phase
      hasBlocker          '1' when blocker is given
      blocker             the holder's blocker
      waitUntil           when a declared wait ends (ms), or ''
      pullRequest         the holder's pull request number, or ''
      ttlMs               new durations, or '' to keep them (with reclaimAfterMs and heartbeatMs)
      reclaimAfterMs      the new reclaim-after (ms)
      heartbeatMs         the new heartbeat interval (ms)
      needsHuman          '1' asks for a person; anything else withdraws an earlier ask
      hasUsage            '1' when usage is reported
      usageCost           the lease's cumulative cost (micro-dollars), or ''
      usageTokens         the lease's cumulative tokens, or ''
      wantRecord          '1' answers the whole record as written (it comes anyway when edit is '1')
    Reply (records as field/value lists)
      {'ok', edit, askedBefore, spentBefore, spentAfter, warned, waitUntil, ttlMs, reclaimAfterMs, heartbeatMs, paused, record, stalledSince, stalledNow, stallAsk, stallAskChange}
                          edit '1' when the claim comment needs an edit; askedBefore '1' when it had
                          asked for a person before; the subject's spend before and after and its
                          warning mark ('' without usage); the record's waitUntil ('' without one)
                          and durations as written; paused '1' while the lease is paused by its
                          budget; record: the record as written when wantRecord
                          or edit is '1', else {} (lastHeartbeatAt is now; needsHuman the call's ask);
                          stalledSince: when the claim became stalled (ms), '' while it is not;
                          stalledNow '1' on the heartbeat that marked it stalled (stalledAt; the
                          record comes along for its notification); stallAsk '1' while the App
                          asks a person on the stalled claim's behalf after this heartbeat;
                          stallAskChange 'asked' (made now), 'withdrawn' (progress or the
                          holder's own ask ended it now) or ''
      {'usage_decreased', figure, last}  a cumulative figure ('costUsd' or 'tokens') went below last
      {'missing'}                       no record, or a generation it never reached
      {'invalid_token'}                 the token is not this generation's
      {'superseded', current, rotatedAt}  a newer generation holds it; rotatedAt only for a rotated token
      {'gone', reason, current}         ended (released, completed, reaped, revoked) or expired
]]

--- @include "indexes"
--- @include "tokens"
--- @include "spend"

local now = tonumber(ARG.now)
-- Only the fields the guards, the writes and the reply need (a missing one reads false). A takeover
-- intent's fields come and go together (claim-14.lua writes takeoverBy with them; every script that
-- ends an intent deletes all four): takeoverBy stands for them all.
local got = redis.call('HMGET', KEY.record, 'generation', 'state', 'lastHeartbeatAt', 'waitUntil', 'ttlMs',
  'reclaimAfterMs', 'heartbeatMs', 'phase', 'phaseCommentAt', 'needsHuman', 'staleMarkedAt', 'takeoverBy',
  'budgetPaused', 'claimedAt', 'progressAt', 'lastPushAt', 'stallAfterMs', 'onStall', 'stalledAt', 'stallAsk')
local generation, state, last_heartbeat_at, wait_until, ttl, reclaim_after, heartbeat_every, phase,
  phase_comment_at, needs_human, stale_marked_at, takeover_by, budget_paused, claimed_at, progress_at,
  last_push_at, stall_after, on_stall, stalled_at, stall_ask = unpack(got, 1, 20)
-- A refusal answers the whole record (the rare path).
local function whole() return redis.call('HGETALL', KEY.record) end
local refusal = lease_refusal(generation, state, whole, KEY.digests, ARG.generation, ARG.tokenDigest)
if refusal then return refusal end
if state ~= 'active' then return {'gone', gone_reason(state), whole()} end
if now - alive_at({lastHeartbeatAt = last_heartbeat_at, waitUntil = wait_until}) >= tonumber(reclaim_after) then
  return {'gone', 'expired', whole()}
end
-- The usage is checked (and a decrease refused) before anything changes.
local spend = {'', '', ''}
if ARG.hasUsage == '1' then
  local refused, reported = record_usage(KEY.spend, generation, ARG.usageCost, ARG.usageTokens)
  if refused then return refused end
  spend = reported
end
-- The gap since the last beat (the claim, or a re-claim, counts as one), kept for the dashboard's
-- sparkline: the generation's last HEARTBEAT_GAPS_KEPT, oldest first, starting afresh with a new
-- generation. A key of its own, not a record field, so older replicas still read the record; it
-- lapses HEARTBEAT_GAPS_TTL_MS after the last beat. A repeated beat (no time passed) adds nothing.
local gap = now - tonumber(last_heartbeat_at)
if gap > 0 then
  local tag = generation .. ':'
  local kept = redis.call('GET', KEY.gaps)
  local gaps = {}
  if kept and string.sub(kept, 1, #tag) == tag then
    for ms in string.gmatch(string.sub(kept, #tag + 1), '%d+') do gaps[#gaps + 1] = ms end
  end
  gaps[#gaps + 1] = string.format('%d', gap)
  local first = math.max(1, #gaps - HEARTBEAT_GAPS_KEPT + 1)
  redis.call('SET', KEY.gaps, tag .. table.concat(gaps, ',', first, #gaps), 'PX', HEARTBEAT_GAPS_TTL_MS)
end
local asked_before = '0'
if needs_human == 'true' then asked_before = '1' end
local edit = '0'
if stale_marked_at then edit = '1' end
-- lastHeartbeatAt always; every other field only when the call sets it to something else.
local set = {'lastHeartbeatAt', ARG.now}
if ARG.needsHuman == '1' and needs_human ~= 'true' then
  set[#set + 1] = 'needsHuman'
  set[#set + 1] = 'true'
end
local progressed = false
if ARG.hasPhase == '1' and ARG.phase ~= phase then
  progressed = true
  set[#set + 1] = 'phase'
  set[#set + 1] = ARG.phase
  if not phase_comment_at or now - tonumber(phase_comment_at) >= tonumber(ARG.phaseEditEveryMs) then
    set[#set + 1] = 'phaseCommentAt'
    set[#set + 1] = ARG.now
    edit = '1'
  end
end
if ARG.hasBlocker == '1' then
  set[#set + 1] = 'blocker'
  set[#set + 1] = ARG.blocker
end
if ARG.waitUntil ~= '' and ARG.waitUntil ~= wait_until then
  wait_until = ARG.waitUntil
  set[#set + 1] = 'waitUntil'
  set[#set + 1] = wait_until
end
if ARG.pullRequest ~= '' then
  set[#set + 1] = 'pullRequest'
  set[#set + 1] = ARG.pullRequest
end
if ARG.ttlMs ~= '' and (ARG.ttlMs ~= ttl or ARG.reclaimAfterMs ~= reclaim_after or ARG.heartbeatMs ~= heartbeat_every) then
  ttl, reclaim_after, heartbeat_every = ARG.ttlMs, ARG.reclaimAfterMs, ARG.heartbeatMs
  set[#set + 1] = 'ttlMs'
  set[#set + 1] = ttl
  set[#set + 1] = 'reclaimAfterMs'
  set[#set + 1] = reclaim_after
  set[#set + 1] = 'heartbeatMs'
  set[#set + 1] = heartbeat_every
end
-- A phase change or a spend increase is progress (a push is recordPush-1.lua's).
if spend[1] ~= '' and tonumber(spend[2]) > tonumber(spend[1]) then progressed = true end
if progressed then
  progress_at = ARG.now
  set[#set + 1] = 'progressAt'
  set[#set + 1] = ARG.now
end
local stalled = nil
if stall_after then
  local ask = nil
  if ARG.needsHuman == '1' then ask = 'true' end
  stalled = stalled_since({stallAfterMs = stall_after, waitUntil = wait_until, needsHuman = ask,
    budgetPaused = budget_paused, claimedAt = claimed_at, progressAt = progress_at, lastPushAt = last_push_at}, now)
end
-- The first heartbeat that finds the generation stalled marks it (its notification goes once).
local stalled_now = '0'
if stalled and not stalled_at then
  stalled_now = '1'
  set[#set + 1] = 'stalledAt'
  set[#set + 1] = ARG.now
end
-- The App's ask for a person on the stalled claim's behalf (decideStallAsk in src/domain/stall.ts):
-- made with the stalled mark under onStall needs-human, withdrawn by progress or the holder's own ask.
local stall_ask_change = ''
local withdraw_stall_ask = false
if stalled_now == '1' and on_stall ~= 'reclaimable' and not stall_ask then
  stall_ask, stall_ask_change = 'true', 'asked'
  set[#set + 1] = 'stallAsk'
  set[#set + 1] = 'true'
elseif stall_ask and (progressed or ARG.needsHuman == '1') then
  stall_ask, stall_ask_change, withdraw_stall_ask = nil, 'withdrawn', true
end
redis.call('HSET', KEY.record, unpack(set))
-- The stale mark and a takeover intent go (an intent on a claim stalled with onStall reclaimable stays), and an ask for a person unless this heartbeat asks: no
-- HDEL when the record has none of them.
local cleared = {}
if stale_marked_at then cleared[#cleared + 1] = 'staleMarkedAt' end
if takeover_by and not (stalled and on_stall == 'reclaimable') then
  cleared[#cleared + 1] = 'takeoverBy'
  cleared[#cleared + 1] = 'takeoverAt'
  cleared[#cleared + 1] = 'takeoverGraceMs'
  cleared[#cleared + 1] = 'takeoverKeyDigest'
end
if needs_human and ARG.needsHuman ~= '1' then cleared[#cleared + 1] = 'needsHuman' end
if withdraw_stall_ask then cleared[#cleared + 1] = 'stallAsk' end
if #cleared > 0 then redis.call('HDEL', KEY.record, unpack(cleared)) end
-- The liveness as written (no stale mark any more).
refresh_record({lastHeartbeatAt = ARG.now, waitUntil = wait_until, ttlMs = ttl, reclaimAfterMs = reclaim_after},
  KEY.deadlines, KEY.holders, ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
local record = {}
if ARG.wantRecord == '1' or edit == '1' or stalled_now == '1' then record = whole() end
local paused = '0'
if budget_paused == 'true' then paused = '1' end
return {'ok', edit, asked_before, spend[1], spend[2], spend[3], wait_until or '', ttl, reclaim_after,
  heartbeat_every, paused, record, stalled and int(stalled) or '', stalled_now, stall_ask and '1' or '0', stall_ask_change}
