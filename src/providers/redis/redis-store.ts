// The Redis stores: the claim transitions plus the indexes, installations, deliveries, locks and documents, and the candidate index, on one client.
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import type { ClaimRecord, SubjectKey } from "../../domain/claim.js";
import type { FinishWriteInput } from "../app-stores.js";
import { checkTtl, encodeDocument } from "../claim-records.js";
import { bundleStores, type ClaimStoreParts, type Stores } from "../stores.js";
import { escapeGlob, StoreKeys } from "./keys.js";
import { parseOptionalRecord, parseRecord } from "./record-codec.js";
import { RedisClaimStore } from "./redis-claim-store.js";
import { RedisQueueIndex } from "./redis-queue-index.js";
import { runScript } from "./script-runner.js";
import {
  acquireLockScript,
  finishWriteScript,
  lockWriteScript,
  markBudgetExhaustedScript,
  markBudgetPausedScript,
  releaseLockScript,
} from "./store-scripts.js";

export interface RedisStoresOptions {
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

/**
 * The Redis stores: one object for every member but `queue`, so the App keeps one client and one key
 * layout, and the candidate index on the same client (its keys are under the installation's hash tag,
 * so a purge takes them too).
 */
export function createRedisStores(options: RedisStoresOptions): Stores {
  const keys = new StoreKeys(options.keyPrefix);
  // The claim store first: it registers the scripts, the candidate index's among them.
  const core = new RedisStoreCore(options, keys);
  return bundleStores(core, new RedisQueueIndex(options.redis, keys));
}

/** The claim store with its indexes and bookkeeping. */
class RedisStoreCore extends RedisClaimStore implements ClaimStoreParts {
  readonly #ownsClient: boolean;

  constructor(options: RedisStoresOptions, keys: StoreKeys) {
    super(options.redis, keys);
    this.#ownsClient = options.ownsClient ?? false;
  }

  async due(installationId: number, now: number, limit: number): Promise<SubjectKey[]> {
    if (limit <= 0) return [];
    const deadlines = this.keys.deadlines(installationId);
    const members = await this.call(() =>
      this.redis.zrangebyscore(deadlines, "-inf", String(now), "LIMIT", 0, limit),
    );
    return members.map((member) => {
      const [repoId, issue] = member.split(":").map(Number) as [number, number];
      return { installationId, repoId, issue };
    });
  }

