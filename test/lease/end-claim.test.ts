// The one "end a claim" path: store → GitHub write → commit or mark synced → one event, with one failure policy.
import type pino from "pino";
import { describe, expect, it } from "vitest";
import { defaultRepoConfig } from "../../src/config/repo-config.js";
import type { ClaimRecord } from "../../src/domain/claim.js";
import type { ClaimChange } from "../../src/domain/claim-change.js";
import { endClaim, finishEnded, writeEnded } from "../../src/lease/transitions/end-claim.js";
import { markStale } from "../../src/lease/transitions/mark-stale.js";
import type { EndClaimInput, MarkStaleInput } from "../../src/providers/app-transition-types.js";
import type { TransitionWrite } from "../../src/providers/assignment-provider.js";
import { agentClaimRecord } from "../support/claim-record.js";

const key = { installationId: 1, repoId: 7, issue: 12 };
const ref = { installationId: 1, repo: "octo/widgets", issue: 12 };
const config = defaultRepoConfig;

/** Every port the path touches writes to one journal, so the order is what the test reads. */
function world(
  options: { ended?: boolean; githubFails?: boolean; claimComment?: boolean; markTripFails?: boolean } = {},
) {
  const journal: string[] = [];
  const changes: ClaimChange[] = [];
  const writes: TransitionWrite[] = [];
  const warnings: string[] = [];
  const previous = agentClaimRecord({ ...key, commentNodeId: "IC_3", sync: "done" });
  const ended: ClaimRecord = { ...previous, generation: 4, state: "revoked", sync: "pending" };
  const deps = {
    stores: {
      claims: {
        async endClaim(input: EndClaimInput) {
          journal.push(`store.endClaim ${input.to}`);
          return options.ended === false
            ? { kind: "skipped" as const, reason: "live" as const, current: previous }
            : { kind: "ended" as const, previous, record: { ...ended, state: input.to } };
        },
        async markStale(input: MarkStaleInput) {
          journal.push("store.markStale");
          return { kind: "marked" as const, record: { ...previous, staleMarkedAt: input.now } };
        },
        async commitClaim(_key: unknown, generation: number) {
          journal.push(`store.commitClaim ${generation}`);
        },
        async markTripWritten(_key: unknown, generation: number) {
          journal.push(`store.markTripWritten ${generation}`);
          if (options.markTripFails) throw new Error("store unavailable");
        },
        async markSynced(_key: unknown, generation: number) {
          journal.push(`store.markSynced ${generation}`);
        },
      },
    },
    assignments: {
      async apply(_ref: unknown, write: TransitionWrite) {
        journal.push("github.apply");
        writes.push(write);
        if (options.githubFails) throw new Error("502 from GitHub");
        return options.claimComment
          ? { claimComment: { nodeId: "IC_4", databaseId: 4 }, requests: 1 }
          : { requests: 1 };
      },
    },
    events: {
      async transitioned(change: ClaimChange) {
        journal.push(`events ${change.cause}`);
        changes.push(change);
      },
    },
    log: {
      warn: (_fields: unknown, message: string) => {
        warnings.push(message);
      },
    } as unknown as pino.Logger,
  };
  return { deps, journal, changes, writes, warnings, previous };
}

const end = (to: EndClaimInput["to"]): EndClaimInput => ({ key, generation: 3, now: 1000, to, bump: true });

