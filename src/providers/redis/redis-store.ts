// The Redis LivenessStore: every transition is one Lua script (EVALSHA) over the keys of one installation.
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import { type Actor, ClaimRecord, type SubjectKey, Transition } from "../../domain/claim.js";
import {
  type ClaimInput,
  type ClaimOutcome,
  type CommitReclaimInput,
  type EndClaimInput,
  type EndClaimOutcome,
  type GoneReason,
  type HeartbeatInput,
  type HeartbeatOutcome,
  type HumanClaimInput,
  type LeaseInput,
  type LeaseRefusal,
  type LivenessStore,
  type MarkStaleInput,
  type MarkStaleOutcome,
  type ReleaseInput,
  type ReleaseOutcomeResult,
  StoreUnavailableError,
  type VerifyOutcome,
} from "../liveness-store.js";
import {
  checkTtl,
  encodeDocument,
  humanClaimDurations,
  newClaimRecord,
  newHumanRecord,
  rotatedTokensKept,
  takeoverIntentLifetimeFactor,
} from "../memory/memory-store.js";

export interface RedisLivenessStoreOptions {
  /**
   * An ioredis client or cluster. Create it with `maxRetriesPerRequest: 1` (or
   * `enableOfflineQueue: false`) so an outage answers `store_unavailable` at once instead of queueing.
   */
  redis: Redis | Cluster;
  /** Prepended to every key, e.g. `claimhold:`. Must not contain `{` (the installation is the hash tag). */
  keyPrefix: string;
  /** True when the store created the client and so quits it on `close()`. */
  ownsClient?: boolean;
}

const historyLimit = 50;

/**
 * Record layout in its hash: scalar fields keep their names; `durations` is flattened into
 * ttlMs/reclaimAfterMs/heartbeatMs and `takeover` into takeoverBy/takeoverAt/takeoverGraceMs so the
 * scripts read them without decoding; actors and scope are JSON strings the scripts copy verbatim.
 */
type FieldCodec = "int" | "string" | "bool" | "json";
const fieldCodecs: Record<string, FieldCodec> = {
  installationId: "int",
  repoId: "int",
  issue: "int",
  repo: "string",
  generation: "int",
  state: "string",
  actor: "json",
  taskClass: "string",
  branch: "string",
  title: "string",
  claimedAt: "int",
  lastHeartbeatAt: "int",
  tokenDigest: "string",
  pendingTokenDigest: "string",
  sessionKeyDigest: "string",
  appAssigned: "bool",
  assigneeNodeId: "string",
  releasedAssigneeNodeIds: "json",
  sync: "string",
  issueNodeId: "string",
  commentNodeId: "string",
  commentId: "int",
  supersedes: "int",
  phase: "string",
  blocker: "string",
  waitUntil: "int",
  pullRequest: "int",
  phaseCommentAt: "int",
  staleMarkedAt: "int",
  lastPushAt: "int",
  scope: "json",
  artifacts: "string",
  endedAt: "int",
  outcome: "string",
  endedBy: "json",
};
const durationFields = ["ttlMs", "reclaimAfterMs", "heartbeatMs"] as const;

// Shared Lua helpers, prepended to every script. Numbers computed in Lua are written with %d so
// large millisecond timestamps never turn into exponent notation.
const luaPrelude = `
local function int(n) return string.format('%d', n) end

local function load(key)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil, flat end
  local m = {}
  for i = 1, #flat, 2 do m[flat[i]] = flat[i + 1] end
  return m, flat
end

local function same_session(a, b)
  return a.kind == 'agent' and b.kind == 'agent' and type(a.sessionId) == 'string'
    and a.sessionId ~= '' and a.sessionId == b.sessionId and a.login == b.login
end

-- Constant time over the digest bytes: no early exit on the first difference.
local function digests_equal(a, b)
  if type(a) ~= 'string' or type(b) ~= 'string' or #a ~= #b then return false end
  local acc = 0
  for i = 1, #a do acc = bit.bor(acc, bit.bxor(string.byte(a, i), string.byte(b, i))) end
  return acc == 0
end

local function push_history(key, at, generation, kind, actor, note)
  local entry = '{"at":' .. at .. ',"generation":' .. generation .. ',"kind":"' .. kind .. '"'
  if actor then entry = entry .. ',"actor":' .. actor end
  if note then entry = entry .. ',"note":' .. cjson.encode(note) end
  redis.call('LPUSH', key, entry .. '}')
  redis.call('LTRIM', key, 0, ${historyLimit - 1})
end

local function gone_reason(state)
  if state == 'completed' or state == 'reaped' or state == 'revoked' then return state end
  return 'released'
end

-- A holder waiting (capped waitUntil, set at a heartbeat) is alive until the wait ends (SPEC §4.2).
local function alive_at(m)
  return math.max(tonumber(m.lastHeartbeatAt), tonumber(m.waitUntil) or 0)
end

local function live_until(m) return alive_at(m) + tonumber(m.ttlMs) end

local function deadline_of(m)
  local after = m.staleMarkedAt and tonumber(m.reclaimAfterMs) or tonumber(m.ttlMs)
  return alive_at(m) + after
end

-- The holders hash maps an active subject to "liveUntil\\nloginKey\\nsessionKey": the truth the
-- login/session index sets are checked against (they may keep members a transition moved away).
local function index_record(m, deadlines, holders, member, login_key, session_key)
  if m and m.state == 'active' then
    redis.call('ZADD', deadlines, int(deadline_of(m)), member)
    redis.call('HSET', holders, member, int(live_until(m)) .. '\\n' .. login_key .. '\\n' .. (session_key or ''))
    redis.call('SADD', login_key, member)
    if session_key then redis.call('SADD', session_key, member) end
  else
    redis.call('ZREM', deadlines, member)
    redis.call('HDEL', holders, member)
  end
end

-- After a heartbeat: same actor, new liveness.
local function refresh_record(m, deadlines, holders, member)
  redis.call('ZADD', deadlines, int(deadline_of(m)), member)
  local entry = redis.call('HGET', holders, member)
  if entry then
    local rest = string.match(entry, '^[^\\n]*(\\n.*)$')
    redis.call('HSET', holders, member, int(live_until(m)) .. rest)
  end
end

-- Live claims indexed under set_key (other than member); drops members whose holder moved on.
local function count_live(set_key, holders, member, now, is_login)
  local n = 0
  for _, m in ipairs(redis.call('SMEMBERS', set_key)) do
    if m ~= member then
      local entry = redis.call('HGET', holders, m)
      local until_at, login_key, session_key
      if entry then until_at, login_key, session_key = string.match(entry, '^([^\\n]*)\\n([^\\n]*)\\n(.*)$') end
      local owner = login_key
      if not is_login then owner = session_key end
      if owner ~= set_key then
        redis.call('SREM', set_key, m)
      elseif tonumber(until_at) > now then
        n = n + 1
      end
    end
  end
  return n
end

-- The repository listing: member = issue number, score = time of the last transition or heartbeat.
local function touch(repo_key, at, member)
  redis.call('ZADD', repo_key, at, string.match(member, '[^:]*$'))
end

-- Why an App-made transition must leave the record alone (nil when it may proceed).
local function end_guard(cur, generation_arg)
  if not cur then return 'missing' end
  if tonumber(cur.generation) ~= tonumber(generation_arg) then return 'moved-on' end
  if cur.state ~= 'active' then return 'not-active' end
  return nil
end

-- With a required silence: silence before the store's epoch is unknown, not proven (invariant 7).
local function still_live(cur, now, silent_ms_arg, epoch_arg)
  if silent_ms_arg == '' then return false end
  local since = math.max(alive_at(cur), tonumber(epoch_arg) or 0)
  return now - since < tonumber(silent_ms_arg)
end

-- The digests field '<generation>:rotated' lists the tokens re-claims rotated out of that
-- generation as 'digest@at,…' (oldest first, at most ${rotatedTokensKept}).
local function rotated_at(tok_key, generation_arg, digest)
  local list = redis.call('HGET', tok_key, generation_arg .. ':rotated')
  if not list then return nil end
  local found = nil
  for d, at in string.gmatch(list, '([^@,]+)@([^,]+)') do
    if digests_equal(d, digest) then found = at end
  end
  return found
end

local function refuse(cur, cur_flat, tok_key, generation_arg, digest)
  local generation = tonumber(generation_arg)
  if not cur or generation > tonumber(cur.generation) then return {'missing'} end
  local known = redis.call('HGET', tok_key, generation_arg)
  if not known or not digests_equal(known, digest) then
    local at = rotated_at(tok_key, generation_arg, digest)
    if at then return {'superseded', cur_flat, at} end
    return {'invalid_token'}
  end
  if generation < tonumber(cur.generation) then
    if cur.state == 'active' or cur.state == 'human' then return {'superseded', cur_flat} end
    return {'gone', gone_reason(cur.state), cur_flat}
  end
  return nil
end
`;

