// The janitor's repair decisions as tables: a record and a snapshot in, the action or write out; no store, no GitHub.
import { describe, expect, it } from "vitest";
import { defaultRepoConfig } from "../../src/config/repo-config.js";
import type { ClaimRecord } from "../../src/domain/claim.js";
import type { ClaimMarker } from "../../src/domain/claim-marker.js";
import {
  finishReclaimWrite,
  planLabelRepair,
  planPhantomRepair,
  planReconcile,
  recordBeforeEnd,
  supersededAppAssignees,
} from "../../src/janitor/plan-repairs.js";
import type { ClaimCommentEvidence, SubjectSnapshot } from "../../src/providers/assignment-provider.js";
import { subjectSnapshot } from "../support/subject-snapshot.js";

const config = defaultRepoConfig;
const { claimed, stale } = config.labels;
const repo = "octo/widgets";
const fleet = { login: "fleet-bot", nodeId: "U_fleet" };
const other = { login: "other-bot", nodeId: "U_other" };
const alice = { login: "alice", nodeId: "U_alice" };

function agentRecord(extra: Partial<ClaimRecord> = {}): ClaimRecord {
  return {
    installationId: 42,
    repoId: 7,
    issue: 3,
    repo,
    generation: 2,
    state: "active",
    actor: { kind: "agent", login: fleet.login, sessionId: "s1" },
    taskClass: "author",
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    claimedAt: 0,
    lastHeartbeatAt: 0,
    tokenDigest: "d",
    appAssigned: true,
    assigneeNodeId: fleet.nodeId,
    sync: "done",
    commentNodeId: "IC_2",
    ...extra,
  };
}

function humanRecord(extra: Partial<ClaimRecord> = {}): ClaimRecord {
  return agentRecord({
    state: "human",
    actor: { kind: "human", login: alice.login },
    assigneeNodeId: alice.nodeId,
    tokenDigest: undefined,
    ...extra,
  });
}

function comment(generation: number, extra: Partial<ClaimMarker> = {}): ClaimCommentEvidence {
  return {
    nodeId: `IC_${generation}`,
    databaseId: generation,
    marker: {
      subject: `${repo}#3`,
      generation,
      state: "active",
      actor: { kind: "agent", login: fleet.login },
      taskClass: "author",
      claimedAt: "2026-03-01T09:00:00.000Z",
      ttlSeconds: 1800,
      appAssigned: true,
      ...extra,
    },
  };
}

function snapshot(extra: Partial<SubjectSnapshot> = {}): SubjectSnapshot {
  return subjectSnapshot({
    repoId: 7,
    repo,
    issue: 3,
    title: "An issue",
    assignees: [fleet],
    labels: [claimed],
    claimComments: [comment(2)],
    ...extra,
  });
}

describe("planReconcile", () => {
  it.each([
    ["a human claim whose write is pending", humanRecord({ sync: "pending" }), snapshot(), "finish-reclaim"],
    ["a live agent claim", agentRecord(), snapshot(), "repair-labels"],
    ["a human claim in force", humanRecord(), snapshot({ labels: [] }), "repair-labels"],
    [
      "an ended agent claim whose write is pending",
      agentRecord({ state: "reaped", sync: "pending" }),
      snapshot(),
      "left-to-retry",
    ],
    [
      "a label whose newest claim comment does not verify",
      null,
      snapshot({ rejectedMarkers: 1, rejectedAfterTrusted: 1 }),
      "state-unknown",
    ],
    ["a label without a record, its current claim comment in force", null, snapshot(), "rebuild-record"],
    [
      "a label left by an ended claim whose release never reached its claim comment",
      agentRecord({ state: "released" }),
      snapshot(),
      "remove-label",
    ],
    [
      "an ended record older than the claim comment in force",
      agentRecord({ generation: 1, state: "released" }),
      snapshot(),
      "rebuild-record",
    ],
  ] as const)("%s", (_name, record, shown, kind) => {
    expect(planReconcile(record, shown, config).kind).toBe(kind);
  });

  it("removes a label without a claim in force and the App-made assignment its claim comment names, never a person's", () => {
    const action = planReconcile(
      agentRecord({ state: "released" }),
      snapshot({ assignees: [fleet, alice], labels: [claimed, stale] }),
      config,
    );
    expect(action).toEqual({
      kind: "remove-label",
      write: {
        subjectNodeId: "I_3",
        removeLabels: [claimed, stale],
        unassign: [fleet.nodeId],
        addComments: ["🏷️ claim-hold found a claim label without a live claim behind it and removed it."],
      },
    });
  });
});

