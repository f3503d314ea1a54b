// Progress evidence and the `stalled` state (docs/reference/http-api.md#stalled): pure functions of a record and a clock, mirrored by stall_of in liveness.lua.
import type { ClaimRecord } from "./claim.js";
import { aliveAt } from "./liveness.js";

export const onStallActions = ["needs-human", "reclaimable"] as const;
export type OnStall = (typeof onStallActions)[number];

type StallFields = Pick<
  ClaimRecord,
  "claimedAt" | "progressAt" | "lastPushAt" | "stallAfterMs" | "waitUntil" | "needsHuman" | "budgetPaused"
>;

/** The last progress of a generation: a push to its branch, a PR event, a phase change or a spend increase; the claim itself counts as the first. */
export function progressBase(record: Pick<ClaimRecord, "claimedAt" | "progressAt" | "lastPushAt">): number {
  return Math.max(record.claimedAt, record.progressAt ?? 0, record.lastPushAt ?? 0);
}

/**
 * When a live claim became stalled, or null. A holder that declared why it does not progress (a
 * reported wait still running, an ask for a person, a budget pause) is waiting, not stalled.
 */
export function stalledSince(record: StallFields, now: number): number | null {
  if (record.stallAfterMs === undefined) return null;
  if ((record.waitUntil ?? 0) > now || record.needsHuman === true || record.budgetPaused === true)
    return null;
  const since = progressBase(record) + record.stallAfterMs;
  return now >= since ? since : null;
}

/**
 * Whether a generation ended by a takeover (or a `/reclaim`) at `now` was live and stalled: its
 * `superseded` history entry then carries the note `stalled`; an agent's takeover of it counts as a
 * failure (claim-14.lua), a person's `/reclaim` does not.
 */
export function wasStalled(
  record: StallFields & Pick<ClaimRecord, "state" | "lastHeartbeatAt" | "durations">,
  now: number,
): boolean {
  if (record.state !== "active") return false;
  const live = now - aliveAt(record) < record.durations.ttlMs;
  return live && stalledSince(record, now) !== null;
}

/** What a heartbeat (or any read) of a live claim makes of its progress: the table of test/stall.test.ts. */
export interface StallDecision {
  stalledSince: number | null;
  /** The `stalled` notification (and, with `needs-human`, the ask) is due: once per generation. */
  notify: boolean;
  /** Another session may take the claim over although its heartbeats go on (`onStall: reclaimable`). */
  takeoverAllowed: boolean;
}

export function decideStall(
  record: StallFields & Pick<ClaimRecord, "onStall" | "stalledAt">,
  now: number,
): StallDecision {
  const since = stalledSince(record, now);
  if (since === null) return { stalledSince: null, notify: false, takeoverAllowed: false };
  return {
    stalledSince: since,
    notify: record.stalledAt === undefined,
    takeoverAllowed: (record.onStall ?? "needs-human") === "reclaimable",
  };
}
