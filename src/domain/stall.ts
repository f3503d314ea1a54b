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

/** What can happen to the App's ask for a person on a stalled claim's behalf (`onStall: needs-human`). */
export type StallAskEvent =
  /** The heartbeat that first found the generation stalled. */
  | "stalled"
  /** A push to the claim's branch, the holder's PR event, a phase change or a spend increase. */
  | "progress"
  /** The holder's own heartbeat asks for a person (`needsHuman`): the ask is the holder's from then on. */
  | "holder-asks"
  /** A person commented on the issue while the ask stood. */
  | "person-replied"
  /** A person took the needs-human label off. */
  | "person-cleared";

export interface StallAskDecision {
  /** Whether the App's ask stands after the event. */
  asks: boolean;
  /** The needs-human label: `add`, `remove`, or null (GitHub already shows what is wanted, or a person removed it). */
  label: "add" | "remove" | null;
  /** The needs-human comment and notification on the holder's behalf (throttled like a holder's ask). */
  notify: boolean;
}

/**
 * The App's ask on a stalled claim's behalf: the table of test/stall-ask.test.ts, mirrored by
 * heartbeat-7.lua (stalled, progress, holder-asks), recordPush-1.lua (progress) and
 * withdrawStallAsk-1.lua (a person's answer). Made once per generation, with the `stalled`
 * notification, and only with `onStall: needs-human`; withdrawn by progress or a person, and
 * handed over to the holder when it asks itself. The label stays while the holder asks.
 */
export function decideStallAsk(input: {
  onStall: OnStall | undefined;
  /** The App's ask stands before the event. */
  asks: boolean;
  /** The holder's own ask for a person stands (after the event). */
  holderAsks: boolean;
  event: StallAskEvent;
}): StallAskDecision {
  const { asks, holderAsks, event } = input;
  const none: StallAskDecision = { asks, label: null, notify: false };
  if (event === "stalled") {
    if (asks || holderAsks || (input.onStall ?? "needs-human") !== "needs-human") return none;
    return { asks: true, label: "add", notify: true };
  }
  if (!asks) return none;
  // The holder's own ask keeps the label (and answers for it from now on); a person's removal needs no write.
  const label = holderAsks || event === "person-cleared" ? null : "remove";
  return { asks: false, label, notify: false };
}

/** Whether GitHub should show the needs-human label for a record: its holder asks, or the App asks on a stall. */
export function asksForPerson(record: Pick<ClaimRecord, "state" | "needsHuman" | "stallAsk">): boolean {
  return record.state === "active" && (record.needsHuman === true || record.stallAsk === true);
}
