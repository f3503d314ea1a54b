// The Redis LivenessStore: every transition is one Lua script (EVALSHA) over the keys of one installation.
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import { type Actor, type ClaimRecord, type SubjectKey, Transition } from "../../domain/claim.js";
import {
  checkTtl,
  encodeDocument,
  historyLimit,
  humanClaimDurations,
  newClaimRecord,
  newHumanRecord,
} from "../claim-records.js";
import type {
  ClaimInput,
  ClaimOutcome,
  CommitReclaimInput,
  EndClaimInput,
  EndClaimOutcome,
  HeartbeatInput,
  HeartbeatOutcome,
  HumanClaimInput,
  LeaseInput,
  LivenessStore,
  MarkStaleInput,
  MarkStaleOutcome,
  ReleaseInput,
  ReleaseOutcomeResult,
  VerifyOutcome,
} from "../liveness-store.js";
import { escapeGlob, memberOf, StoreKeys } from "./keys.js";
import {
  asArray,
  parseActor,
  parseOptionalRecord,
  parseRecord,
  parseRefusal,
  recordToFields,
  safeJson,
  unexpectedReply,
} from "./record-codec.js";
import {
  callRedis,
  runScript,
  type ScriptCall,
  type ScriptDefinition,
  type ScriptReply,
} from "./script-runner.js";
import {
  acquireLockScript,
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
  releaseLockScript,
  releaseScript,
  restoreScript,
  rollbackClaimScript,
  storeScripts,
  verifyScript,
} from "./store-scripts.js";

export { callRedis, isUnavailable } from "./script-runner.js";

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

export class RedisLivenessStore implements LivenessStore {
  readonly #redis: Redis | Cluster;
  readonly #keys: StoreKeys;
  readonly #ownsClient: boolean;