describe("endClaim", () => {
  it("a trip written but not marked: the end stands as written, the failed mark is logged as such", async () => {
    const w = world({ markTripFails: true });
    const attempt = {
      generation: 3,
      reason: "reaped" as const,
      actor: w.previous.actor,
      claimedAt: 0,
      endedAt: 1000,
    };
    const ended = {
      previous: w.previous,
      record: { ...w.previous, generation: 4, state: "reaped" as const },
    };
    const tripping = { ...config, queue: { ...config.queue, maxFailures: 1 } };
    const result = await writeEnded(w.deps, key, ref, ended, tripping, { failures: [attempt] });
    expect(result).toEqual({ written: true });
    expect(w.journal).toEqual(["github.apply", "store.markSynced 4", "store.markTripWritten 3"]);
    expect(w.writes[0]?.addLabels).toContain(config.labels.needsHuman);
    expect(w.warnings).toEqual([
      "failure breaker trip written on GitHub but not marked; the next reconcile marks it",
    ]);
  });

  it.each(["revoked", "reaped", "completed"] as const)(
    "%s: store, then GitHub, then synced, then one event, in that order",
    async (to) => {
      const w = world();
      const result = await endClaim(w.deps, { end: end(to), ref, config, note: "why" });
      expect(result).toMatchObject({ kind: "ended", written: true });
      expect(w.journal).toEqual([
        `store.endClaim ${to}`,
        "github.apply",
        "store.markSynced 4",
        `events ${to}`,
      ]);
      expect(w.changes).toEqual([
        { cause: to, at: 1000, previous: w.previous, record: expect.objectContaining({ state: to }) },
      ]);
      expect(w.writes[0]).toMatchObject({ addComments: ["why"], unassign: ["U_fleet"] });
    },
  );

  it("commits the claim comment the write created instead of only marking synced", async () => {
    const w = world({ claimComment: true });
    await endClaim(w.deps, { end: end("revoked"), ref, config });
    expect(w.journal).toEqual([
      "store.endClaim revoked",
      "github.apply",
      "store.commitClaim 4",
      "events revoked",
    ]);
  });

  it("a store that skipped the end changes nothing on GitHub and tells nobody", async () => {
    const w = world({ ended: false });
    const result = await endClaim(w.deps, { end: end("reaped"), ref, config });
    expect(result).toMatchObject({ kind: "skipped", reason: "live" });
    expect(w.journal).toEqual(["store.endClaim reaped"]);
  });

  it("a GitHub failure is logged and left pending; the store's result stands and the event is still told", async () => {
    const w = world({ githubFails: true });
    const result = await endClaim(w.deps, { end: end("revoked"), ref, config });
    expect(result).toMatchObject({ kind: "ended", written: false });
    expect(w.journal).toEqual(["store.endClaim revoked", "github.apply", "events revoked"]);
    expect(w.warnings).toEqual(["revoked claim not written on GitHub; reconcile will"]);
  });

  it("keeps the assignee when asked (completion by closing the issue)", async () => {
    const w = world();
    await endClaim(w.deps, { end: end("completed"), ref, config, keepAssignee: true });
    expect(w.writes[0]?.unassign).toBeUndefined();
  });
});

describe("finishEnded and writeEnded", () => {
  it("finishEnded carries the spend of an over-budget end into its event, with its own write", async () => {
    const w = world();
    const ended = { previous: w.previous, record: { ...w.previous, state: "released" as const } };
    await finishEnded(w.deps, {
      key,
      ref,
      config,
      ended,
      cause: "budget-exhausted",
      at: 5,
      spend: { spentUsd: 12, limitUsd: 10 },
      write: () => ({ subjectNodeId: "I_12", addLabels: ["agent:over-budget"] }),
    });
    expect(w.writes).toEqual([{ subjectNodeId: "I_12", addLabels: ["agent:over-budget"] }]);
    expect(w.changes[0]).toMatchObject({ cause: "budget-exhausted", spend: { spentUsd: 12, limitUsd: 10 } });
  });

  it("writeEnded (reconcile's retry of a pending end) writes and syncs, and tells no event again", async () => {
    const w = world();
    await writeEnded(
      w.deps,
      key,
      ref,
      { previous: w.previous, record: { ...w.previous, generation: 4 } },
      config,
    );
    expect(w.journal).toEqual(["github.apply", "store.markSynced 4"]);
  });
});

describe("markStale", () => {
  it("store, then the label write, then one stale event; a failed write still tells it", async () => {
    for (const githubFails of [false, true]) {
      const w = world({ githubFails });
      const result = await markStale(w.deps, {
        mark: { key, generation: 3, now: 77, requireSilentMs: 1, storeEpoch: 1 },
        ref,
        config,
        write: () => ({ subjectNodeId: "I_12", addLabels: [config.labels.stale] }),
      });
      expect(result).toMatchObject({ kind: "marked", written: !githubFails });
      expect(w.journal).toEqual(["store.markStale", "github.apply", "events stale"]);
      expect(w.changes[0]).toMatchObject({ cause: "stale", at: 77 });
    }
  });
});
