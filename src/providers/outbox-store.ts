// The notification outbox's store interface: deliveries queued in one call, claimed by one sender at a time, settled.
import { z } from "zod";
import { NotifyEvent } from "../config/repo-config.js";

/** How long an event id is remembered, so emitting it again (another replica, a redelivery) queues nothing. */
export const eventMemoryMs = 7 * 24 * 3_600_000;
/** Settled deliveries kept for the dashboard's list of recent notifications. */
export const recentKept = 100;

/**
 * One notification as a `json` sink receives it (docs/deploy.md#what-a-sink-receives), and as the outbox
 * keeps it.
 */
export interface Notification {
  event: NotifyEvent;
  /** The event's id; the `Idempotency-Key` of every delivery and retry of it. */
  id: string;
  /** When it happened (ISO 8601). */
  at: string;
  /** `owner/name#number`; null for an installation-wide event (`janitor-halted`). */
  subject: string | null;
  installationId: number;
  data: Record<string, unknown>;
}

/** One event for one sink. */
export interface OutboxDelivery {
  /** `<event id>.<sink id>`. */
  id: string;
  sinkId: string;
  notification: Notification;
}

export interface ClaimedDelivery extends OutboxDelivery {
  /** 1 for the first try; counted when claimed, so a sender that died mid-send used up its try. */
  attempt: number;
}

export type DeliveryOutcome =
  | { kind: "sent" }
  | { kind: "retry"; at: number }
  | { kind: "dropped"; reason: string };

/** A settled delivery, newest first in `recent()`. */
export const RecentDelivery = z.strictObject({
  id: z.string(),
  event: NotifyEvent,
  subject: z.string().nullable(),
  installationId: z.number().int(),
  sinkId: z.string(),
  result: z.enum(["sent", "dropped"]),
  reason: z.string().optional(),
  attempts: z.number().int().nonnegative(),
  at: z.number().int(),
});
export type RecentDelivery = z.infer<typeof RecentDelivery>;

/** A delivery waiting for another try: one failed, and no sender holds it now. */
export interface RetryingDelivery {
  id: string;
  event: NotifyEvent;
  subject: string | null;
  installationId: number;
  sinkId: string;
  /** Tries so far (all failed). */
  attempts: number;
  /** When it is due again (ms). */
  dueAt: number;
}

/**
 * What an operator's `retryNow` or `drop` found: done (the delivery as it was, `null` when it did not
 * read back), in flight (a sender holds it and its lease runs: nothing changed), or missing (never
 * queued, or settled already: sent or dropped).
 */
export type OperatorDeliveryResult =
  | { kind: "done"; delivery: RetryingDelivery | null }
  | { kind: "in-flight"; leaseEndsAt: number }
  | { kind: "missing" };

/** The reason `recent()` gives for a delivery an operator dropped. */
export const droppedByOperator = "dropped by an operator (dashboard)";

/** Queued deliveries `retrying()` looks at, soonest due first: a bound on one dashboard read. */
export const retryingScanned = 1_000;

/** A queued delivery as stored (what a claim reads back, validated). */
export const StoredDelivery = z.strictObject({
  sinkId: z.string().min(1),
  notification: z.strictObject({
    event: NotifyEvent,
    id: z.string().min(1),
    at: z.string(),
    subject: z.string().nullable(),
    installationId: z.number().int(),
    data: z.record(z.string(), z.unknown()),
  }),
});

export interface OutboxStore {
  /**
   * One store call: queues `deliveries`, due at `now`, unless `eventId` was queued within
   * `eventMemoryMs`. False: it was, and nothing was queued.
   */
  enqueue(eventId: string, deliveries: OutboxDelivery[], now: number): Promise<boolean>;
  /**
   * One store call: takes up to `limit` deliveries due at `now` for `claimant`, each hidden from
   * other claims for `leaseMs` (should the claimant die, it is due again then). Also answers how
   * many deliveries are queued (the outbox depth, claimed ones included).
   * Oldest due first.
   */
  claimDue(input: { now: number; leaseMs: number; limit: number; claimant: string }): Promise<{
    deliveries: ClaimedDelivery[];
    depth: number;
    /** Claimed deliveries that did not read back (corrupt): dropped by the store itself. */
    discarded: number;
  }>;
  /**
   * Settles a claimed delivery: sent and dropped ones leave the outbox (and join `recent`), a retry
   * is due again at `outcome.at`. False, and nothing changed, when `claimant` no longer holds it.
   */
  settle(
    delivery: ClaimedDelivery,
    claimant: string,
    outcome: DeliveryOutcome,
    now: number,
  ): Promise<boolean>;
  /** The last settled deliveries, newest first. */
  recent(limit: number): Promise<RecentDelivery[]>;
  /**
   * Read only: up to `limit` deliveries waiting for another try, soonest due first, among the
   * `retryingScanned` soonest due.
   */
  retrying(limit: number): Promise<RetryingDelivery[]>;
  depth(): Promise<number>;
  /**
   * One store call, for an operator: a queued delivery no sender holds is due at `now` (unless it
   * was due sooner); its tries so far and its event id (the `Idempotency-Key`) stay, so the next
   * claim counts one more try. One whose sender's lease has run out loses that sender.
   */
  retryNow(id: string, now: number): Promise<OperatorDeliveryResult>;
  /**
   * One store call, for an operator: a queued delivery no sender holds leaves the outbox and joins
   * `recent` as dropped (`droppedByOperator`); its event stays remembered, so it is never queued again.
   */
  drop(id: string, now: number): Promise<OperatorDeliveryResult>;
}

/** What `retrying()` answers of a stored delivery. */
export function retryingOf(delivery: OutboxDelivery, attempts: number, dueAt: number): RetryingDelivery {
  const { notification } = delivery;
  return {
    id: delivery.id,
    event: notification.event,
    subject: notification.subject,
    installationId: notification.installationId,
    sinkId: delivery.sinkId,
    attempts,
    dueAt,
  };
}

/** What `recent()` keeps of a settled delivery. */
export function recentOf(
  delivery: ClaimedDelivery,
  outcome: Exclude<DeliveryOutcome, { kind: "retry" }>,
  now: number,
): RecentDelivery {
  const { notification } = delivery;
  return {
    id: delivery.id,
    event: notification.event,
    subject: notification.subject,
    installationId: notification.installationId,
    sinkId: delivery.sinkId,
    result: outcome.kind,
    ...(outcome.kind === "dropped" ? { reason: outcome.reason } : {}),
    attempts: delivery.attempt,
    at: now,
  };
}