// KEYS: record, high-water, digests, history, deadlines, holders, claimant login set, claimant session set,
//       repository listing.
// ARGV: now, member, claimant JSON, digest, takeover, minGeneration, perSession, perLogin,
//       claimant has a session identity, session-key digest (''), lease-token proof digest (''),
//       then the new record's fields (without generation/supersedes).
const claimLua = `
local now = tonumber(ARGV[1])
local member = ARGV[2]
local claimant_json = ARGV[3]
local claimant = cjson.decode(claimant_json)
local takeover = ARGV[5] == '1'
local session_key = nil
if ARGV[9] == '1' then session_key = KEYS[8] end
local cur, cur_flat = load(KEYS[1])
if cur and cur.state == 'human' then return {'human_held', cur_flat} end
if cur and cur.state == 'active' then
  local holder = cjson.decode(cur.actor)
  local silent = now - alive_at(cur)
  local expired = silent >= tonumber(cur.reclaimAfterMs)
  local same = same_session(holder, claimant)
  -- Invariant 14: the session proves itself with its session key or the current lease token; an
  -- unproven claimant naming the holder's (public) session id is just another session. A record
  -- restored from its claim comment has no sessionKeyDigest: then only the token proves it.
  if same and not expired then
    local by_key = ARGV[10] ~= '' and digests_equal(cur.sessionKeyDigest, ARGV[10])
    local by_token = ARGV[11] ~= '' and digests_equal(redis.call('HGET', KEYS[3], cur.generation), ARGV[11])
    same = by_key or by_token
  end
  if same and not expired then
    -- The old token stays the lease's until commitReclaim: a failed GitHub write keeps it valid.
    local set = {'pendingTokenDigest', ARGV[4], 'lastHeartbeatAt', ARGV[1], 'sync', 'pending'}
    if ARGV[10] ~= '' then
      set[#set + 1] = 'sessionKeyDigest'
      set[#set + 1] = ARGV[10]
    end
    redis.call('HSET', KEYS[1], unpack(set))
    redis.call('HDEL', KEYS[1], 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest', 'staleMarkedAt')
    local m, flat = load(KEYS[1])
    index_record(m, KEYS[5], KEYS[6], member, KEYS[7], session_key)
    touch(KEYS[9], ARGV[1], member)
    push_history(KEYS[4], ARGV[1], cur.generation, 'reclaimed', claimant_json)
    return {'reclaimed', flat}
  end
  if not same and not expired then
    local intent = cur.takeoverBy
    local intent_at, grace, intent_alive = nil, nil, false
    if intent then
      intent_at = tonumber(cur.takeoverAt)
      grace = tonumber(cur.takeoverGraceMs)
      intent_alive = now < intent_at + ${takeoverIntentLifetimeFactor} * grace
    end
    if silent < tonumber(cur.ttlMs) or not takeover then
      if intent_alive then return {'held', cur_flat, intent} end
      return {'held', cur_flat, ''}
    end
    -- The intent is its claimant session's: naming that (public) session id is not enough when
    -- the intent was made with a session key.
    local intent_key_differs = cur.takeoverKeyDigest and not digests_equal(cur.takeoverKeyDigest, ARGV[10])
    if intent_alive and (not same_session(cjson.decode(intent), claimant) or intent_key_differs) then
      return {'held', cur_flat, intent}
    end
    if not intent_alive or now < intent_at + grace then
      if not intent_alive then
        intent_at = now
        grace = tonumber(cur.heartbeatMs)
        redis.call('HSET', KEYS[1], 'takeoverBy', claimant_json, 'takeoverAt', ARGV[1], 'takeoverGraceMs', cur.heartbeatMs)
        if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'takeoverKeyDigest', ARGV[10]) end
        touch(KEYS[9], ARGV[1], member)
        push_history(KEYS[4], ARGV[1], cur.generation, 'takeover-requested', claimant_json)
        cur, cur_flat = load(KEYS[1])
      end
      return {'takeover_pending', cur_flat, int(intent_at + grace - now)}
    end
  elseif expired and not takeover and not same then
    return {'held', cur_flat, ''}
  end
end
if claimant.kind == 'agent' then
  local sessions = 0
  if session_key then sessions = count_live(session_key, KEYS[6], member, now, false) end
  if sessions >= tonumber(ARGV[7]) then return {'cap_reached', 'session', ARGV[7]} end
  if count_live(KEYS[7], KEYS[6], member, now, true) >= tonumber(ARGV[8]) then
    return {'cap_reached', 'login', ARGV[8]}
  end
end
local high_water = tonumber(redis.call('GET', KEYS[2]) or '0')
local current_generation = 0
if cur then current_generation = tonumber(cur.generation) end
local gen = int(math.max(high_water, current_generation, tonumber(ARGV[6])) + 1)
redis.call('SET', KEYS[2], gen)
if cur and cur.state == 'active' then
  push_history(KEYS[4], ARGV[1], cur.generation, 'superseded', claimant_json)
end
local fields = {'generation', gen}
if cur then
  fields[#fields + 1] = 'supersedes'
  fields[#fields + 1] = cur.generation
end
for i = 12, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('HSET', KEYS[3], gen, ARGV[4])
local m, flat = load(KEYS[1])
index_record(m, KEYS[5], KEYS[6], member, KEYS[7], session_key)
touch(KEYS[9], ARGV[1], member)
push_history(KEYS[4], ARGV[1], gen, 'claimed', claimant_json)
return {'created', flat, cur_flat}
`;