  async purgeInstallation(installationId: number): Promise<void> {
    const pattern = `${escapeGlob(this.keys.base(installationId))}:*`;
    // A cluster keeps the installation's keys on one master, but which one is the slot's business.
    const nodes = this.redis.isCluster ? (this.redis as Cluster).nodes("master") : [this.redis as Redis];
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await this.call(() => node.scan(cursor, "MATCH", pattern, "COUNT", 1000));
        cursor = next;
        if (keys.length) await this.call(() => node.unlink(...keys));
      } while (cursor !== "0");
    }
    // Last, so a purge cut short leaves the installation on the janitor's list to be seen again.
    await this.call(() => this.redis.srem(this.keys.installations(), String(installationId)));
  }

  async listRepository(installationId: number, repoId: number, limit: number): Promise<ClaimRecord[]> {
    if (limit <= 0) return [];
    const issues = await this.call(() =>
      this.redis.zrevrange(this.keys.repository({ installationId, repoId }), 0, limit - 1),
    );
    if (!issues.length) return [];
    const replies = await this.call(async () => {
      const pipeline = this.redis.pipeline();
      for (const issue of issues) {
        pipeline.hgetall(this.keys.subject({ installationId, repoId, issue: Number(issue) }, "rec"));
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

  async spendOf(keys: readonly SubjectKey[]): Promise<number[]> {
    if (!keys.length) return [];
    const totals = await this.call(async () => {
      const pipeline = this.redis.pipeline();
      for (const key of keys) pipeline.hget(this.keys.subject(key, "spend"), "total");
      const results = (await pipeline.exec()) ?? [];
      return results.map(([error, total]) => {
        if (error) throw error;
        return total as string | null;
      });
    });
    return totals.map((total) => (total === null ? 0 : SpendMicros.parse(total)));
  }

  async markBudgetWarned(key: SubjectKey): Promise<boolean> {
    return (await this.call(() => this.redis.hsetnx(this.keys.subject(key, "spend"), "warned", "1"))) === 1;
  }

  async markBudgetExhausted(key: SubjectKey, generation: number): Promise<void> {
    await runScript(this.redis, markBudgetExhaustedScript, {
      keys: { record: this.keys.subject(key, "rec") },
      args: { generation },
    });
  }

  async markBudgetPaused(key: SubjectKey, generation: number): Promise<boolean> {
    const reply = await runScript(this.redis, markBudgetPausedScript, {
      keys: { record: this.keys.subject(key, "rec") },
      args: { generation },
    });
    return reply === 1;
  }

  async clearBudgetPaused(key: SubjectKey): Promise<boolean> {
    return (await this.call(() => this.redis.hdel(this.keys.subject(key, "rec"), "budgetPaused"))) === 1;
  }

  async budgetLimitOf(key: SubjectKey): Promise<number | null> {
    const limit = await this.call(() => this.redis.hget(this.keys.subject(key, "spend"), "limit"));
    return limit === null ? null : SpendMicros.parse(limit);
  }

  async setBudgetLimit(key: SubjectKey, micros: number): Promise<void> {
    await this.call(() => this.redis.hset(this.keys.subject(key, "spend"), "limit", String(micros)));
  }

  async repositories(installationId: number): Promise<number[]> {
    const members = await this.call(() => this.redis.smembers(this.keys.repositories(installationId)));
    return members.map((member) => RepositoryId.parse(member)).sort((a, b) => a - b);
  }

  async rememberInstallation(installationId: number): Promise<void> {
    await this.call(() => this.redis.sadd(this.keys.installations(), String(installationId)));
  }

  /** A record rebuilt from a signed claim marker: an agent's login is a fleet login again (store loss). */
  override async restore(record: ClaimRecord, now: number): Promise<"restored" | "exists"> {
    const outcome = await super.restore(record, now);
    if (outcome === "restored" && record.actor.kind === "agent") {
      await this.rememberFleetLogin(record.installationId, record.actor.login);
    }
    return outcome;
  }

  async rememberFleetLogin(installationId: number, login: string): Promise<void> {
    await this.call(() => this.redis.sadd(this.keys.fleetLogins(installationId), login.toLowerCase()));
  }

  async isFleetLogin(installationId: number, login: string): Promise<boolean> {
    const reply = await this.call(() =>
      this.redis.sismember(this.keys.fleetLogins(installationId), login.toLowerCase()),
    );
    return reply === 1;
  }

  async installations(): Promise<number[]> {
    const members = await this.call(() => this.redis.smembers(this.keys.installations()));
    return members
      .map((member) => {
        const parsed = InstallationId.safeParse(member);
        if (!parsed.success) {
          throw new Error(`corrupt installation id "${member}" in ${this.keys.installations()}`);
        }
        return parsed.data;
      })
      .sort((a, b) => a - b);
  }

  async activeCount(installationId: number): Promise<number> {
    return this.call(() => this.redis.zcard(this.keys.deadlines(installationId)));
  }

  async firstDelivery(deliveryId: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const reply = await this.call(() =>
      this.redis.set(this.keys.delivery(deliveryId), "1", "PX", ttlMs, "NX"),
    );
    return reply === "OK";
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const reply = await runScript(this.redis, acquireLockScript, {
      keys: { lock: this.keys.lock(name) },
      args: { owner, ttlMs },
    });
    return reply === 1;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    await runScript(this.redis, releaseLockScript, { keys: { lock: this.keys.lock(name) }, args: { owner } });
  }

  async lockWrite(
    key: SubjectKey,
    owner: string,
    ttlMs: number,
  ): Promise<{ locked: false } | { locked: true; record: ClaimRecord | null }> {
    checkTtl(ttlMs);
    const reply = await runScript(this.redis, lockWriteScript, {
      keys: { lock: this.keys.subject(key, "wlock"), record: this.keys.subject(key, "rec") },
      args: { owner, ttlMs },
    });
    if (reply.kind === "busy") return { locked: false };
    return { locked: true, record: parseOptionalRecord(reply.record) };
  }

  async finishWrite(input: FinishWriteInput): Promise<ClaimRecord | null> {
    const { key, sentFor, commit } = input;
    const { record } = await runScript(this.redis, finishWriteScript, {
      keys: { record: this.keys.subject(key, "rec"), lock: this.keys.subject(key, "wlock") },
      args: {
        owner: input.owner,
        generation: sentFor.generation,
        state: sentFor.state,
        stale: sentFor.stale ? "1" : "0",
        commentNodeId: commit?.comment.commentNodeId ?? "",
        commentId: commit?.comment.commentId === undefined ? "" : String(commit.comment.commentId),
        commentGeneration: commit?.generation ?? 0,
      },
    });
    return parseOptionalRecord(record);
  }

  async unlockWrite(key: SubjectKey, owner: string): Promise<void> {
    await runScript(this.redis, releaseLockScript, {
      keys: { lock: this.keys.subject(key, "wlock") },
      args: { owner },
    });
  }

  async putDocument(name: string, value: unknown, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    const json = encodeDocument(name, value);
    await this.call(() => this.redis.set(this.keys.document(name), json, "PX", ttlMs));
  }

  async getDocument(name: string): Promise<unknown> {
    const key = this.keys.document(name);
    const json = await this.call(() => this.redis.get(key));
    if (json === null) return null;
    try {
      return JSON.parse(json);
    } catch (error) {
      throw new Error(`corrupt document at ${key}: not JSON`, { cause: error });
    }
  }

  async ping(): Promise<void> {
    await this.call(() => this.redis.ping());
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await this.call(() => this.redis.quit());
  }
}

const InstallationId = z
  .string()
  .regex(/^[1-9]\d{0,15}$/)
  .transform(Number);
const SpendMicros = z
  .string()
  .regex(/^\d{1,16}$/)
  .transform(Number);
const RepositoryId = z
  .string()
  .regex(/^[1-9]\d{0,15}$/)
  .transform(Number);
