// The steps after a transition's write, shared by the claim, /reclaim and the janitor: commit, landed-anyway, compensation.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../../src/domain/claim.js";
import {
  applyAndCommit,
  compensate,
  landedAnyway,
  rollBack,
} from "../../src/lease/transitions/commit-transition.js";
import type { SubjectSnapshot, TransitionWrite } from "../../src/providers/assignment-provider.js";
import { agentClaimRecord } from "../support/claim-record.js";

const key = { installationId: 42, repoId: 7, issue: 12 };
const ref = { installationId: 42, repo: "octo/widgets", issue: 12 };
const labels = { claimed: "agent:claimed", stale: "agent:stale" };

/** The store calls a committed write makes, in order. */
function recordingStore() {
  const calls: unknown[][] = [];
  return {
    calls,
    async commitClaim(...args: unknown[]) {
      calls.push(["commitClaim", ...args]);
    },
    async markSynced(...args: unknown[]) {
      calls.push(["markSynced", ...args]);
    },
  };
}

const record = (overrides: Partial<ClaimRecord> = {}) => agentClaimRecord({ ...key, ...overrides });

function showing(comments: SubjectSnapshot["claimComments"]) {
  return {
    async status() {
      return { claimComments: comments } as SubjectSnapshot;
    },
  };
}

const comment = (generation: number, tokenDigest: string) => ({
  nodeId: "IC_9",
  databaseId: 9,
  marker: {
    subject: "octo/widgets#12",
    generation,
    state: "active" as const,
    actor: { kind: "agent" as const, login: "fleet-bot" },
    taskClass: "author" as const,
    claimedAt: "2026-01-01T00:00:00.000Z",
    ttlSeconds: 1800,
    tokenDigest,
  },
});

describe("applyAndCommit", () => {
  const write: TransitionWrite = { subjectNodeId: "I_12", createClaimComment: "claimed" };
  it.each([
    [
      "a created claim comment is committed",
      { nodeId: "IC_1", databaseId: 1 },
      {},
      [["commitClaim", key, 3, { commentNodeId: "IC_1", commentId: 1 }]],
    ],
    ["no comment: nothing to commit", undefined, {}, []],
    [
      "no comment, asked to: the record is marked synced",
      undefined,
      { orMarkSynced: true },
      [["markSynced", key, 3]],
    ],
  ])("%s", async (_name, claimComment, options, expected) => {
    const store = recordingStore();
    const assignments = {
      async apply() {
        return { ...(claimComment ? { claimComment } : {}), requests: 1 };
      },
    };
    await applyAndCommit({ assignments, stores: { claims: store } }, ref, key, 3, write, options);
    expect(store.calls).toEqual(expected);
  });
});

describe("landedAnyway", () => {
  it.each([
    ["the generation's comment names this token: committed", [comment(3, "a".repeat(64))], true],
    ["another token's comment of the generation", [comment(3, "b".repeat(64))], false],
    ["an older generation's comment", [comment(2, "a".repeat(64))], false],
    ["no claim comment", [], false],
  ])("%s", async (_name, comments, landed) => {
    const store = recordingStore();
    expect(
      await landedAnyway({ assignments: showing(comments), stores: { claims: store } }, ref, key, record()),
    ).toBe(landed);
    expect(store.calls).toEqual(
      landed ? [["commitClaim", key, 3, { commentNodeId: "IC_9", commentId: 9 }]] : [],
    );
  });

  it("answers no when GitHub cannot be read", async () => {
    const assignments = {
      async status(): Promise<SubjectSnapshot> {
        throw new Error("GitHub is down");
      },
    };
    expect(
      await landedAnyway({ assignments, stores: { claims: recordingStore() } }, ref, key, record()),
    ).toBe(false);
  });
});

describe("compensate", () => {
  const log = pino({ level: "silent" });
  const failed: TransitionWrite = {
    subjectNodeId: "I_12",
    unassign: ["U_old"],
    assign: ["U_fleet"],
    addLabels: ["agent:claimed"],
    createClaimComment: "claimed",
  };

  async function undoOf(previous: ClaimRecord | null): Promise<TransitionWrite | undefined> {
    let sent: TransitionWrite | undefined;
    const assignments = {
      async apply(_ref: unknown, write: TransitionWrite) {
        sent = write;
        return { requests: 1 };
      },
    };
    await compensate({ assignments, log }, ref, failed, previous, labels, key);
    return sent;
  }

  it("with nothing before: the assignment and the label go, the unassigned come back", async () => {
    expect(await undoOf(null)).toEqual({
      subjectNodeId: "I_12",
      unassign: ["U_fleet"],
      removeLabels: ["agent:claimed"],
      assign: ["U_old"],
      fence: { key, generation: 0, state: "revoked", stale: false, labels },
    });
  });

  it("with a live incumbent of the same login: its assignment and label stay", async () => {
    const undo = await undoOf(record({ generation: 2, sync: "done" }));
    expect(undo?.unassign).toBeUndefined();
    expect(undo?.addLabels).toEqual(["agent:claimed"]);
    expect(undo?.fence).toMatchObject({ generation: 2, state: "active" });
  });

  it("is best effort: GitHub's refusal is logged, not thrown", async () => {
    const assignments = {
      async apply(): Promise<never> {
        throw new Error("GitHub is down");
      },
    };
    await expect(compensate({ assignments, log }, ref, failed, null, labels, key)).resolves.toBe(false);
  });
});

