// The Redis ClaimStore: every claim transition is one Lua script (EVALSHA) over the keys of one installation.
import type { Cluster, Redis } from "ioredis";
import { type Actor, type ClaimRecord, type SubjectKey, Transition } from "../../domain/claim.js";
import { historyLimit, humanClaimDurations, newClaimRecord, newHumanRecord } from "../claim-records.js";
import type {
  ClaimInput,
  ClaimOutcome,
  ClaimStore,
  CommitReclaimInput,
  EndClaimInput,
  EndClaimOutcome,
  HeartbeatInput,
  HeartbeatLiveness,
  HeartbeatOk,
  HeartbeatOutcome,
  HumanClaimInput,
  LeaseInput,
  MarkStaleInput,
  MarkStaleOutcome,
  ReleaseInput,
  ReleaseOutcomeResult,
  VerifyOutcome,
} from "../liveness-store.js";
import { memberOf, type StoreKeys } from "./keys.js";
import {
  asArray,
  parseClaimReply,
  parseEndClaimReply,
  parseMarkStaleReply,
  parseOptionalRecord,
  parseRecord,
  parseRefusal,
  recordToFields,
  safeJson,
  toInt,
} from "./record-codec.js";
import { scriptBatcher } from "./script-batcher.js";
import { callRedis, type ReplyOf, runScript, type ScriptCall } from "./script-runner.js";
import { parseSpendReply, parseUsageDecreased } from "./spend-codec.js";
import {
  claimScript,
  commitClaimScript,
  commitReclaimScript,
  endClaimScript,
  epochScript,
  forgetScript,
  heartbeatScript,
  humanClaimScript,
  markStaleScript,
  markSyncedScript,
  recordPushScript,
  releaseScript,
  restoreScript,
  rollbackClaimScript,
  storeScripts,
  verifyScript,
} from "./store-scripts.js";

/** How many subjects' heartbeat keys a store keeps built (the oldest built goes first). */
const heartbeatKeysKept = 20_000;

interface HeartbeatKeys {
  keys: ScriptCall<(typeof heartbeatScript.keys)[number], never>["keys"];
  member: string;
}

/** The claim transitions and reads of one subject; `createRedisStores`' store core adds the indexes and bookkeeping. */
export class RedisClaimStore implements ClaimStore {
  protected readonly redis: Redis | Cluster;
  protected readonly keys: StoreKeys;
  readonly #heartbeatKeys = new Map<string, HeartbeatKeys>();

  constructor(redis: Redis | Cluster, keys: StoreKeys) {
    this.redis = redis;
    this.keys = keys;
    storeScripts.register(redis);
  }

  async claim(input: ClaimInput): Promise<ClaimOutcome> {
    const { key, actor } = input;
    // The script adds generation and supersedes, which only it can decide.
    const { generation: _, ...candidate } = newClaimRecord(input, 1, null);
    const reply = await runScript(this.redis, claimScript, {
      keys: {
        ...this.keys.subjectKeys(key, { record: "rec", highWater: "gen", digests: "tok", history: "hist" }),
        ...this.keys.indexKeys(key),
        ...this.keys.actorSets(key.installationId, actor),
        liveIndexed: this.keys.liveIndexed(key.installationId),
        epoch: this.keys.epoch(key.installationId),
        repositories: this.keys.repositories(key.installationId),
        writeLock: this.keys.subject(key, "wlock"),
      },
      args: {
        now: input.now,
        member: memberOf(key),
        claimant: JSON.stringify(actor),
        tokenDigest: input.tokenDigest,
        takeover: flag(input.takeover),
        minGeneration: input.minGeneration,
        perSession: input.caps.perSession,
        perLogin: input.caps.perLogin,
        hasSessionIdentity: flag(hasSessionIdentity(actor)),
        sessionKeyDigest: input.sessionKeyDigest ?? "",
        leaseTokenDigest: input.leaseTokenDigest ?? "",
        repoId: key.repoId,
        writeLockOwner: input.writeLock?.owner ?? "",
        writeLockTtlMs: input.writeLock?.ttlMs ?? 0,
      },
      rest: recordToFields(candidate as ClaimRecord),
    });
    return parseClaimReply(reply);
  }