  constructor(options: RedisLivenessStoreOptions) {
    this.#keys = new StoreKeys(options.keyPrefix);
    this.#redis = options.redis;
    this.#ownsClient = options.ownsClient ?? false;
    storeScripts.register(this.#redis);
  }

  async claim(input: ClaimInput): Promise<ClaimOutcome> {
    const { key, actor } = input;
    await this.#indexRepository(key);
    // The script adds generation and supersedes, which only it can decide.
    const { generation: _, ...candidate } = newClaimRecord(input, 1, null);
    const reply = await this.#run(claimScript, {
      keys: {
        ...this.#subjectKeys(key, { record: "rec", highWater: "gen", digests: "tok", history: "hist" }),
        ...this.#indexKeys(key),
        ...this.#keys.actorSets(key.installationId, actor),
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
      },
      rest: recordToFields(candidate as ClaimRecord),
    });
    const [kind, a, b] = asArray(reply);
    switch (kind) {
      case "created":
        return { kind: "created", record: parseRecord(a), previous: parseOptionalRecord(b) };
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
    const reply = await this.#run(commitReclaimScript, {
      keys: this.#subjectKeys(input.key, { record: "rec", digests: "tok" }),
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        commentNodeId: input.comment?.commentNodeId ?? "",
        commentId: optional(input.comment?.commentId),
      },
    });
    return parseOptionalRecord(reply);
  }

  async commitClaim(
    key: SubjectKey,
    generation: number,
    comment: { commentNodeId: string; commentId?: number },
  ): Promise<void> {
    await this.#run(commitClaimScript, {
      keys: this.#subjectKeys(key, { record: "rec" }),
      args: { generation, commentNodeId: comment.commentNodeId, commentId: optional(comment.commentId) },
    });
  }

  async rollbackClaim(
    key: SubjectKey,
    generation: number,
    previous: ClaimRecord | null,
    now: number,
  ): Promise<void> {
    await this.#run(rollbackClaimScript, {
      keys: {
        ...this.#subjectKeys(key, { record: "rec", history: "hist" }),
        ...this.#indexKeys(key),
        ...this.#keys.actorSets(key.installationId, previous?.actor ?? null),
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
    const reply = await this.#run(verifyScript, {
      keys: this.#subjectKeys(input.key, { record: "rec", digests: "tok" }),
      args: { generation: input.generation, tokenDigest: input.tokenDigest, now: input.now },
    });
    const [kind, a] = asArray(reply);
    if (kind === "ok") return { kind: "ok", record: parseRecord(a) };
    return parseRefusal("verify", reply);
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    const reply = await this.#run(heartbeatScript, {
      keys: {
        ...this.#subjectKeys(input.key, { record: "rec", digests: "tok" }),
        ...this.#indexKeys(input.key),
      },
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        member: memberOf(input.key),
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
      },
    });
    const [kind, a, b] = asArray(reply);
    if (kind === "ok") return { kind: "ok", record: parseRecord(a), editComment: b === "1" };
    return parseRefusal("heartbeat", reply);
  }

  async release(input: ReleaseInput): Promise<ReleaseOutcomeResult> {
    const reply = await this.#run(releaseScript, {
      keys: {
        ...this.#subjectKeys(input.key, { record: "rec", digests: "tok", history: "hist" }),
        ...this.#indexKeys(input.key),
      },
      args: {
        generation: input.generation,
        tokenDigest: input.tokenDigest,
        now: input.now,
        member: memberOf(input.key),
        outcome: input.outcome,
      },
    });
    const [kind, a, b] = asArray(reply);
    if (kind === "released") return { kind: "released", record: parseRecord(a), repeated: b === "1" };
    return parseRefusal("release", reply);
  }

  async markSynced(key: SubjectKey, generation: number): Promise<void> {
    await this.#run(markSyncedScript, {
      keys: this.#subjectKeys(key, { record: "rec" }),
      args: { generation },
    });
  }

  async get(key: SubjectKey): Promise<ClaimRecord | null> {
    const flat = await this.#call(() => this.#redis.hgetall(this.#keys.subject(key, "rec")));
    if (Object.keys(flat).length === 0) return null;
    return parseRecord(Object.entries(flat).flat());
  }

  async restore(record: ClaimRecord, now: number): Promise<"restored" | "exists"> {
    await this.#indexRepository(record);
    const reply = await this.#run(restoreScript, {
      keys: {
        ...this.#subjectKeys(record, { record: "rec", highWater: "gen", digests: "tok", history: "hist" }),
        ...this.#indexKeys(record),
        ...this.#keys.actorSets(record.installationId, record.actor),
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
    if (reply === "restored" || reply === "exists") return reply;
    throw unexpectedReply("restore", reply);
  }

  async history(key: SubjectKey): Promise<Transition[]> {
    const historyKey = this.#keys.subject(key, "hist");
    const entries = await this.#call(() => this.#redis.lrange(historyKey, 0, historyLimit - 1));
    return entries.map((entry) => {
      const parsed = Transition.safeParse(safeJson(entry));
      if (!parsed.success)
        throw new Error(`corrupt claim history entry at ${historyKey}: ${parsed.error.message}`);
      return parsed.data;
    });
  }

  async due(installationId: number, now: number, limit: number): Promise<SubjectKey[]> {
    if (limit <= 0) return [];
    const deadlines = this.#keys.deadlines(installationId);
    const members = await this.#call(() =>
      this.#redis.zrangebyscore(deadlines, "-inf", String(now), "LIMIT", 0, limit),
    );
    return members.map((member) => {
      const [repoId, issue] = member.split(":").map(Number) as [number, number];
      return { installationId, repoId, issue };
    });
  }

  async epoch(installationId: number, now: number): Promise<number> {
    const reply = await this.#run(epochScript, {
      keys: { epoch: this.#keys.epoch(installationId) },
      args: { now },
    });
    return Number(reply);
  }

  async endClaim(input: EndClaimInput): Promise<EndClaimOutcome> {
    const { key } = input;
    const reply = await this.#run(endClaimScript, {
      keys: {
        ...this.#subjectKeys(key, { record: "rec", highWater: "gen", history: "hist" }),
        ...this.#indexKeys(key),
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
    const [kind, a, b] = asArray(reply);
    if (kind === "ended") return { kind: "ended", previous: parseRecord(a), record: parseRecord(b) };
    if (kind === "skipped") {
      return { kind: "skipped", reason: EndClaimSkip.parse(a), current: parseOptionalRecord(b) };
    }
    throw unexpectedReply("endClaim", reply);
  }

  async markStale(input: MarkStaleInput): Promise<MarkStaleOutcome> {
    const { key } = input;
    const reply = await this.#run(markStaleScript, {
      keys: {
        record: this.#keys.subject(key, "rec"),
        deadlines: this.#keys.deadlines(key.installationId),
        repository: this.#keys.repository(key),
      },
      args: {
        generation: input.generation,
        now: input.now,
        requireSilentMs: input.requireSilentMs,
        storeEpoch: input.storeEpoch,
        member: memberOf(key),
      },
    });
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
    const reply = await this.#run(humanClaimScript, {
      keys: {
        ...this.#subjectKeys(key, { record: "rec", highWater: "gen", history: "hist" }),
        ...this.#indexKeys(key),
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
    const [record, previous] = asArray(reply);
    if (!Array.isArray(record)) throw unexpectedReply("humanClaim", reply);
    return { record: parseRecord(record), previous: parseOptionalRecord(previous) };
  }

  async recordPush(key: SubjectKey, generation: number, at: number): Promise<void> {
    await this.#run(recordPushScript, {
      keys: this.#subjectKeys(key, { record: "rec" }),
      args: { generation, at },
    });
  }

  async forget(key: SubjectKey, now: number): Promise<void> {
    await this.#run(forgetScript, {
      keys: { ...this.#subjectKeys(key, { record: "rec", history: "hist" }), ...this.#indexKeys(key) },
      args: { now, member: memberOf(key) },
    });
  }

  async purgeInstallation(installationId: number): Promise<void> {
    const pattern = `${escapeGlob(this.#keys.base(installationId))}:*`;
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
    await this.#call(() => this.#redis.srem(this.#keys.installations(), String(installationId)));
  }

  async listRepository(installationId: number, repoId: number, limit: number): Promise<ClaimRecord[]> {
    if (limit <= 0) return [];
    const issues = await this.#call(() =>
      this.#redis.zrevrange(this.#keys.repository({ installationId, repoId }), 0, limit - 1),
    );
    if (!issues.length) return [];
    const replies = await this.#call(async () => {
      const pipeline = this.#redis.pipeline();
      for (const issue of issues) {
        pipeline.hgetall(this.#keys.subject({ installationId, repoId, issue: Number(issue) }, "rec"));
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
    const members = await this.#call(() => this.#redis.smembers(this.#keys.repositories(installationId)));
    return members.map((member) => RepositoryId.parse(member)).sort((a, b) => a - b);
  }

  async rememberInstallation(installationId: number): Promise<void> {
    await this.#call(() => this.#redis.sadd(this.#keys.installations(), String(installationId)));
  }

  async installations(): Promise<number[]> {
    const members = await this.#call(() => this.#redis.smembers(this.#keys.installations()));
    return members
      .map((member) => {
        const parsed = InstallationId.safeParse(member);
        if (!parsed.success) {
          throw new Error(`corrupt installation id "${member}" in ${this.#keys.installations()}`);
        }
        return parsed.data;
      })
      .sort((a, b) => a - b);
  }

  async activeCount(installationId: number): Promise<number> {
    return this.#call(() => this.#redis.zcard(this.#keys.deadlines(installationId)));
  }

  async firstDelivery(deliveryId: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const reply = await this.#call(() =>
      this.#redis.set(this.#keys.delivery(deliveryId), "1", "PX", ttlMs, "NX"),
    );
    return reply === "OK";
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const reply = await this.#run(acquireLockScript, {
      keys: { lock: this.#keys.lock(name) },
      args: { owner, ttlMs },
    });
    return reply === 1;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    await this.#run(releaseLockScript, { keys: { lock: this.#keys.lock(name) }, args: { owner } });
  }

  async putDocument(name: string, value: unknown, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    const json = encodeDocument(name, value);
    await this.#call(() => this.#redis.set(this.#keys.document(name), json, "PX", ttlMs));
  }

  async getDocument(name: string): Promise<unknown> {
    const key = this.#keys.document(name);
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

  /** The subject's keys a script names, e.g. `{ record: "rec", digests: "tok" }`. */
  #subjectKeys<N extends string>(
    key: SubjectKey,
    names: Record<N, "rec" | "gen" | "tok" | "hist">,
  ): Record<N, string> {
    const keys = {} as Record<N, string>;
    for (const [name, kind] of Object.entries(names) as [N, "rec" | "gen" | "tok" | "hist"][]) {
      keys[name] = this.#keys.subject(key, kind);
    }
    return keys;
  }

  /** The installation's deadlines and holders, and the subject's repository listing. */
  #indexKeys(key: SubjectKey): { deadlines: string; holders: string; repository: string } {
    return {
      deadlines: this.#keys.deadlines(key.installationId),
      holders: this.#keys.holders(key.installationId),
      repository: this.#keys.repository(key),
    };
  }

  async #indexRepository(key: { installationId: number; repoId: number }): Promise<void> {
    const repos = this.#keys.repositories(key.installationId);
    await this.#call(() => this.#redis.sadd(repos, String(key.repoId)));
  }

  #run<K extends string, A extends string>(
    script: ScriptDefinition<K, A>,
    call: ScriptCall<K, A>,
  ): Promise<ScriptReply> {
    return runScript(this.#redis, script, call);
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    return callRedis(operation);
  }
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

function flag(value: boolean): "1" | "0" {
  return value ? "1" : "0";
}

/** Whether the actor's claims count against a per-session cap (see `sameSession`). */
function hasSessionIdentity(actor: Actor): boolean {
  return actor.kind === "agent" && !!actor.sessionId;
}
