// The Redis ClaimStore: every claim transition is one Lua script (EVALSHA) over the keys of one installation.
import type { Cluster, Redis } from "ioredis";
import { type ClaimRecord, type SubjectKey, Transition } from "../../domain/claim.js";
import { type FailedAttempt, failureNoteMax, failuresKept } from "../../domain/failure-breaker.js";
import type {
  ClearNeedsHumanInput,
  ClearNeedsHumanOutcome,
  EndClaimInput,
  EndClaimOutcome,
  HumanClaimInput,
  MarkStaleInput,
  MarkStaleOutcome,
} from "../app-transition-types.js";
import { historyLimit, humanClaimDurations, newClaimRecord, newHumanRecord } from "../claim-records.js";
import type {
  ClaimInput,
  ClaimOutcome,
  ClaimStore,
  CommitReclaimInput,
  HeartbeatGaps,
  HeartbeatInput,
  HeartbeatOutcome,
  LeaseInput,
  ReleaseInput,
  ReleaseOutcomeResult,
  SubjectBreaker,
  VerifyOutcome,
} from "../liveness-store.js";
import { hasSessionIdentity, memberOf, type StoreKeys } from "./keys.js";
import {
  parseClaimReply,
  parseClearNeedsHumanReply,
  parseEndClaimReply,
  parseFailures,
  parseHeartbeatGaps,
  parseMarkStaleReply,
  parseOptionalRecord,
  parseRecord,
  parseRefusal,
  recordToFields,
  safeJson,
} from "./record-codec.js";
import { clearFailures, markTripWritten, readBreakers, readFailures } from "./redis-failure-records.js";
import { RedisHeartbeats } from "./redis-heartbeat.js";
import { callRedis, flag, optional, runScript } from "./script-runner.js";
import {
  claimScript,
  clearNeedsHumanScript,
  commitClaimScript,
  commitReclaimScript,
  endClaimScript,
  epochScript,
  forgetScript,
  humanClaimScript,
  markStaleScript,
  markSyncedScript,
  recordPushScript,
  releaseScript,
  restoreScript,
  rollbackClaimScript,
  storeScripts,
  verifyScript,
  withdrawStallAskScript,
} from "./store-scripts.js";

/** The claim transitions and reads of one subject; `createRedisStores`' store core adds the indexes and bookkeeping. */
export class RedisClaimStore implements ClaimStore {
  protected readonly redis: Redis | Cluster;
  protected readonly keys: StoreKeys;
  readonly #heartbeats: RedisHeartbeats;

  constructor(redis: Redis | Cluster, keys: StoreKeys) {
    this.redis = redis;
    this.keys = keys;
    storeScripts.register(redis);
    this.#heartbeats = new RedisHeartbeats(redis, keys);
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
        failures: this.keys.subject(key, "fail"),
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
        maxFailures: input.breaker?.maxFailures ?? failuresKept + 1,
        override: flag(input.breaker?.override ?? false),
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
        ...this.keys.subjectKeys(key, { record: "rec", history: "hist", failures: "fail" }),
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

  heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    return this.#heartbeats.beat(input);
  }

  async release(input: ReleaseInput): Promise<ReleaseOutcomeResult> {
    const reply = await runScript(this.redis, releaseScript, {
      keys: {
        ...this.keys.subjectKeys(input.key, {
          record: "rec",
          digests: "tok",
          history: "hist",
          failures: "fail",
        }),
        ...this.keys.indexKeys(input.key),
      },
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        member: memberOf(input.key),
        outcome: input.outcome,
        note: input.note?.trim().slice(0, failureNoteMax) ?? "",
      },
    });
    if (reply.kind === "released") {
      const released = {
        kind: "released" as const,
        record: parseRecord(reply.record),
        repeated: reply.repeated === "1",
        ...(reply.stallAsked === "1" ? { stallAsked: true as const } : {}),
      };
      const failures = parseFailures(reply.failures);
      return failures.length > 0 ? { ...released, failures } : released;
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

  async heartbeatGaps(key: SubjectKey): Promise<HeartbeatGaps | null> {
    const gapsKey = this.keys.subject(key, "gaps");
    return parseHeartbeatGaps(gapsKey, await this.call(() => this.redis.get(gapsKey)));
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
        ...this.keys.subjectKeys(key, { record: "rec", highWater: "gen", history: "hist", failures: "fail" }),
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
        failure: input.failure ?? "",
      },
    });
    return parseEndClaimReply(reply);
  }

  failures(key: SubjectKey): Promise<FailedAttempt[]> {
    return readFailures(this.redis, this.keys, key);
  }

  clearFailures(key: SubjectKey): Promise<void> {
    return clearFailures(this.redis, this.keys, key);
  }

  breakers(keys: readonly SubjectKey[]): Promise<SubjectBreaker[]> {
    return readBreakers(this.redis, this.keys, keys);
  }

  markTripWritten(key: SubjectKey, throughGeneration: number): Promise<void> {
    return markTripWritten(this.redis, this.keys, key, throughGeneration);
  }

  async clearNeedsHuman(input: ClearNeedsHumanInput): Promise<ClearNeedsHumanOutcome> {
    const reply = await runScript(this.redis, clearNeedsHumanScript, {
      keys: this.keys.subjectKeys(input.key, { record: "rec", failures: "fail" }),
      args: { generation: input.generation, now: input.now },
    });
    return parseClearNeedsHumanReply(reply);
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

  async recordPush(key: SubjectKey, generation: number, at: number): Promise<{ stallAskWithdrawn: boolean }> {
    const noted = await runScript(this.redis, recordPushScript, {
      keys: this.keys.subjectKeys(key, { record: "rec" }),
      args: { generation, at },
    });
    return { stallAskWithdrawn: noted === 2 };
  }

  async withdrawStallAsk(key: SubjectKey, generation: number): Promise<boolean> {
    const withdrawn = await runScript(this.redis, withdrawStallAskScript, {
      keys: this.keys.subjectKeys(key, { record: "rec" }),
      args: { generation },
    });
    return withdrawn === 1;
  }

  async forget(key: SubjectKey, now: number): Promise<ClaimRecord | null> {
    const reply = await runScript(this.redis, forgetScript, {
      keys: {
        ...this.keys.subjectKeys(key, { record: "rec", history: "hist" }),
        ...this.keys.indexKeys(key),
      },
      args: { now, member: memberOf(key) },
    });
    return reply.kind === "revoked" ? parseRecord(reply.previous) : null;
  }

  async #indexRepository(key: { installationId: number; repoId: number }): Promise<void> {
    const repos = this.keys.repositories(key.installationId);
    await this.call(() => this.redis.sadd(repos, String(key.repoId)));
  }

  protected async call<T>(operation: () => Promise<T>): Promise<T> {
    return callRedis(operation);
  }
}