// KEYS: record, digests. ARGV: generation, new digest, now, commentNodeId (''), commentId ('').
const commitReclaimLua = `
local cur, cur_flat = load(KEYS[1])
if not cur or tonumber(cur.generation) ~= tonumber(ARGV[1]) or cur.state ~= 'active'
  or not digests_equal(cur.pendingTokenDigest, ARGV[2]) then
  return {}
end
local old = redis.call('HGET', KEYS[2], cur.generation)
if old then
  local field = cur.generation .. ':rotated'
  local entries = {}
  local list = redis.call('HGET', KEYS[2], field)
  if list then for entry in string.gmatch(list, '[^,]+') do entries[#entries + 1] = entry end end
  entries[#entries + 1] = old .. '@' .. ARGV[3]
  local first = math.max(1, #entries - ${rotatedTokensKept} + 1)
  redis.call('HSET', KEYS[2], field, table.concat(entries, ',', first, #entries))
end
redis.call('HSET', KEYS[2], cur.generation, ARGV[2])
local set = {'tokenDigest', ARGV[2], 'sync', 'done'}
if ARGV[4] ~= '' then
  set[#set + 1] = 'commentNodeId'
  set[#set + 1] = ARGV[4]
end
if ARGV[5] ~= '' then
  set[#set + 1] = 'commentId'
  set[#set + 1] = ARGV[5]
end
redis.call('HSET', KEYS[1], unpack(set))
redis.call('HDEL', KEYS[1], 'pendingTokenDigest')
local m, flat = load(KEYS[1])
return flat
`;

// KEYS: record. ARGV: generation, commentNodeId, commentId ('' when absent).
const commitLua = `
local generation = redis.call('HGET', KEYS[1], 'generation')
if not generation or tonumber(generation) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'commentNodeId', ARGV[2], 'sync', 'done')
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'commentId', ARGV[3]) end
return 1
`;

// KEYS: record, history, deadlines, holders, previous login set, previous session set, repository listing.
// ARGV: generation, now, member, has previous, previous has a session identity, previous fields.
const rollbackLua = `
local cur = load(KEYS[1])
if not cur or tonumber(cur.generation) ~= tonumber(ARGV[1]) or cur.sync ~= 'pending' then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[4] == '1' then
  local fields = {}
  for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], unpack(fields))
  local session_key = nil
  if ARGV[5] == '1' then session_key = KEYS[6] end
  index_record(load(KEYS[1]), KEYS[3], KEYS[4], ARGV[3], KEYS[5], session_key)
  touch(KEYS[7], ARGV[2], ARGV[3])
else
  redis.call('ZREM', KEYS[3], ARGV[3])
  redis.call('HDEL', KEYS[4], ARGV[3])
  redis.call('ZREM', KEYS[7], string.match(ARGV[3], '[^:]*$'))
end
push_history(KEYS[2], ARGV[2], cur.generation, 'rolled-back')
return 1
`;

// KEYS: record, digests. ARGV: generation, digest, now.
const verifyLua = `
local now = tonumber(ARGV[3])
local cur, cur_flat = load(KEYS[1])
local refusal = refuse(cur, cur_flat, KEYS[2], ARGV[1], ARGV[2])
if refusal then return refusal end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
if now - alive_at(cur) >= tonumber(cur.reclaimAfterMs) then return {'gone', 'expired', cur_flat} end
return {'ok', cur_flat}
`;

// KEYS: record, digests, deadlines, holders, repository listing.
// ARGV: generation, digest, now, member, phaseEditEveryMs, has phase, phase, has blocker, blocker,
//       waitUntil, pullRequest, ttlMs, reclaimAfterMs, heartbeatMs ('' when absent).
const heartbeatLua = `
local now = tonumber(ARGV[3])
local cur, cur_flat = load(KEYS[1])
local refusal = refuse(cur, cur_flat, KEYS[2], ARGV[1], ARGV[2])
if refusal then return refusal end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
if now - alive_at(cur) >= tonumber(cur.reclaimAfterMs) then return {'gone', 'expired', cur_flat} end
local edit = '0'
local set = {'lastHeartbeatAt', ARGV[3]}
if cur.staleMarkedAt then edit = '1' end
if ARGV[6] == '1' and ARGV[7] ~= cur.phase then
  set[#set + 1] = 'phase'
  set[#set + 1] = ARGV[7]
  if not cur.phaseCommentAt or now - tonumber(cur.phaseCommentAt) >= tonumber(ARGV[5]) then
    set[#set + 1] = 'phaseCommentAt'
    set[#set + 1] = ARGV[3]
    edit = '1'
  end
end
if ARGV[8] == '1' then
  set[#set + 1] = 'blocker'
  set[#set + 1] = ARGV[9]
end
if ARGV[10] ~= '' then
  set[#set + 1] = 'waitUntil'
  set[#set + 1] = ARGV[10]
end
if ARGV[11] ~= '' then
  set[#set + 1] = 'pullRequest'
  set[#set + 1] = ARGV[11]
end
if ARGV[12] ~= '' then
  set[#set + 1] = 'ttlMs'
  set[#set + 1] = ARGV[12]
  set[#set + 1] = 'reclaimAfterMs'
  set[#set + 1] = ARGV[13]
  set[#set + 1] = 'heartbeatMs'
  set[#set + 1] = ARGV[14]
end
redis.call('HSET', KEYS[1], unpack(set))
redis.call('HDEL', KEYS[1], 'staleMarkedAt', 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
local m, flat = load(KEYS[1])
refresh_record(m, KEYS[3], KEYS[4], ARGV[4])
touch(KEYS[5], ARGV[3], ARGV[4])
return {'ok', flat, edit}
`;

