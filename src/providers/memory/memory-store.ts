// The embedded single-process stores: the memory claim store plus indexes, deliveries, locks and documents, and the candidate index beside it.
import type { ClaimRecord, SubjectKey } from "../../domain/claim.js";
import type { FinishWriteInput } from "../app-stores.js";
import { checkTtl, encodeDocument, movedOnFrom } from "../claim-records.js";
import type { ClaimInput, ClaimOutcome } from "../liveness-store.js";
import { bundleStores, type ClaimStoreParts, type Stores } from "../stores.js";
import {
  clearBudgetPaused,
  markBudgetExhausted,
  markBudgetPaused,
  markBudgetWarned,
  setBudgetLimit,
} from "./app-transitions.js";
import { clone } from "./claim-rules.js";
import { MemoryClaimStore } from "./memory-claim-store.js";
import { MemoryQueueIndex } from "./memory-queue-index.js";

export interface MemoryStoresOptions {
  /** Clock for the keys that expire on their own (deliveries, locks, documents); default Date.now. */
  now?: () => number;
}

/** The embedded stores: one object for every member but `queue`, as on Redis, and the candidate index. */
export function createMemoryStores(options: MemoryStoresOptions = {}): Stores {
  const queue = new MemoryQueueIndex();
  return bundleStores(new MemoryStoreCore(queue, options), queue);
}

/** The claim store with its indexes and bookkeeping; an installation's purge empties its candidate index too. */
class MemoryStoreCore extends MemoryClaimStore implements ClaimStoreParts {
  readonly #installations = new Set<number>();
  readonly #fleetLogins = new Map<number, Set<string>>();
  /** Keys with a time to live, named as on Redis (`delivery:…`, `lock:…`, `doc:…`). */
  readonly #expiring = new Map<string, { value: string; expiresAt: number }>();
  readonly #now: () => number;
  readonly #queue: MemoryQueueIndex;

  constructor(queue: MemoryQueueIndex, options: MemoryStoresOptions) {
    super();
    this.#queue = queue;
    this.#now = options.now ?? Date.now;
  }

