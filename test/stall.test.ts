import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { decideStall } from "../src/domain/stall.js";

const claimedAt = 1_000_000;
const hour = 3_600_000;
type Progress = "none" | "push" | "pull-request" | "phase" | "spend";

/** The record fields each kind of progress leaves (a PR event is noted as a push on the branch). */
function progressed(kind: Progress, at: number): Partial<ClaimRecord> {
  if (kind === "push" || kind === "pull-request") return { lastPushAt: at };
  if (kind === "phase" || kind === "spend") return { progressAt: at };
  return {};
}

const rows: Array<{
  progress: Progress;
  progressAgo?: number;
  stallAfter: number | undefined;
  onStall?: "needs-human" | "reclaimable";
  notifiedBefore?: boolean;
  extra?: Partial<ClaimRecord>;
  stalled: boolean;
  notify: boolean;
  takeover: boolean;
}> = [
  { progress: "none", stallAfter: undefined, stalled: false, notify: false, takeover: false },
  { progress: "none", stallAfter: 2 * hour, stalled: true, notify: true, takeover: false },
  {
    progress: "none",
    stallAfter: 2 * hour,
    onStall: "reclaimable",
    stalled: true,
    notify: true,
    takeover: true,
  },
  { progress: "none", stallAfter: 6 * hour, stalled: false, notify: false, takeover: false },
  {
    progress: "push",
    progressAgo: hour,
    stallAfter: 2 * hour,
    stalled: false,
    notify: false,
    takeover: false,
  },
  {
    progress: "push",
    progressAgo: 2 * hour,
    stallAfter: 2 * hour,
    stalled: true,
    notify: true,
    takeover: false,
  },
  {
    progress: "pull-request",
    progressAgo: hour,
    stallAfter: 2 * hour,
    onStall: "reclaimable",
    stalled: false,
    notify: false,
    takeover: false,
  },
  {
    progress: "phase",
    progressAgo: hour,
    stallAfter: 2 * hour,
    onStall: "reclaimable",
    stalled: false,
    notify: false,
    takeover: false,
  },
  {
    progress: "spend",
    progressAgo: 90 * 60_000,
    stallAfter: 2 * hour,
    stalled: false,
    notify: false,
    takeover: false,
  },
  {
    progress: "spend",
    progressAgo: 3 * hour,
    stallAfter: 2 * hour,
    onStall: "reclaimable",
    stalled: true,
    notify: true,
    takeover: true,
  },
  {
    progress: "none",
    stallAfter: 2 * hour,
    notifiedBefore: true,
    stalled: true,
    notify: false,
    takeover: false,
  },
  {
    progress: "none",
    stallAfter: 2 * hour,
    onStall: "reclaimable",
    notifiedBefore: true,
    stalled: true,
    notify: false,
    takeover: true,
  },
  // A declared reason not to progress is waiting, not stalled.
  {
    progress: "none",
    stallAfter: 2 * hour,
    extra: { needsHuman: true },
    stalled: false,
    notify: false,
    takeover: false,
  },
  {
    progress: "none",
    stallAfter: 2 * hour,
    extra: { budgetPaused: true },
    stalled: false,
    notify: false,
    takeover: false,
  },
  {
    progress: "none",
    stallAfter: 2 * hour,
    onStall: "reclaimable",
    extra: { waitUntil: claimedAt + 6 * hour },
    stalled: false,
    notify: false,
    takeover: false,
  },
  {
    progress: "none",
    stallAfter: 2 * hour,
    extra: { waitUntil: claimedAt + hour },
    stalled: true,
    notify: true,
    takeover: false,
  },
];

describe("decideStall: progress × stallAfter × onStall → stalled, notification, takeover", () => {
  const now = claimedAt + 5 * hour;
  it.each(rows)(
    "$progress ($progressAgo ms ago), stallAfter $stallAfter, $onStall, notified $notifiedBefore → stalled $stalled",
    (row) => {
      const record = {
        claimedAt,
        ...(row.progress !== "none" ? progressed(row.progress, now - (row.progressAgo ?? 0)) : {}),
        ...(row.stallAfter !== undefined ? { stallAfterMs: row.stallAfter } : {}),
        ...(row.onStall ? { onStall: row.onStall } : {}),
        ...(row.notifiedBefore ? { stalledAt: now - 60_000 } : {}),
        ...row.extra,
      };
      const decision = decideStall(record, now);
      expect(decision.stalledSince !== null).toBe(row.stalled);
      expect(decision.notify).toBe(row.notify);
      expect(decision.takeoverAllowed).toBe(row.takeover);
    },
  );

  it("stalledSince is the last progress plus stallAfter", () => {
    expect(
      decideStall({ claimedAt, lastPushAt: claimedAt + hour, stallAfterMs: hour }, claimedAt + 3 * hour)
        .stalledSince,
    ).toBe(claimedAt + 2 * hour);
  });
});