describe("planPhantomRepair", () => {
  it("revokes a claim whose App-made assignment is gone from GitHub", () => {
    expect(planPhantomRepair(agentRecord(), snapshot({ assignees: [] }), config)).toEqual({ kind: "revoke" });
  });

  it("puts back the missing label and claim comment of a claim still assigned", () => {
    const repair = planPhantomRepair(agentRecord(), snapshot({ labels: [], claimComments: [] }), config);
    expect(repair.kind).toBe("rewrite");
    if (repair.kind !== "rewrite") return;
    expect(repair.write.addLabels).toEqual([claimed]);
    expect(repair.write.createClaimComment).toMatch(/claim-hold:v1/);
  });

  it("asks for the stale label of a claim marked stale, and no comment when GitHub shows it", () => {
    const repair = planPhantomRepair(agentRecord({ staleMarkedAt: 5 }), snapshot({ labels: [] }), config);
    expect(repair).toMatchObject({ kind: "rewrite", write: { addLabels: [stale] } });
    if (repair.kind === "rewrite") expect(repair.write.createClaimComment).toBeUndefined();
  });
});

describe("planLabelRepair", () => {
  it("is null when GitHub shows what the record says", () => {
    expect(planLabelRepair(agentRecord(), snapshot(), config, [])).toBeNull();
  });

  it("puts a lost label and a lost App-made assignment back", () => {
    expect(planLabelRepair(agentRecord(), snapshot({ labels: [], assignees: [] }), config, [])).toMatchObject(
      {
        reason: "diverged-from-record",
        write: { addLabels: [claimed], assign: [fleet.nodeId] },
      },
    );
  });

  it("never re-assigns a person's claim, nor an assignment the App did not make", () => {
    const repair = planLabelRepair(
      agentRecord({ appAssigned: false }),
      snapshot({ assignees: [] }),
      config,
      [],
    );
    expect(repair).toBeNull();
  });

  it("removes superseded App-made assignments it is given", () => {
    expect(planLabelRepair(agentRecord(), snapshot(), config, [{ nodeId: other.nodeId }])).toMatchObject({
      reason: "superseded-app-assignment-left",
      write: { unassign: [other.nodeId] },
    });
  });
});

describe("supersededAppAssignees", () => {
  it("names another agent's App-made assignment a claim comment in force shows, not a person's nor the holder's", () => {
    const shown = snapshot({
      assignees: [fleet, other, alice],
      claimComments: [
        comment(1, { actor: { kind: "agent", login: other.login } }),
        comment(2),
        comment(3, { actor: { kind: "human", login: alice.login } }),
      ],
    });
    expect(supersededAppAssignees(agentRecord(), shown)).toEqual([{ nodeId: other.nodeId, generation: 1 }]);
  });

  it("leaves an assignment whose claim comment says it ended", () => {
    const shown = snapshot({
      assignees: [fleet, other],
      claimComments: [comment(1, { actor: { kind: "agent", login: other.login }, state: "released" })],
    });
    expect(supersededAppAssignees(agentRecord(), shown)).toEqual([]);
  });
});

describe("recordBeforeEnd", () => {
  it.each([
    ["reaped", 3, 2],
    ["revoked", 3, 2],
    ["released", 2, 2],
  ] as const)("a %s record of generation %i was in force as generation %i", (state, generation, before) => {
    const record = agentRecord({ state, generation, supersedes: 2 });
    expect(recordBeforeEnd(record)).toMatchObject({ state: "active", generation: before });
  });
});

describe("finishReclaimWrite", () => {
  it("takes the labels and the superseded agent's App-made assignment off and assigns the person", () => {
    const record = humanRecord({ generation: 3, appAssigned: true, sync: "pending" });
    const write = finishReclaimWrite(record, snapshot({ labels: [claimed] }), config);
    expect(write).toMatchObject({
      subjectNodeId: "I_3",
      removeLabels: [claimed],
      unassign: [fleet.nodeId],
      assign: [alice.nodeId],
    });
    expect(write.createClaimComment).toMatch(/claim-hold:v1/);
  });

  it("a /reclaim release removes only whom it recorded and who is still there", () => {
    const record = humanRecord({
      generation: 3,
      state: "released",
      appAssigned: false,
      releasedAssigneeNodeIds: [alice.nodeId, "U_gone"],
    });
    const write = finishReclaimWrite(
      record,
      snapshot({ assignees: [alice, other], claimComments: [comment(3, { state: "released" })] }),
      config,
    );
    expect(write.unassign).toEqual([alice.nodeId]);
    expect(write.assign).toBeUndefined();
  });
});