  async due(installationId: number, now: number, limit: number): Promise<SubjectKey[]> {
    const set = this.slots.deadlines(installationId);
    if (!set || limit <= 0) return [];
    // Ties are ordered by member, as a Redis sorted set orders them.
    return [...set]
      .filter(([, deadline]) => deadline <= now)
      .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, limit)
      .map(([member]) => {
        const [repoId, issue] = member.split(":").map(Number) as [number, number];
        return { installationId, repoId, issue };
      });
  }

  async spendOf(keys: readonly SubjectKey[]): Promise<number[]> {
    return keys.map((key) => this.slots.slot(key).spend?.totalMicros ?? 0);
  }

  async markBudgetWarned(key: SubjectKey): Promise<boolean> {
    return this.apply(key, (slot) => markBudgetWarned(slot));
  }

  async markBudgetExhausted(key: SubjectKey, generation: number): Promise<void> {
    this.apply(key, (slot) => markBudgetExhausted(slot, { generation }));
  }

  async markBudgetPaused(key: SubjectKey, generation: number): Promise<boolean> {
    return this.apply(key, (slot) => markBudgetPaused(slot, { generation }));
  }

  async clearBudgetPaused(key: SubjectKey): Promise<boolean> {
    return this.apply(key, (slot) => clearBudgetPaused(slot));
  }

  async budgetLimitOf(key: SubjectKey): Promise<number | null> {
    return this.slots.slot(key).spend?.limitMicros ?? null;
  }

  async setBudgetLimit(key: SubjectKey, micros: number): Promise<void> {
    this.apply(key, (slot) => setBudgetLimit(slot, { micros }));
  }

  async purgeInstallation(installationId: number): Promise<void> {
    this.slots.purge(installationId);
    this.epochs.delete(installationId);
    this.#installations.delete(installationId);
    this.#fleetLogins.delete(installationId);
    this.#queue.purge(installationId);
  }

  async listRepository(installationId: number, repoId: number, limit: number): Promise<ClaimRecord[]> {
    if (limit <= 0) return [];
    const listed: { issue: string; at: number; record: ClaimRecord | null }[] = [];
    for (const [id, slot] of this.slots.entries()) {
      if (slot.activityAt === undefined || !id.startsWith(`${installationId}:${repoId}:`)) continue;
      listed.push({ issue: id.slice(id.lastIndexOf(":") + 1), at: slot.activityAt, record: slot.record });
    }
    // Ties in reverse order of the member string, as ZREVRANGE orders them.
    listed.sort((a, b) => b.at - a.at || (a.issue < b.issue ? 1 : a.issue > b.issue ? -1 : 0));
    return listed.slice(0, limit).flatMap(({ record }) => (record ? [clone(record)] : []));
  }

  async repositories(installationId: number): Promise<number[]> {
    const ids = new Set<number>();
    for (const [id, slot] of this.slots.entries()) {
      const [installation, repoId] = id.split(":");
      if (slot.record && installation === String(installationId)) ids.add(Number(repoId));
    }
    return [...ids].sort((a, b) => a - b);
  }

  async rememberInstallation(installationId: number): Promise<void> {
    this.#installations.add(installationId);
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
    const logins = this.#fleetLogins.get(installationId) ?? new Set<string>();
    logins.add(login.toLowerCase());
    this.#fleetLogins.set(installationId, logins);
  }

  async isFleetLogin(installationId: number, login: string): Promise<boolean> {
    return this.#fleetLogins.get(installationId)?.has(login.toLowerCase()) ?? false;
  }

  async installations(): Promise<number[]> {
    return [...this.#installations].sort((a, b) => a - b);
  }

  async activeCount(installationId: number): Promise<number> {
    return this.slots.deadlines(installationId)?.size ?? 0;
  }

  async firstDelivery(deliveryId: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const name = `delivery:${deliveryId}`;
    if (this.#alive(name) !== undefined) return false;
    this.#expiring.set(name, { value: "1", expiresAt: this.#now() + ttlMs });
    return true;
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const held = this.#alive(`lock:${name}`);
    if (held !== undefined && held !== owner) return false;
    this.#expiring.set(`lock:${name}`, { value: owner, expiresAt: this.#now() + ttlMs });
    return true;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    if (this.#alive(`lock:${name}`) === owner) this.#expiring.delete(`lock:${name}`);
  }

  override async claim(input: ClaimInput): Promise<ClaimOutcome> {
    const outcome = await super.claim(input);
    if (outcome.kind !== "created" || !input.writeLock) return outcome;
    const { owner, ttlMs } = input.writeLock;
    return { ...outcome, writeLocked: await this.acquireLock(writeLockName(input.key), owner, ttlMs) };
  }

  async lockWrite(
    key: SubjectKey,
    owner: string,
    ttlMs: number,
  ): Promise<{ locked: false } | { locked: true; record: ClaimRecord | null }> {
    if (!(await this.acquireLock(writeLockName(key), owner, ttlMs))) return { locked: false };
    return { locked: true, record: await this.get(key) };
  }

  async finishWrite(input: FinishWriteInput): Promise<ClaimRecord | null> {
    const { key, commit } = input;
    const record = await this.get(key);
    if (commit) await this.commitClaim(key, commit.generation, commit.comment);
    if (!movedOnFrom(record, input.sentFor)) await this.unlockWrite(key, input.owner);
    return record;
  }

  async unlockWrite(key: SubjectKey, owner: string): Promise<void> {
    await this.releaseLock(writeLockName(key), owner);
  }

  async putDocument(name: string, value: unknown, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    this.#expiring.set(`doc:${name}`, { value: encodeDocument(name, value), expiresAt: this.#now() + ttlMs });
  }

  async getDocument(name: string): Promise<unknown> {
    const json = this.#alive(`doc:${name}`);
    return json === undefined ? null : JSON.parse(json);
  }

  /** The value of an expiring key, or undefined once its time is up (as Redis would have dropped it). */
  #alive(name: string): string | undefined {
    const entry = this.#expiring.get(name);
    if (!entry) return undefined;
    if (this.#now() >= entry.expiresAt) {
      this.#expiring.delete(name);
      return undefined;
    }
    return entry.value;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

/** A subject's write lock among the named locks (the Redis store keeps it under the subject's keys). */
function writeLockName(key: SubjectKey): string {
  return `write:${key.installationId}:${key.repoId}:${key.issue}`;
}