  async commitReclaim(input: CommitReclaimInput): Promise<ClaimRecord | null> {
    const { record } = await runScript(this.redis, commitReclaimScript, {
      keys: this.keys.subjectKeys(input.key, { record: "rec", digests: "tok" }),
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        commentNodeId: input.comment?.commentNodeId ?? "",
        commentId: optional(input.comment?.commentId),
      },
    });
    return parseOptionalRecord(record);
  }

  async commitClaim(
    key: SubjectKey,
    generation: number,
    comment: { commentNodeId: string; commentId?: number },
  ): Promise<void> {
    await runScript(this.redis, commitClaimScript, {
      keys: this.keys.subjectKeys(key, { record: "rec" }),
      args: { generation, commentNodeId: comment.commentNodeId, commentId: optional(comment.commentId) },
    });
  }

  async rollbackClaim(
    key: SubjectKey,
    generation: number,
    previous: ClaimRecord | null,
    now: number,
  ): Promise<void> {
    await runScript(this.redis, rollbackClaimScript, {
      keys: {
        ...this.keys.subjectKeys(key, { record: "rec", history: "hist" }),
        ...this.keys.indexKeys(key),
        ...this.keys.actorSets(key.installationId, previous?.actor ?? null),
      },
      args: {
        generation,
        now,
        member: memberOf(key),
        hasPrevious: flag(previous !== null),
        hasSessionIdentity: flag(previous !== null && hasSessionIdentity(previous.actor)),
      },
      rest: previous ? recordToFields(previous) : [],
    });
  }

  async verify(input: LeaseInput): Promise<VerifyOutcome> {
    const reply = await runScript(this.redis, verifyScript, {
      keys: this.keys.subjectKeys(input.key, { record: "rec", digests: "tok" }),
      args: { generation: input.generation, tokenDigest: input.tokenDigest, now: input.now },
    });
    if (reply.kind === "ok") return { kind: "ok", record: parseRecord(reply.record) };
    return parseRefusal(reply);
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    const subject = this.#heartbeatKeysOf(input.key);
    const reply = await scriptBatcher(this.redis).run(heartbeatScript, {
      keys: subject.keys,
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        member: subject.member,
        phaseEditEveryMs: input.phaseEditEveryMs,
        hasPhase: flag(input.phase !== undefined),
        phase: input.phase ?? "",
        hasBlocker: flag(input.blocker !== undefined),
        blocker: input.blocker ?? "",
        waitUntil: optional(input.waitUntil),
        pullRequest: optional(input.pullRequest),
        ttlMs: optional(input.durations?.ttlMs),
        reclaimAfterMs: optional(input.durations?.reclaimAfterMs),
        heartbeatMs: optional(input.durations?.heartbeatMs),
        needsHuman: flag(input.needsHuman === true),
        hasUsage: flag(input.usage !== undefined),
        usageCost: optional(input.usage?.costMicros),
        usageTokens: optional(input.usage?.tokens),
        wantRecord: flag(input.wantRecord === true),
      },
    });
    if (reply.kind === "ok") return heartbeatOk(input, reply);
    if (reply.kind === "usage_decreased") return parseUsageDecreased(reply.figure, reply.last);
    return parseRefusal(reply);
  }

  /** The heartbeat's keys and member of a subject, built once per subject (a bounded number kept). */
  #heartbeatKeysOf(key: SubjectKey): HeartbeatKeys {
    const id = `${key.installationId}.${key.repoId}.${key.issue}`;
    let found = this.#heartbeatKeys.get(id);
    if (found === undefined) {
      found = {
        keys: {
          ...this.keys.subjectKeys(key, { record: "rec", digests: "tok", spend: "spend" }),
          ...this.keys.indexKeys(key),
        },
        member: memberOf(key),
      };
      if (this.#heartbeatKeys.size >= heartbeatKeysKept) {
        this.#heartbeatKeys.delete(this.#heartbeatKeys.keys().next().value!);
      }
      this.#heartbeatKeys.set(id, found);
    }
    return found;
  }

  async release(input: ReleaseInput): Promise<ReleaseOutcomeResult> {
    const reply = await runScript(this.redis, releaseScript, {
      keys: {
        ...this.keys.subjectKeys(input.key, { record: "rec", digests: "tok", history: "hist" }),
        ...this.keys.indexKeys(input.key),
      },
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        member: memberOf(input.key),
        outcome: input.outcome,
      },
    });
    if (reply.kind === "released") {
      return { kind: "released", record: parseRecord(reply.record), repeated: reply.repeated === "1" };
    }
    return parseRefusal(reply);
  }

  async markSynced(key: SubjectKey, generation: number): Promise<void> {
    await runScript(this.redis, markSyncedScript, {
      keys: this.keys.subjectKeys(key, { record: "rec" }),
      args: { generation },
    });
  }

  async get(key: SubjectKey): Promise<ClaimRecord | null> {
    const flat = await this.call(() => this.redis.hgetall(this.keys.subject(key, "rec")));
    if (Object.keys(flat).length === 0) return null;
    return parseRecord(Object.entries(flat).flat());
  }

  async restore(record: ClaimRecord, now: number): Promise<"restored" | "exists"> {
    await this.#indexRepository(record);
    return runScript(this.redis, restoreScript, {
      keys: {
        ...this.keys.subjectKeys(record, {
          record: "rec",
          highWater: "gen",
          digests: "tok",
          history: "hist",
        }),
        ...this.keys.indexKeys(record),
        ...this.keys.actorSets(record.installationId, record.actor),
      },
      args: {
        now,
        member: memberOf(record),
        hasSessionIdentity: flag(hasSessionIdentity(record.actor)),
        generation: record.generation,
        tokenDigest: record.tokenDigest || "",
        actor: JSON.stringify(record.actor),
      },
      rest: recordToFields(record),
    });
  }

  async history(key: SubjectKey): Promise<Transition[]> {
    const historyKey = this.keys.subject(key, "hist");
    const entries = await this.call(() => this.redis.lrange(historyKey, 0, historyLimit - 1));
    return entries.map((entry) => {
      const parsed = Transition.safeParse(safeJson(entry));
      if (!parsed.success)
        throw new Error(`corrupt claim history entry at ${historyKey}: ${parsed.error.message}`);
      return parsed.data;
    });
  }

  async epoch(installationId: number, now: number): Promise<number> {
    const { epoch } = await runScript(this.redis, epochScript, {
      keys: { epoch: this.keys.epoch(installationId) },
      args: { now },
    });
    return Number(epoch);
  }

  async endClaim(input: EndClaimInput): Promise<EndClaimOutcome> {
    const { key } = input;
    const reply = await runScript(this.redis, endClaimScript, {
      keys: {
        ...this.keys.subjectKeys(key, { record: "rec", highWater: "gen", history: "hist" }),
        ...this.keys.indexKeys(key),
      },
      args: {
        generation: input.generation,
        now: input.now,
        to: input.to,
        bump: flag(input.bump),
        endedBy: input.by ? JSON.stringify(input.by) : "",
        requireSilentMs: optional(input.requireSilentMs),
        storeEpoch: optional(input.storeEpoch),
        member: memberOf(key),
      },
    });
    return parseEndClaimReply(reply);
  }

  async markStale(input: MarkStaleInput): Promise<MarkStaleOutcome> {
    const { key } = input;
    const reply = await runScript(this.redis, markStaleScript, {
      keys: {
        record: this.keys.subject(key, "rec"),
        deadlines: this.keys.deadlines(key.installationId),
        repository: this.keys.repository(key),
      },
      args: {
        generation: input.generation,
        now: input.now,
        requireSilentMs: input.requireSilentMs,
        storeEpoch: input.storeEpoch,
        member: memberOf(key),
      },
    });
    return parseMarkStaleReply(reply);
  }

  async humanClaim(input: HumanClaimInput): Promise<{ record: ClaimRecord; previous: ClaimRecord | null }> {
    const { key } = input;
    await this.#indexRepository(key);
    // The script adds generation and supersedes, and copies durations and branch from the current record.
    const { generation: _, durations: __, ...candidate } = newHumanRecord(input, 1, null);
    const { record, previous } = await runScript(this.redis, humanClaimScript, {
      keys: {
        ...this.keys.subjectKeys(key, { record: "rec", highWater: "gen", history: "hist" }),
        ...this.keys.indexKeys(key),
      },
      args: {
        now: input.now,
        member: memberOf(key),
        minGeneration: input.minGeneration,
        actor: JSON.stringify(input.actor),
        release: flag(input.release),
        ttlMs: humanClaimDurations.ttlMs,
        reclaimAfterMs: humanClaimDurations.reclaimAfterMs,
        heartbeatMs: humanClaimDurations.heartbeatMs,
      },
      rest: recordToFields(candidate as ClaimRecord),
    });
    return { record: parseRecord(record), previous: parseOptionalRecord(previous) };
  }

  async recordPush(key: SubjectKey, generation: number, at: number): Promise<void> {
    await runScript(this.redis, recordPushScript, {
      keys: this.keys.subjectKeys(key, { record: "rec" }),
      args: { generation, at },
    });
  }

  async forget(key: SubjectKey, now: number): Promise<void> {
    await runScript(this.redis, forgetScript, {
      keys: {
        ...this.keys.subjectKeys(key, { record: "rec", history: "hist" }),
        ...this.keys.indexKeys(key),
      },
      args: { now, member: memberOf(key) },
    });
  }

  async #indexRepository(key: { installationId: number; repoId: number }): Promise<void> {
    const repos = this.keys.repositories(key.installationId);
    await this.call(() => this.redis.sadd(repos, String(key.repoId)));
  }

  protected async call<T>(operation: () => Promise<T>): Promise<T> {
    return callRedis(operation);
  }
}

