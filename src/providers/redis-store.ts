// The Redis LivenessStore: every transition is one Lua script (EVALSHA) over the keys of one installation.
import type { Cluster, Redis } from "ioredis";
import { type Actor, ClaimRecord, type SubjectKey, Transition } from "../domain/claim.js";
import {
  type ClaimInput,
  type ClaimOutcome,
  type GoneReason,
  type HeartbeatInput,
  type HeartbeatOutcome,
  type LeaseInput,
  type LeaseRefusal,
  type LivenessStore,
  type ReleaseInput,
  type ReleaseOutcomeResult,
  StoreUnavailableError,
  type VerifyOutcome,
} from "./liveness-store.js";
import { newClaimRecord, takeoverIntentLifetimeFactor } from "./memory-store.js";

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
  claimedAt: "int",
  lastHeartbeatAt: "int",
  tokenDigest: "string",
  appAssigned: "bool",
  assigneeNodeId: "string",
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

local function live_until(m) return tonumber(m.lastHeartbeatAt) + tonumber(m.ttlMs) end

local function deadline_of(m)
  local after = m.staleMarkedAt and tonumber(m.reclaimAfterMs) or tonumber(m.ttlMs)
  return tonumber(m.lastHeartbeatAt) + after
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

local function refuse(cur, cur_flat, tok_key, generation_arg, digest)
  local generation = tonumber(generation_arg)
  if not cur or generation > tonumber(cur.generation) then return {'missing'} end
  local known = redis.call('HGET', tok_key, generation_arg)
  if not known or not digests_equal(known, digest) then return {'invalid_token'} end
  if generation < tonumber(cur.generation) then
    if cur.state == 'active' or cur.state == 'human' then return {'superseded', cur_flat} end
    return {'gone', gone_reason(cur.state), cur_flat}
  end
  return nil
end
`;

// KEYS: record, high-water, digests, history, deadlines, holders, claimant login set, claimant session set.
// ARGV: now, member, claimant JSON, digest, takeover, minGeneration, perSession, perLogin,
//       claimant has a session identity, then the new record's fields (without generation/supersedes).
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
  local silent = now - tonumber(cur.lastHeartbeatAt)
  local expired = silent >= tonumber(cur.reclaimAfterMs)
  local same = same_session(holder, claimant)
  if same and not expired then
    redis.call('HSET', KEYS[1], 'tokenDigest', ARGV[4], 'lastHeartbeatAt', ARGV[1], 'sync', 'pending')
    redis.call('HDEL', KEYS[1], 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'staleMarkedAt')
    redis.call('HSET', KEYS[3], cur.generation, ARGV[4])
    local m, flat = load(KEYS[1])
    index_record(m, KEYS[5], KEYS[6], member, KEYS[7], session_key)
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
    if intent_alive and not same_session(cjson.decode(intent), claimant) then
      return {'held', cur_flat, intent}
    end
    if not intent_alive or now < intent_at + grace then
      if not intent_alive then
        intent_at = now
        grace = tonumber(cur.heartbeatMs)
        redis.call('HSET', KEYS[1], 'takeoverBy', claimant_json, 'takeoverAt', ARGV[1], 'takeoverGraceMs', cur.heartbeatMs)
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
for i = 10, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('HSET', KEYS[3], gen, ARGV[4])
local m, flat = load(KEYS[1])
index_record(m, KEYS[5], KEYS[6], member, KEYS[7], session_key)
push_history(KEYS[4], ARGV[1], gen, 'claimed', claimant_json)
return {'created', flat, cur_flat}
`;

// KEYS: record. ARGV: generation, commentNodeId, commentId ('' when absent).
const commitLua = `
local generation = redis.call('HGET', KEYS[1], 'generation')
if not generation or tonumber(generation) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'commentNodeId', ARGV[2], 'sync', 'done')
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'commentId', ARGV[3]) end
return 1
`;