// KEYS: record, digests, history, deadlines, holders, repository listing.
// ARGV: generation, digest, now, member, outcome.
const releaseLua = `
local cur, cur_flat = load(KEYS[1])
local refusal = refuse(cur, cur_flat, KEYS[2], ARGV[1], ARGV[2])
if refusal then return refusal end
if cur.state == 'released' or cur.state == 'completed' then return {'released', cur_flat, '1'} end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
local state = 'released'
if ARGV[5] == 'completed' then state = 'completed' end
redis.call('HSET', KEYS[1], 'state', state, 'outcome', ARGV[5], 'endedAt', ARGV[3], 'endedBy', cur.actor, 'sync', 'pending')
redis.call('HDEL', KEYS[1], 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
redis.call('ZREM', KEYS[4], ARGV[4])
redis.call('HDEL', KEYS[5], ARGV[4])
touch(KEYS[6], ARGV[3], ARGV[4])
push_history(KEYS[3], ARGV[3], cur.generation, state, cur.actor, ARGV[5])
local m, flat = load(KEYS[1])
return {'released', flat, '0'}
`;

// KEYS: record. ARGV: generation.
const markSyncedLua = `
local generation = redis.call('HGET', KEYS[1], 'generation')
if not generation or tonumber(generation) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'sync', 'done')
return 1
`;

// KEYS: record, high-water, digests, history, deadlines, holders, login set, session set, repository listing.
// ARGV: now, member, has a session identity, generation, digest ('' when absent), actor JSON, fields.
const restoreLua = `
local generation = tonumber(ARGV[4])
local high_water = tonumber(redis.call('GET', KEYS[2]) or '0')
if generation > high_water then redis.call('SET', KEYS[2], ARGV[4]) end
-- The restored generation's token stays recognisable even when a newer record is kept,
-- so an old holder is told "superseded" rather than "unauthorized".
if ARGV[5] ~= '' then redis.call('HSETNX', KEYS[3], ARGV[4], ARGV[5]) end
local current = redis.call('HGET', KEYS[1], 'generation')
if current and tonumber(current) >= generation then return 'exists' end
local fields = {}
for i = 7, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(fields))
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[4], ARGV[5]) end
local session_key = nil
if ARGV[3] == '1' then session_key = KEYS[8] end
index_record(load(KEYS[1]), KEYS[5], KEYS[6], ARGV[2], KEYS[7], session_key)
touch(KEYS[9], ARGV[1], ARGV[2])
push_history(KEYS[4], ARGV[1], ARGV[4], 'restored', ARGV[6])
return 'restored'
`;

