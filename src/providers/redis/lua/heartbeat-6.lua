--[[
  A holder's heartbeat: proves the lease, refreshes its liveness and indexes, and records its phase,
  blocker, wait, pull request, durations, ask for a person and usage, in one round trip.

    KEYS
      record              the subject's claim record (hash)
      digests             the subject's lease token digests by generation, and the rotated ones (hash)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      repository          the repository's subjects by last activity (sorted set)
      spend               the subject's reported cost and tokens per generation, and their total (hash)
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
    Reply (records as field/value lists)
      {'ok', edit, record, askedBefore, spentBefore, spentAfter, warned}
                          edit '1' when the claim comment needs an edit; record as one JSON object;
                          askedBefore '1' when it had asked for a person before;
                          the subject's spend before and after and its warning mark ('' without usage)
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
local cur, cur_flat = load(KEY.record)
local refusal = refuse(cur, cur_flat, KEY.digests, ARG.generation, ARG.tokenDigest)
if refusal then return refusal end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
if now - alive_at(cur) >= tonumber(cur.reclaimAfterMs) then return {'gone', 'expired', cur_flat} end
-- The usage is checked (and a decrease refused) before anything changes.
local spend = {'', '', ''}
if ARG.hasUsage == '1' then
  local refused, reported = record_usage(KEY.spend, cur.generation, ARG.usageCost, ARG.usageTokens)
  if refused then return refused end
  spend = reported
end
local asked_before = '0'
if cur.needsHuman == 'true' then asked_before = '1' end
local edit = '0'
local set = {'lastHeartbeatAt', ARG.now}
if ARG.needsHuman == '1' then
  set[#set + 1] = 'needsHuman'
  set[#set + 1] = 'true'
end
if cur.staleMarkedAt then edit = '1' end
if ARG.hasPhase == '1' and ARG.phase ~= cur.phase then
  set[#set + 1] = 'phase'
  set[#set + 1] = ARG.phase
  if not cur.phaseCommentAt or now - tonumber(cur.phaseCommentAt) >= tonumber(ARG.phaseEditEveryMs) then
    set[#set + 1] = 'phaseCommentAt'
    set[#set + 1] = ARG.now
    edit = '1'
  end
end
if ARG.hasBlocker == '1' then
  set[#set + 1] = 'blocker'
  set[#set + 1] = ARG.blocker
end
if ARG.waitUntil ~= '' then
  set[#set + 1] = 'waitUntil'
  set[#set + 1] = ARG.waitUntil
end
if ARG.pullRequest ~= '' then
  set[#set + 1] = 'pullRequest'
  set[#set + 1] = ARG.pullRequest
end
if ARG.ttlMs ~= '' then
  set[#set + 1] = 'ttlMs'
  set[#set + 1] = ARG.ttlMs
  set[#set + 1] = 'reclaimAfterMs'
  set[#set + 1] = ARG.reclaimAfterMs
  set[#set + 1] = 'heartbeatMs'
  set[#set + 1] = ARG.heartbeatMs
end
local cleared = {'staleMarkedAt', 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest'}
-- A heartbeat that does not ask for a person withdraws an earlier ask.
if ARG.needsHuman ~= '1' then cleared[#cleared + 1] = 'needsHuman' end
redis.call('HSET', KEY.record, unpack(set))
redis.call('HDEL', KEY.record, unpack(cleared))
-- The record as written, from the one read above (no second HGETALL).
for i = 1, #set, 2 do cur[set[i]] = set[i + 1] end
for _, field in ipairs(cleared) do cur[field] = nil end
refresh_record(cur, KEY.deadlines, KEY.holders, ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
-- One packed reply: the comment-edit flag, the record's hash fields as one JSON object, whether it
-- asked for a person before, and the subject's spend before and after with its warning mark.
return {'ok', edit, cjson.encode(cur), asked_before, spend[1], spend[2], spend[3]}