// KEYS: record, history, deadlines, holders, previous login set, previous session set.
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
else
  redis.call('ZREM', KEYS[3], ARGV[3])
  redis.call('HDEL', KEYS[4], ARGV[3])
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
if now - tonumber(cur.lastHeartbeatAt) >= tonumber(cur.reclaimAfterMs) then return {'gone', 'expired', cur_flat} end
return {'ok', cur_flat}
`;

// KEYS: record, digests, deadlines, holders.
// ARGV: generation, digest, now, member, phaseEditEveryMs, has phase, phase, has blocker, blocker,
//       waitUntil, pullRequest, ttlMs, reclaimAfterMs, heartbeatMs ('' when absent).
const heartbeatLua = `
local now = tonumber(ARGV[3])
local cur, cur_flat = load(KEYS[1])
local refusal = refuse(cur, cur_flat, KEYS[2], ARGV[1], ARGV[2])
if refusal then return refusal end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
if now - tonumber(cur.lastHeartbeatAt) >= tonumber(cur.reclaimAfterMs) then return {'gone', 'expired', cur_flat} end
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
redis.call('HDEL', KEYS[1], 'staleMarkedAt', 'takeoverBy', 'takeoverAt', 'takeoverGraceMs')
local m, flat = load(KEYS[1])
refresh_record(m, KEYS[3], KEYS[4], ARGV[4])
return {'ok', flat, edit}
`;

// KEYS: record, digests, history, deadlines, holders. ARGV: generation, digest, now, member, outcome.
const releaseLua = `
local cur, cur_flat = load(KEYS[1])
local refusal = refuse(cur, cur_flat, KEYS[2], ARGV[1], ARGV[2])
if refusal then return refusal end
if cur.state == 'released' or cur.state == 'completed' then return {'released', cur_flat, '1'} end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
local state = 'released'
if ARGV[5] == 'completed' then state = 'completed' end
redis.call('HSET', KEYS[1], 'state', state, 'outcome', ARGV[5], 'endedAt', ARGV[3], 'endedBy', cur.actor, 'sync', 'pending')
redis.call('HDEL', KEYS[1], 'takeoverBy', 'takeoverAt', 'takeoverGraceMs')
redis.call('ZREM', KEYS[4], ARGV[4])
redis.call('HDEL', KEYS[5], ARGV[4])
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

// KEYS: record, high-water, digests, history, deadlines, holders, login set, session set.
// ARGV: now, member, has a session identity, generation, digest ('' when absent), actor JSON, fields.
const restoreLua = `
local generation = tonumber(ARGV[4])
local high_water = tonumber(redis.call('GET', KEYS[2]) or '0')
if generation > high_water then redis.call('SET', KEYS[2], ARGV[4]) end
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

const scripts = {
  claimholdClaim: { numberOfKeys: 8, lua: claimLua },
  claimholdCommit: { numberOfKeys: 1, lua: commitLua },
  claimholdRollback: { numberOfKeys: 6, lua: rollbackLua },
  claimholdVerify: { numberOfKeys: 2, lua: verifyLua },
  claimholdHeartbeat: { numberOfKeys: 4, lua: heartbeatLua },
  claimholdRelease: { numberOfKeys: 5, lua: releaseLua },
  claimholdMarkSynced: { numberOfKeys: 1, lua: markSyncedLua },
  claimholdRestore: { numberOfKeys: 8, lua: restoreLua },
  claimholdEpoch: { numberOfKeys: 1, lua: epochLua },
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
    // The script adds generation and supersedes, which only it can decide.
    const { generation: _, ...candidate } = newClaimRecord(input, 1, null);
    const fields = recordToFields(candidate as ClaimRecord);
    const reply = await this.#script(
      "claimholdClaim",
      [
        ...this.#subjectKeys(key, "rec", "gen", "tok", "hist"),
        ...this.#installationKeys(key.installationId),
        ...this.#actorKeys(key.installationId, actor),
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
    const optional = (value: number | undefined) => (value === undefined ? "" : String(value));
    const reply = await this.#script(
      "claimholdHeartbeat",
      [...this.#subjectKeys(input.key, "rec", "tok"), ...this.#installationKeys(input.key.installationId)],
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
    const reply = await this.#script(
      "claimholdRestore",
      [
        ...this.#subjectKeys(record, "rec", "gen", "tok", "hist"),
        ...this.#installationKeys(record.installationId),
        ...this.#actorKeys(record.installationId, record.actor),
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
    const command = (this.#redis as unknown as Record<ScriptName, (...a: string[]) => Promise<ScriptReply>>)[
      name
    ];
    return this.#call(() => command.call(this.#redis, ...keys, ...args));
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (isUnavailable(error)) throw new StoreUnavailableError(error);
      throw error;
    }
  }
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
      return { kind: "superseded", current: parseRecord(a) };
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