// KEYS: epoch. ARGV: now.
const epochLua = `
local known = redis.call('GET', KEYS[1])
if known then return known end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

// KEYS: record, high-water, history, deadlines, holders, repository listing.
// ARGV: generation, now, to, bump, ender JSON (''), requireSilentMs (''), storeEpoch (''), member.
const endClaimLua = `
local now = tonumber(ARGV[2])
local cur, cur_flat = load(KEYS[1])
local reason = end_guard(cur, ARGV[1])
if not reason and still_live(cur, now, ARGV[6], ARGV[7]) then reason = 'live' end
if reason then return {'skipped', reason, cur_flat} end
local set = {'state', ARGV[3], 'endedAt', ARGV[2], 'sync', 'pending'}
if ARGV[5] ~= '' then
  set[#set + 1] = 'endedBy'
  set[#set + 1] = ARGV[5]
end
if ARGV[4] == '1' then
  -- Above the high-water mark, so a generation burnt by a rolled-back claim is never reused.
  local high_water = tonumber(redis.call('GET', KEYS[2]) or '0')
  local gen = int(math.max(high_water, tonumber(cur.generation)) + 1)
  redis.call('SET', KEYS[2], gen)
  set[#set + 1] = 'generation'
  set[#set + 1] = gen
  set[#set + 1] = 'supersedes'
  set[#set + 1] = cur.generation
end
redis.call('HSET', KEYS[1], unpack(set))
redis.call('HDEL', KEYS[1], 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
redis.call('ZREM', KEYS[4], ARGV[8])
redis.call('HDEL', KEYS[5], ARGV[8])
touch(KEYS[6], ARGV[2], ARGV[8])
local ender = nil
if ARGV[5] ~= '' then ender = ARGV[5] end
push_history(KEYS[3], ARGV[2], cur.generation, ARGV[3], ender)
local m, flat = load(KEYS[1])
return {'ended', cur_flat, flat}
`;

// KEYS: record, deadlines, repository listing. ARGV: generation, now, requireSilentMs, storeEpoch, member.
const markStaleLua = `
local now = tonumber(ARGV[2])
local cur, cur_flat = load(KEYS[1])
local reason = end_guard(cur, ARGV[1])
if not reason and cur.staleMarkedAt then reason = 'already-marked' end
if not reason and still_live(cur, now, ARGV[3], ARGV[4]) then reason = 'live' end
if reason then return {'skipped', reason, cur_flat} end
redis.call('HSET', KEYS[1], 'staleMarkedAt', ARGV[2])
local m, flat = load(KEYS[1])
redis.call('ZADD', KEYS[2], int(deadline_of(m)), ARGV[5])
touch(KEYS[3], ARGV[2], ARGV[5])
return {'marked', flat}
`;

// KEYS: record, high-water, history, deadlines, holders, repository listing.
// ARGV: now, member, minGeneration, actor JSON, release, default ttlMs, reclaimAfterMs, heartbeatMs,
//       then the new record's fields (without generation, supersedes, durations and branch).
const humanClaimLua = `
local cur, cur_flat = load(KEYS[1])
local high_water = tonumber(redis.call('GET', KEYS[2]) or '0')
local current_generation = 0
if cur then current_generation = tonumber(cur.generation) end
local gen = int(math.max(high_water, current_generation, tonumber(ARGV[3])) + 1)
redis.call('SET', KEYS[2], gen)
if cur and cur.state == 'active' then
  push_history(KEYS[3], ARGV[1], cur.generation, 'superseded', ARGV[4])
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
  add('ttlMs', ARGV[6])
  add('reclaimAfterMs', ARGV[7])
  add('heartbeatMs', ARGV[8])
end
for i = 9, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('HDEL', KEYS[5], ARGV[2])
touch(KEYS[6], ARGV[1], ARGV[2])
if ARGV[5] == '1' then
  push_history(KEYS[3], ARGV[1], gen, 'released', ARGV[4], 'abandoned')
else
  push_history(KEYS[3], ARGV[1], gen, 'claimed', ARGV[4])
end
local m, flat = load(KEYS[1])
return {flat, cur_flat}
`;

// KEYS: record. ARGV: generation, at.
const recordPushLua = `
local cur = load(KEYS[1])
if not cur or tonumber(cur.generation) ~= tonumber(ARGV[1]) or cur.state ~= 'active' then return 0 end
if cur.lastPushAt and tonumber(cur.lastPushAt) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'lastPushAt', ARGV[2])
return 1
`;

// KEYS: record, history, deadlines, holders, repository listing. ARGV: now, member.
// The record stays (so the old lease answers gone) but synced: its issue left the repository.
const forgetLua = `
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[2])
redis.call('ZREM', KEYS[5], string.match(ARGV[2], '[^:]*$'))
local cur = load(KEYS[1])
if not cur or cur.state == 'revoked' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'revoked', 'endedAt', ARGV[1], 'sync', 'done')
redis.call('HDEL', KEYS[1], 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
push_history(KEYS[2], ARGV[1], cur.generation, 'revoked', nil, 'forgotten')
return 1
`;

// KEYS: lock. ARGV: owner, ttlMs.
const acquireLockLua = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`;

// KEYS: lock. ARGV: owner.
const releaseLockLua = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

const scripts = {
  claimholdClaim: { numberOfKeys: 9, lua: claimLua },
  claimholdCommit: { numberOfKeys: 1, lua: commitLua },
  claimholdCommitReclaim: { numberOfKeys: 2, lua: commitReclaimLua },
  claimholdRollback: { numberOfKeys: 7, lua: rollbackLua },
  claimholdVerify: { numberOfKeys: 2, lua: verifyLua },
  claimholdHeartbeat: { numberOfKeys: 5, lua: heartbeatLua },
  claimholdRelease: { numberOfKeys: 6, lua: releaseLua },
  claimholdMarkSynced: { numberOfKeys: 1, lua: markSyncedLua },
  claimholdRestore: { numberOfKeys: 9, lua: restoreLua },
  claimholdEpoch: { numberOfKeys: 1, lua: epochLua },
  claimholdEndClaim: { numberOfKeys: 6, lua: endClaimLua },
  claimholdMarkStale: { numberOfKeys: 3, lua: markStaleLua },
  claimholdHumanClaim: { numberOfKeys: 6, lua: humanClaimLua },
  claimholdRecordPush: { numberOfKeys: 1, lua: recordPushLua },
  claimholdForget: { numberOfKeys: 5, lua: forgetLua },
  claimholdAcquireLock: { numberOfKeys: 1, lua: acquireLockLua },
  claimholdReleaseLock: { numberOfKeys: 1, lua: releaseLockLua },
} as const;
type ScriptName = keyof typeof scripts;
type ScriptReply = string | number | null | ScriptReply[];

export class RedisLivenessStore implements LivenessStore {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #ownsClient: boolean;

  constructor(options: RedisLivenessStoreOptions) {
    if (options.keyPrefix.includes("{")) {
      throw new Error(
        `keyPrefix "${options.keyPrefix}" must not contain "{": the installation id is the key's hash tag`,
      );
    }
    this.#redis = options.redis;
    this.#prefix = options.keyPrefix;
    this.#ownsClient = options.ownsClient ?? false;
    for (const [name, script] of Object.entries(scripts)) {
      this.#redis.defineCommand(name, { numberOfKeys: script.numberOfKeys, lua: luaPrelude + script.lua });
    }
  }

  async claim(input: ClaimInput): Promise<ClaimOutcome> {
    const { key, actor } = input;
    await this.#indexRepository(key);
    // The script adds generation and supersedes, which only it can decide.
    const { generation: _, ...candidate } = newClaimRecord(input, 1, null);
    const fields = recordToFields(candidate as ClaimRecord);
    const reply = await this.#script(
      "claimholdClaim",
      [
        ...this.#subjectKeys(key, "rec", "gen", "tok", "hist"),
        ...this.#installationKeys(key.installationId),
        ...this.#actorKeys(key.installationId, actor),
        this.#repositoryKey(key),
      ],
      [
        String(input.now),
        memberOf(key),
        JSON.stringify(actor),
        input.tokenDigest,
        input.takeover ? "1" : "0",
        String(input.minGeneration),
        String(input.caps.perSession),
        String(input.caps.perLogin),
        hasSessionIdentity(actor) ? "1" : "0",
        input.sessionKeyDigest ?? "",
        input.leaseTokenDigest ?? "",
        ...fields,
      ],
    );
    const [kind, a, b] = asArray(reply);
    switch (kind) {
      case "created": {
        const previous = asArray(b);
        return {
          kind: "created",
          record: parseRecord(a),
          previous: previous.length ? parseRecord(previous) : null,
        };
      }
      case "reclaimed":
        return { kind: "reclaimed", record: parseRecord(a) };
      case "held":
        return {
          kind: "held",
          current: parseRecord(a),
          ...(b ? { takeoverPendingBy: parseActor(String(b)) } : {}),
        };
      case "human_held":
        return { kind: "human_held", current: parseRecord(a) };
      case "takeover_pending":
        return { kind: "takeover_pending", current: parseRecord(a), retryAfterMs: Number(b) };
      case "cap_reached":
        return { kind: "cap_reached", limit: a === "session" ? "session" : "login", max: Number(b) };
      default:
        throw unexpectedReply("claim", reply);
    }
  }

  async commitReclaim(input: CommitReclaimInput): Promise<ClaimRecord | null> {
    const reply = await this.#script("claimholdCommitReclaim", this.#subjectKeys(input.key, "rec", "tok"), [
      String(input.generation),
      input.tokenDigest,
      String(input.now),
      input.comment?.commentNodeId ?? "",
      input.comment?.commentId === undefined ? "" : String(input.comment.commentId),
    ]);
    return parseOptionalRecord(reply);
  }

  async commitClaim(
    key: SubjectKey,
    generation: number,
    comment: { commentNodeId: string; commentId?: number },
  ): Promise<void> {
    await this.#script("claimholdCommit", this.#subjectKeys(key, "rec"), [
      String(generation),
      comment.commentNodeId,
      comment.commentId === undefined ? "" : String(comment.commentId),
    ]);
  }

  async rollbackClaim(
    key: SubjectKey,
    generation: number,
    previous: ClaimRecord | null,
    now: number,
  ): Promise<void> {
    await this.#script(
      "claimholdRollback",
      [
        ...this.#subjectKeys(key, "rec", "hist"),
        ...this.#installationKeys(key.installationId),
        ...this.#actorKeys(key.installationId, previous?.actor ?? null),
        this.#repositoryKey(key),
      ],
      [
        String(generation),
        String(now),
        memberOf(key),
        previous ? "1" : "0",
        previous && hasSessionIdentity(previous.actor) ? "1" : "0",
        ...(previous ? recordToFields(previous) : []),
      ],
    );
  }

  async verify(input: LeaseInput): Promise<VerifyOutcome> {
    const reply = await this.#script("claimholdVerify", this.#subjectKeys(input.key, "rec", "tok"), [
      String(input.generation),
      input.tokenDigest,
      String(input.now),
    ]);
    const [kind, a] = asArray(reply);
    if (kind === "ok") return { kind: "ok", record: parseRecord(a) };
    return parseRefusal("verify", reply);
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    const reply = await this.#script(
      "claimholdHeartbeat",
      [
        ...this.#subjectKeys(input.key, "rec", "tok"),
        ...this.#installationKeys(input.key.installationId),
        this.#repositoryKey(input.key),
      ],
      [
        String(input.generation),
        input.tokenDigest,
        String(input.now),
        memberOf(input.key),
        String(input.phaseEditEveryMs),
        input.phase === undefined ? "0" : "1",
        input.phase ?? "",
        input.blocker === undefined ? "0" : "1",
        input.blocker ?? "",
        optional(input.waitUntil),
        optional(input.pullRequest),
        optional(input.durations?.ttlMs),
        optional(input.durations?.reclaimAfterMs),
        optional(input.durations?.heartbeatMs),
      ],
    );
    const [kind, a, b] = asArray(reply);
    if (kind === "ok") return { kind: "ok", record: parseRecord(a), editComment: b === "1" };
    return parseRefusal("heartbeat", reply);
  }

  async release(input: ReleaseInput): Promise<ReleaseOutcomeResult> {
    const reply = await this.#script(
      "claimholdRelease",
      [
        ...this.#subjectKeys(input.key, "rec", "tok", "hist"),
        ...this.#installationKeys(input.key.installationId),
        this.#repositoryKey(input.key),
      ],
      [String(input.generation), input.tokenDigest, String(input.now), memberOf(input.key), input.outcome],
    );
    const [kind, a, b] = asArray(reply);
    if (kind === "released") return { kind: "released", record: parseRecord(a), repeated: b === "1" };
    return parseRefusal("release", reply);
  }

  async markSynced(key: SubjectKey, generation: number): Promise<void> {
    await this.#script("claimholdMarkSynced", this.#subjectKeys(key, "rec"), [String(generation)]);
  }

  async get(key: SubjectKey): Promise<ClaimRecord | null> {
    const [recordKey] = this.#subjectKeys(key, "rec");
    const flat = await this.#call(() => this.#redis.hgetall(recordKey!));
    if (Object.keys(flat).length === 0) return null;
    return parseRecord(Object.entries(flat).flat());
  }

  async restore(record: ClaimRecord, now: number): Promise<"restored" | "exists"> {
    await this.#indexRepository(record);
    const reply = await this.#script(
      "claimholdRestore",
      [
        ...this.#subjectKeys(record, "rec", "gen", "tok", "hist"),
        ...this.#installationKeys(record.installationId),
        ...this.#actorKeys(record.installationId, record.actor),
        this.#repositoryKey(record),
      ],
      [
        String(now),
        memberOf(record),
        hasSessionIdentity(record.actor) ? "1" : "0",
        String(record.generation),
        record.tokenDigest || "",
        JSON.stringify(record.actor),
        ...recordToFields(record),
      ],
    );
    if (reply === "restored" || reply === "exists") return reply;
    throw unexpectedReply("restore", reply);
  }

  async history(key: SubjectKey): Promise<Transition[]> {
    const [historyKey] = this.#subjectKeys(key, "hist");
    const entries = await this.#call(() => this.#redis.lrange(historyKey!, 0, historyLimit - 1));
    return entries.map((entry) => {
      const parsed = Transition.safeParse(safeJson(entry));
      if (!parsed.success)
        throw new Error(`corrupt claim history entry at ${historyKey}: ${parsed.error.message}`);
      return parsed.data;
    });
  }

  async due(installationId: number, now: number, limit: number): Promise<SubjectKey[]> {
    if (limit <= 0) return [];
    const [deadlines] = this.#installationKeys(installationId);
    const members = await this.#call(() =>
      this.#redis.zrangebyscore(deadlines!, "-inf", String(now), "LIMIT", 0, limit),
    );
    return members.map((member) => {
      const [repoId, issue] = member.split(":").map(Number) as [number, number];
      return { installationId, repoId, issue };
    });
  }

  async epoch(installationId: number, now: number): Promise<number> {
    const reply = await this.#script(
      "claimholdEpoch",
      [`${this.#base(installationId)}:epoch`],
      [String(now)],
    );
    return Number(reply);
  }

  async endClaim(input: EndClaimInput): Promise<EndClaimOutcome> {
    const { key } = input;
    const reply = await this.#script(
      "claimholdEndClaim",
      [
        ...this.#subjectKeys(key, "rec", "gen", "hist"),
        ...this.#installationKeys(key.installationId),
        this.#repositoryKey(key),
      ],
      [
        String(input.generation),
        String(input.now),
        input.to,
        input.bump ? "1" : "0",
        input.by ? JSON.stringify(input.by) : "",
        optional(input.requireSilentMs),
        optional(input.storeEpoch),
        memberOf(key),
      ],
    );
    const [kind, a, b] = asArray(reply);
    if (kind === "ended") return { kind: "ended", previous: parseRecord(a), record: parseRecord(b) };
    if (kind === "skipped") {
      return { kind: "skipped", reason: EndClaimSkip.parse(a), current: parseOptionalRecord(b) };
    }
    throw unexpectedReply("endClaim", reply);
  }

  async markStale(input: MarkStaleInput): Promise<MarkStaleOutcome> {
    const { key } = input;
    const [deadlines] = this.#installationKeys(key.installationId);
    const reply = await this.#script(
      "claimholdMarkStale",
      [...this.#subjectKeys(key, "rec"), deadlines, this.#repositoryKey(key)],
      [
        String(input.generation),
        String(input.now),
        String(input.requireSilentMs),
        String(input.storeEpoch),
        memberOf(key),
      ],
    );
    const [kind, a, b] = asArray(reply);
    if (kind === "marked") return { kind: "marked", record: parseRecord(a) };
    if (kind === "skipped") {
      return { kind: "skipped", reason: MarkStaleSkip.parse(a), current: parseOptionalRecord(b) };
    }
    throw unexpectedReply("markStale", reply);
  }

  async humanClaim(input: HumanClaimInput): Promise<{ record: ClaimRecord; previous: ClaimRecord | null }> {
    const { key } = input;
    await this.#indexRepository(key);
    // The script adds generation and supersedes, and copies durations and branch from the current record.
    const { generation: _, durations: __, ...candidate } = newHumanRecord(input, 1, null);
    const reply = await this.#script(
      "claimholdHumanClaim",
      [
        ...this.#subjectKeys(key, "rec", "gen", "hist"),
        ...this.#installationKeys(key.installationId),
        this.#repositoryKey(key),
      ],
      [
        String(input.now),
        memberOf(key),
        String(input.minGeneration),
        JSON.stringify(input.actor),
        input.release ? "1" : "0",
        String(humanClaimDurations.ttlMs),
        String(humanClaimDurations.reclaimAfterMs),
        String(humanClaimDurations.heartbeatMs),
        ...recordToFields(candidate as ClaimRecord),
      ],
    );
    const [record, previous] = asArray(reply);
    if (!Array.isArray(record)) throw unexpectedReply("humanClaim", reply);
    return { record: parseRecord(record), previous: parseOptionalRecord(previous) };
  }

  async recordPush(key: SubjectKey, generation: number, at: number): Promise<void> {
    await this.#script("claimholdRecordPush", this.#subjectKeys(key, "rec"), [
      String(generation),
      String(at),
    ]);
  }

  async forget(key: SubjectKey, now: number): Promise<void> {
    await this.#script(
      "claimholdForget",
      [
        ...this.#subjectKeys(key, "rec", "hist"),
        ...this.#installationKeys(key.installationId),
        this.#repositoryKey(key),
      ],
      [String(now), memberOf(key)],
    );
  }

  async purgeInstallation(installationId: number): Promise<void> {
    const pattern = `${escapeGlob(this.#base(installationId))}:*`;
    // A cluster keeps the installation's keys on one master, but which one is the slot's business.
    const nodes = this.#redis.isCluster ? (this.#redis as Cluster).nodes("master") : [this.#redis as Redis];
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await this.#call(() => node.scan(cursor, "MATCH", pattern, "COUNT", 1000));
        cursor = next;
        if (keys.length) await this.#call(() => node.unlink(...keys));
      } while (cursor !== "0");
    }
    // Last, so a purge cut short leaves the installation on the janitor's list to be seen again.
    await this.#call(() => this.#redis.srem(this.#installationsKey(), String(installationId)));
  }

  async listRepository(installationId: number, repoId: number, limit: number): Promise<ClaimRecord[]> {
    if (limit <= 0) return [];
    const listing = this.#repositoryKey({ installationId, repoId, issue: 0 });
    const issues = await this.#call(() => this.#redis.zrevrange(listing, 0, limit - 1));
    if (!issues.length) return [];
    const replies = await this.#call(async () => {
      const pipeline = this.#redis.pipeline();
      for (const issue of issues) {
        pipeline.hgetall(this.#subjectKeys({ installationId, repoId, issue: Number(issue) }, "rec")[0]!);
      }
      const results = (await pipeline.exec()) ?? [];
      return results.map(([error, flat]) => {
        if (error) throw error;
        return flat as Record<string, string>;
      });
    });
    // A record whose key vanished (evicted, deleted by hand) is skipped, not an error.
    return replies
      .filter((flat) => Object.keys(flat).length > 0)
      .map((flat) => parseRecord(Object.entries(flat).flat()));
  }

  async repositories(installationId: number): Promise<number[]> {
    const members = await this.#call(() => this.#redis.smembers(this.#repositoriesKey(installationId)));
    return members.map((member) => RepositoryId.parse(member)).sort((a, b) => a - b);
  }

  async rememberInstallation(installationId: number): Promise<void> {
    await this.#call(() => this.#redis.sadd(this.#installationsKey(), String(installationId)));
  }

  async installations(): Promise<number[]> {
    const members = await this.#call(() => this.#redis.smembers(this.#installationsKey()));
    return members
      .map((member) => {
        const parsed = InstallationId.safeParse(member);
        if (!parsed.success) {
          throw new Error(`corrupt installation id "${member}" in ${this.#installationsKey()}`);
        }
        return parsed.data;
      })
      .sort((a, b) => a - b);
  }

  async activeCount(installationId: number): Promise<number> {
    const [deadlines] = this.#installationKeys(installationId);
    return this.#call(() => this.#redis.zcard(deadlines));
  }

  async firstDelivery(deliveryId: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const reply = await this.#call(() =>
      this.#redis.set(`${this.#prefix}delivery:${deliveryId}`, "1", "PX", ttlMs, "NX"),
    );
    return reply === "OK";
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const reply = await this.#script(
      "claimholdAcquireLock",
      [`${this.#prefix}lock:${name}`],
      [owner, String(ttlMs)],
    );
    return reply === 1;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    await this.#script("claimholdReleaseLock", [`${this.#prefix}lock:${name}`], [owner]);
  }

  async putDocument(name: string, value: unknown, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    const json = encodeDocument(name, value);
    await this.#call(() => this.#redis.set(`${this.#prefix}doc:${name}`, json, "PX", ttlMs));
  }

  async getDocument(name: string): Promise<unknown> {
    const key = `${this.#prefix}doc:${name}`;
    const json = await this.#call(() => this.#redis.get(key));
    if (json === null) return null;
    try {
      return JSON.parse(json);
    } catch (error) {
      throw new Error(`corrupt document at ${key}: not JSON`, { cause: error });
    }
  }

  async ping(): Promise<void> {
    await this.#call(() => this.#redis.ping());
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await this.#call(() => this.#redis.quit());
  }

  #base(installationId: number): string {
    return `${this.#prefix}{i:${installationId}}`;
  }

  /** The subject's record, generation high-water mark, per-generation digests and history keys. */
  #subjectKeys(key: SubjectKey, ...names: ("rec" | "gen" | "tok" | "hist")[]): string[] {
    const subject = `${this.#base(key.installationId)}:s:${key.repoId}:${key.issue}`;
    return names.map((name) => `${subject}:${name}`);
  }

  /** Deadlines (janitor) and holders (live claims for the caps) of one installation. */
  #installationKeys(installationId: number): [string, string] {
    const base = this.#base(installationId);
    return [`${base}:deadlines`, `${base}:holders`];
  }

  /** Installations with claims: a global key (no hash tag), so it lives outside every installation's slot. */
  #installationsKey(): string {
    return `${this.#prefix}installations`;
  }

  /** The repository listing: the subjects of one repository, scored by their last activity. */
  #repositoryKey(key: SubjectKey): string {
    return `${this.#base(key.installationId)}:repo:${key.repoId}`;
  }

  /** Repository ids that ever held a record: written before the record, so no record is ever unindexed. */
  #repositoriesKey(installationId: number): string {
    return `${this.#base(installationId)}:repos`;
  }

  async #indexRepository(key: { installationId: number; repoId: number }): Promise<void> {
    const repos = this.#repositoriesKey(key.installationId);
    await this.#call(() => this.#redis.sadd(repos, String(key.repoId)));
  }

  /** The login and session index sets an actor's active claims are counted in. */
  #actorKeys(installationId: number, actor: Actor | null): [string, string] {
    const base = this.#base(installationId);
    if (!actor) return [`${base}:login:-`, `${base}:session:-`];
    return [
      `${base}:login:${JSON.stringify(actor.login)}`,
      `${base}:session:${JSON.stringify([actor.login, actor.sessionId ?? ""])}`,
    ];
  }

  async #script(name: ScriptName, keys: string[], args: string[]): Promise<ScriptReply> {
    return runScript<ScriptReply>(this.#redis, name, keys, args);
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    return callRedis(operation);
  }
}

