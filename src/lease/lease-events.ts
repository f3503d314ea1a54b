// The live lease events (docs/reference/http-api.md#get-apiv1leasesidevents--live-lease-events): what each transition tells the holder's stream, and publishing them best-effort.
import type { Logger } from "pino";
import type { LeaseEvent } from "../contract/lease-events.js";
import { type ClaimRecord, leaseIdOf } from "../domain/claim.js";
import type { ClaimChange } from "../domain/claim-change.js";
import type { LeaseEventBus } from "../providers/lease-event-bus.js";
import { iso } from "./outcomes.js";

/** Where a transition publishes; absent: nobody listens (a tool, a test that does not look). */
export type LeaseEventPublisher = Pick<LeaseEventBus, "publish">;

/** One event for one lease. */
export interface AddressedLeaseEvent {
  leaseId: string;
  event: LeaseEvent;
}

/** The 410 `gone` reason an ended claim's lease calls answer, by what ended it. */
const goneReasonOf: Partial<Record<ClaimChange["cause"], string>> = {
  revoked: "revoked",
  reaped: "reaped",
  completed: "completed",
  "budget-exhausted": "budget_exhausted",
};

/**
 * What a transition tells the streams: a new generation over an agent's held lease supersedes it; a
 * revocation, reap, completion or budget end revokes it; its holder's own release ends it as
 * `released` (the holder knows, but its stream must not outlive the lease). The stale mark tells
 * nothing (a stale holder may still beat).
 */
export function leaseEventsOf(change: ClaimChange): AddressedLeaseEvent[] {
  const { previous, record } = change;
  if (change.cause === "claimed") {
    if (!previous?.tokenDigest || previous.state !== "active" || previous.generation >= record.generation)
      return [];
    return [supersededEvent(previous, record)];
  }
  if (change.cause === "released") {
    if (!record.tokenDigest) return [];
    return [
      {
        leaseId: leaseIdOf(record, record.generation),
        event: {
          event: "released",
          data: { ...(record.outcome ? { outcome: record.outcome } : {}), at: iso(change.at) },
        },
      },
    ];
  }
  const reason = goneReasonOf[change.cause];
  // The lease that ended is the held one: a revoke or reap bumps the ended record's generation past it.
  const held = previous?.state === "active" ? previous : record;
  if (!reason || !held.tokenDigest) return [];
  return [
    {
      leaseId: leaseIdOf(held, held.generation),
      event: { event: "revoked", data: { reason, at: iso(change.at) } },
    },
  ];
}

/** `superseded` for `previous`'s lease, as its next heartbeat's `409 superseded` would say it. */
export function supersededEvent(previous: ClaimRecord, record: ClaimRecord): AddressedLeaseEvent {
  return {
    leaseId: leaseIdOf(previous, previous.generation),
    event: {
      event: "superseded",
      data: { by: record.actor, generation: record.generation, at: iso(record.claimedAt) },
    },
  };
}

/** `takeover_pending`: another session asked to take the lease over; a heartbeat by `beatBy` keeps it. */
export function takeoverPendingEvent(
  current: ClaimRecord,
  retryAfterMs: number,
  now: number,
): AddressedLeaseEvent {
  return {
    leaseId: leaseIdOf(current, current.generation),
    event: {
      event: "takeover_pending",
      data: {
        ...(current.takeover ? { claimant: current.takeover.claimant } : {}),
        beatBy: iso(now + retryAfterMs),
      },
    },
  };
}

/** `budget_raised`: a person's `/budget` raised the subject's limit (and lifted a budget pause). */
export function budgetRaisedEvent(
  record: ClaimRecord,
  raise: { by: string; fromUsd: number | null; toUsd: number; resumed: boolean; at: number },
): AddressedLeaseEvent {
  return {
    leaseId: leaseIdOf(record, record.generation),
    event: {
      event: "budget_raised",
      data: {
        by: raise.by,
        fromUsd: raise.fromUsd,
        toUsd: raise.toUsd,
        resumed: raise.resumed,
        at: iso(raise.at),
      },
    },
  };
}

/** `needs_human_answered`: a person replied on the subject, or removed the needs-human label. */
export function needsHumanAnsweredEvent(
  record: ClaimRecord,
  answer: { by: string; how: "replied" | "cleared"; at: number; commentUrl?: string },
): AddressedLeaseEvent {
  return {
    leaseId: leaseIdOf(record, record.generation),
    event: {
      event: "needs_human_answered",
      data: {
        by: answer.by,
        how: answer.how,
        at: iso(answer.at),
        ...(answer.commentUrl ? { commentUrl: answer.commentUrl } : {}),
      },
    },
  };
}

/** `stalled`: the lease made no progress for its class's `stallAfter` (the stalled state's publisher calls this). */
export function stalledEvent(record: ClaimRecord, stalledSince: number): AddressedLeaseEvent {
  return {
    leaseId: leaseIdOf(record, record.generation),
    event: { event: "stalled", data: { stalledSince: iso(stalledSince) } },
  };
}

/**
 * Publishes after the store committed the transition; never rejects: a failed publish costs the
 * transition nothing (the holder learns it at its next heartbeat) and is logged.
 */
export async function publishLeaseEvents(
  bus: LeaseEventPublisher | undefined,
  log: Pick<Logger, "warn">,
  events: readonly AddressedLeaseEvent[],
): Promise<void> {
  if (!bus) return;
  for (const { leaseId, event } of events) {
    try {
      await bus.publish(leaseId, event);
    } catch (error) {
      log.warn({ leaseId, event: event.event, err: error }, "lease event not published");
    }
  }
}

/** Publishes the `stalled` event of `record`'s lease (best-effort, as every lease event). */
export function publishStalled(
  bus: LeaseEventPublisher | undefined,
  log: Pick<Logger, "warn">,
  record: ClaimRecord,
  stalledSince: number,
): Promise<void> {
  return publishLeaseEvents(bus, log, [stalledEvent(record, stalledSince)]);
}
