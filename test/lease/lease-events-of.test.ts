// What each claim transition tells the holder's live stream (src/lease/lease-events.ts), as a table: the lease it is addressed to and the event.
import { describe, expect, it } from "vitest";
import type { ChangeCause, ClaimChange } from "../../src/domain/claim-change.js";
import { leaseEventsOf } from "../../src/lease/lease-events.js";
import { agentClaimRecord } from "../support/claim-record.js";

const at = Date.parse("2026-12-02T10:00:00Z");
const held = agentClaimRecord({ generation: 3 });
/** The lease id of `held` (installation 1, repository 7, issue 12, generation 3). */
const heldLease = "1.7.12.3";
const { tokenDigest: _agentOnly, ...humanHeld } = agentClaimRecord({
  generation: 3,
  actor: { kind: "human", login: "alice" },
});

/** The record after `cause`: ended in place, or (`bump`) moved past the held generation as a reap does. */
function change(
  cause: ChangeCause,
  record: Partial<typeof held>,
  previous: typeof held | null = held,
): ClaimChange {
  return { cause, at, record: { ...held, ...record }, previous };
}

describe("leaseEventsOf", () => {
  it.each<[string, ClaimChange, { leaseId: string; event: string; data: Record<string, unknown> }[]]>([
    [
      "the holder's release ends its stream with `released` and the outcome",
      change("released", { state: "released", outcome: "completed" }, null),
      [
        {
          leaseId: heldLease,
          event: "released",
          data: { outcome: "completed", at: "2026-12-02T10:00:00.000Z" },
        },
      ],
    ],
    [
      "a reap burns a generation: `revoked` goes to the lease that was held, not the new generation",
      change("reaped", { state: "reaped", generation: 4, supersedes: 3 }),
      [{ leaseId: heldLease, event: "revoked", data: { reason: "reaped", at: "2026-12-02T10:00:00.000Z" } }],
    ],
    [
      "a revocation in place",
      change("revoked", { state: "revoked" }),
      [{ leaseId: heldLease, event: "revoked", data: { reason: "revoked", at: "2026-12-02T10:00:00.000Z" } }],
    ],
    [
      "a takeover supersedes the held lease",
      change("claimed", { generation: 4, actor: { kind: "agent", login: "fleet-bot", sessionId: "s2" } }),
      [
        {
          leaseId: heldLease,
          event: "superseded",
          data: {
            by: { kind: "agent", login: "fleet-bot", sessionId: "s2" },
            generation: 4,
            at: "1970-01-01T00:00:00.000Z",
          },
        },
      ],
    ],
    [
      "the stale mark tells nothing (a stale holder may still beat)",
      change("stale", { staleMarkedAt: at }),
      [],
    ],
    ["a re-claim by the holder (token rotated) tells nothing", change("token-rotated", {}), []],
    [
      "a human claim's release has no lease to tell",
      { cause: "released", at, record: { ...humanHeld, state: "released" }, previous: null },
      [],
    ],
  ])("%s", (_name, input, expected) => {
    expect(leaseEventsOf(input).map(({ leaseId, event }) => ({ leaseId, ...event }))).toEqual(expected);
  });
});