/**
 * The heartbeat script's `ok`: the liveness it wrote (lastHeartbeatAt and the ask for a person are
 * the call's own, written as given), and the record when it came along (asked, or for an edit).
 */
function heartbeatOk(
  input: HeartbeatInput,
  reply: Extract<ReplyOf<typeof heartbeatScript>, { kind: "ok" }>,
): HeartbeatOk {
  const live: HeartbeatLiveness = {
    lastHeartbeatAt: input.now,
    durations: {
      ttlMs: toInt(String(reply.ttlMs)),
      reclaimAfterMs: toInt(String(reply.reclaimAfterMs)),
      heartbeatMs: toInt(String(reply.heartbeatMs)),
    },
  };
  if (reply.waitUntil) live.waitUntil = toInt(String(reply.waitUntil));
  if (input.needsHuman === true) live.needsHuman = true;
  const record = asArray(reply.record).length ? parseRecord(reply.record) : undefined;
  let ok: HeartbeatOk;
  if (reply.edit === "1") {
    if (!record)
      throw new Error("the Redis store's heartbeat script asked for a comment edit without the record");
    ok = { kind: "ok", live, editComment: true, record };
  } else {
    ok = record ? { kind: "ok", live, editComment: false, record } : { kind: "ok", live, editComment: false };
  }
  if (reply.askedBefore === "1") ok.needsHumanBefore = true;
  if (input.usage) ok.spend = parseSpendReply(reply.spentBefore, reply.spentAfter, reply.warned);
  return ok;
}

function optional(value: number | undefined): string {
  return value === undefined ? "" : String(value);
}

function flag(value: boolean): "1" | "0" {
  return value ? "1" : "0";
}

/** Whether the actor's claims count against a per-session cap (see `sameSession`). */
function hasSessionIdentity(actor: Actor): boolean {
  return actor.kind === "agent" && !!actor.sessionId;
}