/** Runs a Redis call; connection-level failures become `StoreUnavailableError` (the API's 503). */
export async function callRedis<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isUnavailable(error)) throw new StoreUnavailableError(error);
    throw error;
  }
}

/** Runs a script registered with `defineCommand` (EVALSHA, falling back to EVAL) by its name. */
export function runScript<R>(
  redis: Redis | Cluster,
  name: string,
  keys: string[],
  args: string[],
): Promise<R> {
  const command = (redis as unknown as Record<string, (...a: string[]) => Promise<R>>)[name]!;
  return callRedis(() => command.call(redis, ...keys, ...args));
}

/** Connection-level failures (as opposed to a script or data error), which callers answer with 503. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "MaxRetriesPerRequestError") return true;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === "string" &&
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"].includes(
      code,
    )
  ) {
    return true;
  }
  return [
    /Connection is closed/i,
    /Stream isn't writeable/i,
    /enableOfflineQueue/i,
    /max retries per request/i,
    /Command timed out/i,
    /None of startup nodes is available/i,
    /Failed to refresh slots cache/i,
    /^(LOADING|CLUSTERDOWN|MASTERDOWN|TRYAGAIN)\b/,
  ].some((pattern) => pattern.test(error.message));
}

const InstallationId = z
  .string()
  .regex(/^[1-9]\d{0,15}$/)
  .transform(Number);
const RepositoryId = z
  .string()
  .regex(/^[1-9]\d{0,15}$/)
  .transform(Number);
const EndClaimSkip = z.enum(["missing", "moved-on", "not-active", "live"]);
const MarkStaleSkip = z.enum(["missing", "moved-on", "not-active", "live", "already-marked"]);

function optional(value: number | undefined): string {
  return value === undefined ? "" : String(value);
}

/** Redis SCAN MATCH patterns treat these as wildcards; braces are literal. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

function memberOf(key: SubjectKey): string {
  return `${key.repoId}:${key.issue}`;
}

/** Whether the actor's claims count against a per-session cap (see `sameSession`). */
function hasSessionIdentity(actor: Actor): boolean {
  return actor.kind === "agent" && !!actor.sessionId;
}

