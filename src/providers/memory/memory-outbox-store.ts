// The embedded notification outbox: the Redis outbox's semantics in process memory (one replica, lost on restart).
import {
  type ClaimedDelivery,
  type DeliveryOutcome,
  droppedByOperator,
  eventMemoryMs,
  type OperatorDeliveryResult,
  type OutboxDelivery,
  type OutboxStore,
  type RecentDelivery,
  type RetryingDelivery,
  recentKept,
  recentOf,
  retryingOf,
  retryingScanned,
} from "../outbox-store.js";

interface Queued {
  delivery: OutboxDelivery;
  dueAt: number;
  attempts: number;
  claimant?: string;
}

export class MemoryOutboxStore implements OutboxStore {
  readonly #queued = new Map<string, Queued>();
  /** Event id → when it is forgotten. */
  readonly #seen = new Map<string, number>();
  #recent: RecentDelivery[] = [];

  async enqueue(eventId: string, deliveries: OutboxDelivery[], now: number): Promise<boolean> {
    for (const [id, until] of this.#seen) if (until <= now) this.#seen.delete(id);
    if (this.#seen.has(eventId)) return false;
    this.#seen.set(eventId, now + eventMemoryMs);
    for (const delivery of deliveries) {
      this.#queued.set(delivery.id, { delivery: structuredClone(delivery), dueAt: now, attempts: 0 });
    }
    return true;
  }

  async claimDue(input: { now: number; leaseMs: number; limit: number; claimant: string }) {
    const due = [...this.#queued.values()]
      .filter((q) => q.dueAt <= input.now)
      .sort((a, b) => a.dueAt - b.dueAt || (a.delivery.id < b.delivery.id ? -1 : 1))
      .slice(0, Math.max(0, input.limit));
    const deliveries: ClaimedDelivery[] = due.map((q) => {
      q.dueAt = input.now + input.leaseMs;
      q.claimant = input.claimant;
      q.attempts++;
      return { ...structuredClone(q.delivery), attempt: q.attempts };
    });
    return { deliveries, depth: this.#queued.size, discarded: 0 };
  }

  async settle(
    delivery: ClaimedDelivery,
    claimant: string,
    outcome: DeliveryOutcome,
    now: number,
  ): Promise<boolean> {
    const queued = this.#queued.get(delivery.id);
    if (!queued || queued.claimant !== claimant) return false;
    if (outcome.kind === "retry") {
      queued.dueAt = outcome.at;
      delete queued.claimant;
      return true;
    }
    this.#queued.delete(delivery.id);
    this.#recent = [recentOf(delivery, outcome, now), ...this.#recent].slice(0, recentKept);
    return true;
  }

  async recent(limit: number): Promise<RecentDelivery[]> {
    return structuredClone(this.#recent.slice(0, Math.max(0, limit)));
  }

  async retrying(limit: number): Promise<RetryingDelivery[]> {
    return [...this.#queued.values()]
      .sort((a, b) => a.dueAt - b.dueAt || (a.delivery.id < b.delivery.id ? -1 : 1))
      .slice(0, retryingScanned)
      .filter((q) => q.attempts > 0 && q.claimant === undefined)
      .slice(0, Math.max(0, limit))
      .map((q) => retryingOf(q.delivery, q.attempts, q.dueAt));
  }

  async depth(): Promise<number> {
    return this.#queued.size;
  }

  async retryNow(id: string, now: number): Promise<OperatorDeliveryResult> {
    const queued = this.#queued.get(id);
    if (!queued) return { kind: "missing" };
    if (inFlight(queued, now)) return { kind: "in-flight", leaseEndsAt: queued.dueAt };
    const delivery = retryingOf(queued.delivery, queued.attempts, queued.dueAt);
    queued.dueAt = Math.min(queued.dueAt, now);
    delete queued.claimant;
    return { kind: "done", delivery };
  }

  async drop(id: string, now: number): Promise<OperatorDeliveryResult> {
    const queued = this.#queued.get(id);
    if (!queued) return { kind: "missing" };
    if (inFlight(queued, now)) return { kind: "in-flight", leaseEndsAt: queued.dueAt };
    this.#queued.delete(id);
    const claimed = { ...queued.delivery, attempt: queued.attempts };
    const record = recentOf(claimed, { kind: "dropped", reason: droppedByOperator }, now);
    this.#recent = [record, ...this.#recent].slice(0, recentKept);
    return { kind: "done", delivery: retryingOf(queued.delivery, queued.attempts, queued.dueAt) };
  }
}

/** Held by a sender whose lease still runs (a claimed delivery's due time is its lease's end). */
function inFlight(queued: Queued, now: number): boolean {
  return queued.claimant !== undefined && queued.dueAt > now;
}