describe("rollBack", () => {
  const log = pino({ level: "silent" });
  const failed: TransitionWrite = {
    subjectNodeId: "I_12",
    assign: ["U_fleet"],
    addLabels: ["agent:claimed"],
  };
  const refusedClaim = record({ generation: 3, sync: "pending", pendingTokenDigest: "p".repeat(64) });

  /** The store calls a rollback makes, with the undo written or refused. */
  async function storeCallsOf(
    previous: ClaimRecord | null,
    undoWritten: boolean,
    refused: ClaimRecord = refusedClaim,
    unsure = false,
  ): Promise<unknown[][]> {
    const calls: unknown[][] = [];
    const claims = {
      async rollbackClaim(...args: unknown[]) {
        calls.push(["rollbackClaim", args[1], args[2]]);
      },
      async restore(restored: ClaimRecord, now: number) {
        calls.push(["restore", restored, now]);
        return "restored" as const;
      },
    };
    const assignments = {
      async apply() {
        if (!undoWritten) throw new Error("GitHub is down");
        return { requests: 1 };
      },
    };
    const transition = { record: refused, previous, write: failed, now: 5_000, unsure };
    await rollBack({ assignments, log, stores: { claims } }, ref, key, transition, labels);
    return calls;
  }

  it("a store that cannot keep the generation is logged, not thrown: the caller still answers 502", async () => {
    const claims = {
      async rollbackClaim() {},
      async restore(): Promise<never> {
        throw new Error("store unreachable");
      },
    };
    const assignments = {
      async apply(): Promise<never> {
        throw new Error("GitHub is down");
      },
    };
    const transition = { record: refusedClaim, previous: null, write: failed, now: 5_000 };
    await expect(
      rollBack({ assignments, log, stores: { claims } }, ref, key, transition, labels),
    ).resolves.toBeUndefined();
  });

  const { pendingTokenDigest: _, assigneeNodeId: __, ...withoutPending } = refusedClaim;
  // It names no App-made assignment: whether one landed is read when its write is retried.
  const leftover = {
    ...withoutPending,
    appAssigned: false,
    state: "revoked",
    sync: "pending",
    endedAt: 5_000,
  };
  const released = record({ generation: 2, state: "released", sync: "done", endedAt: 1_000 });
  const releasePending = record({ generation: 2, state: "released", sync: "pending", endedAt: 1_000 });
  const incumbent = record({ generation: 2, sync: "done" });

  it.each([
    [
      "nothing before, undo refused: the refused generation stays, ended, its write pending",
      null,
      false,
      true,
    ],
    ["nothing before, undo written: the record is gone", null, true, false],
    [
      "nothing before, undo written after a write that went unanswered: the generation stays, ended, its write pending",
      null,
      true,
      true,
      true,
    ],
    [
      "an ended claim before, written, undo refused: that record stays (the next claim resumes from it)",
      released,
      false,
      false,
    ],
    [
      "an ended claim before, its own write pending: that record stays for the same retry",
      releasePending,
      false,
      false,
    ],
    ["a holder before: its record stays, its fence corrects", incumbent, false, false],
  ])("%s", async (_name, previous, undoWritten, kept, unsure = false) => {
    const calls = await storeCallsOf(previous, undoWritten, refusedClaim, unsure);
    expect(calls).toEqual([["rollbackClaim", 3, previous], ...(kept ? [["restore", leftover, 5_000]] : [])]);
  });

  it("a person's refused take-back, undo refused: nothing is kept (the reconcile would finish the /reclaim)", async () => {
    const takeBack = record({
      generation: 3,
      sync: "pending",
      state: "human",
      actor: { kind: "human", login: "alice" },
    });
    expect(await storeCallsOf(null, false, takeBack)).toEqual([["rollbackClaim", 3, null]]);
  });
});