function recordToFields(record: ClaimRecord): string[] {
  const fields: string[] = [];
  for (const [name, value] of Object.entries(record) as [string, unknown][]) {
    if (value === undefined) continue;
    if (name === "durations") {
      const durations = value as ClaimRecord["durations"];
      for (const field of durationFields) fields.push(field, String(durations[field]));
      continue;
    }
    if (name === "takeover") {
      const takeover = value as NonNullable<ClaimRecord["takeover"]>;
      fields.push(
        "takeoverBy",
        JSON.stringify(takeover.claimant),
        "takeoverAt",
        String(takeover.at),
        "takeoverGraceMs",
        String(takeover.graceMs),
        ...(takeover.keyDigest ? ["takeoverKeyDigest", takeover.keyDigest] : []),
      );
      continue;
    }
    const codec = fieldCodecs[name];
    if (!codec) throw new Error(`the Redis store cannot encode the claim record field "${name}"`);
    fields.push(name, codec === "json" ? JSON.stringify(value) : String(value));
  }
  return fields;
}

function parseRecord(reply: ScriptReply | undefined): ClaimRecord {
  const flat = asArray(reply).map(String);
  const raw: Record<string, unknown> = {};
  const durations: Record<string, unknown> = {};
  const takeover: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i]!;
    const value = flat[i + 1]!;
    if ((durationFields as readonly string[]).includes(name)) durations[name] = toInt(value);
    else if (name === "takeoverBy") takeover.claimant = safeJson(value);
    else if (name === "takeoverAt") takeover.at = toInt(value);
    else if (name === "takeoverGraceMs") takeover.graceMs = toInt(value);
    else if (name === "takeoverKeyDigest") takeover.keyDigest = value;
    else {
      const codec = fieldCodecs[name];
      raw[name] =
        codec === "int"
          ? toInt(value)
          : codec === "bool"
            ? value === "true"
              ? true
              : value === "false"
                ? false
                : value
            : codec === "json"
              ? safeJson(value)
              : value;
    }
  }
  if (Object.keys(durations).length) raw.durations = durations;
  if (Object.keys(takeover).length) raw.takeover = takeover;
  const parsed = ClaimRecord.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `corrupt claim record for ${String(raw.repoId)}#${String(raw.issue)}: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}

function parseOptionalRecord(reply: ScriptReply | undefined): ClaimRecord | null {
  return asArray(reply).length ? parseRecord(reply) : null;
}

function parseActor(json: string): Actor {
  return ClaimRecord.shape.actor.parse(safeJson(json));
}

function parseRefusal(operation: string, reply: ScriptReply): LeaseRefusal {
  const [kind, a, b] = asArray(reply);
  switch (kind) {
    case "missing":
      return { kind: "missing" };
    case "invalid_token":
      return { kind: "invalid_token" };
    case "superseded":
      return { kind: "superseded", current: parseRecord(a), ...(b ? { rotatedAt: toInt(String(b)) } : {}) };
    case "gone":
      return { kind: "gone", reason: String(a) as GoneReason, current: parseRecord(b) };
    default:
      throw unexpectedReply(operation, reply);
  }
}

function asArray(reply: ScriptReply | undefined): ScriptReply[] {
  return Array.isArray(reply) ? reply : [];
}

function toInt(value: string): number {
  return /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function unexpectedReply(operation: string, reply: ScriptReply): Error {
  return new Error(`the Redis store's ${operation} script answered unexpectedly: ${JSON.stringify(reply)}`);
}
