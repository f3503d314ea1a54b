// Tables for the write fence's pure decisions (invariant 13) and the inert rendering of agent text (invariant 11).
import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { inert } from "../src/domain/inert-text.js";
import { claimStateUnknown } from "../src/lease/recovery/restore-from-comments.js";
import {
  desiredWrite,
  fenceOf,
  labelRepair,
  movedOn,
  rebaseWrite,
} from "../src/lease/transitions/fenced-writes.js";
import type { SubjectSnapshot } from "../src/providers/assignment-provider.js";
import { subjectSnapshot } from "./support/subject-snapshot.js";

const labels = { claimed: "agent:claimed", stale: "agent:stale" };

function record(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return {
    installationId: 42,
    repoId: 7,
    issue: 12,
    repo: "octo/widgets",
    generation: 3,
    state: "active",
    actor: { kind: "agent", login: "fleet-bot", runtime: "codex", sessionId: "s1" },
    taskClass: "author",
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    claimedAt: 1_000,
    lastHeartbeatAt: 1_000,
    appAssigned: true,
    assigneeNodeId: "U_bot",
    sync: "done",
    issueNodeId: "I_12",
    ...overrides,
  };
}

describe("desiredWrite: what GitHub should show for a record", () => {
  it.each([
    [
      "a live agent claim",
      record(),
      { addLabels: ["agent:claimed"], removeLabels: ["agent:stale"], assign: ["U_bot"] },
    ],
    [
      "a stale-marked claim",
      record({ staleMarkedAt: 2_000 }),
      { addLabels: ["agent:stale"], removeLabels: ["agent:claimed"], assign: ["U_bot"] },
    ],
    [
      "a claim on an assignment the App did not make",
      record({ appAssigned: false }),
      { addLabels: ["agent:claimed"], removeLabels: ["agent:stale"] },
    ],
    [
      "a human's claim the App assigned",
      record({ state: "human", actor: { kind: "human", login: "alice" }, assigneeNodeId: "U_alice" }),
      { removeLabels: ["agent:claimed", "agent:stale"], assign: ["U_alice"] },
    ],
    [
      "a released agent claim: only its recorded App-made assignee goes",
      record({ state: "released" }),
      { removeLabels: ["agent:claimed", "agent:stale"], unassign: ["U_bot"] },
    ],
    [
      "a /reclaim release: whoever is assigned by now stays (a person may have come after)",
      record({
        state: "released",
        actor: { kind: "human", login: "alice" },
        appAssigned: false,
        releasedAssigneeNodeIds: ["U_bot", "U_bob"],
      }),
      { removeLabels: ["agent:claimed", "agent:stale"] },
    ],
    [
      "a claim completed by closing the issue keeps its assignee",
      record({ state: "completed", endedBy: { kind: "human", login: "alice" } }),
      { removeLabels: ["agent:claimed", "agent:stale"] },
    ],
    [
      "a claim the agent itself completed unassigns",
      record({ state: "completed", endedBy: { kind: "agent", login: "fleet-bot" } }),
      { removeLabels: ["agent:claimed", "agent:stale"], unassign: ["U_bot"] },
    ],
  ])("%s", (_name, given, expected) => {
    expect(desiredWrite(given, labels, "I_12")).toEqual({ subjectNodeId: "I_12", ...expected });
  });

  it("edits the record's own claim comment to its marker state when the comment is known", () => {
    const write = desiredWrite(record({ commentNodeId: "IC_3", state: "reaped" }), labels, "I_12");
    expect(write.editComments?.map((e) => e.nodeId)).toEqual(["IC_3"]);
    expect(write.editComments?.[0]?.body).toContain('"state":"reaped"');
  });
});

describe("movedOn: is the store's record still the one a write was decided for?", () => {
  const fence = fenceOf(record(), labels);
  it.each([
    ["the same record", record(), false],
    ["no record", null, false],
    ["a newer generation", record({ generation: 4 }), true],
    ["the same generation, released", record({ state: "released" }), true],
    ["the same generation, marked stale since", record({ staleMarkedAt: 5 }), true],
    ["a heartbeat since (liveness is not state)", record({ lastHeartbeatAt: 9_999 }), false],
  ])("%s → %s", (_name, current, moved) => {
    expect(movedOn(current, fence)).toBe(moved);
  });
});

describe("rebaseWrite: a write decided for an older state re-aimed at the current record", () => {
  it("keeps another incarnation's comment edit and the audit comment, replaces labels, assignees and the current comment", () => {
    const older = record({ generation: 2, state: "released", commentNodeId: "IC_2" });
    const current = record({ generation: 3, commentNodeId: "IC_3" });
    const write = {
      subjectNodeId: "I_12",
      unassign: ["U_bot"],
      removeLabels: ["agent:claimed", "agent:stale"],
      editComments: [
        { nodeId: "IC_2", body: "released marker of generation 2" },
        { nodeId: "IC_3", body: "stale edit of generation 3" },
      ],
      addComments: ["📝 released generation 2"],
      fence: fenceOf(older, labels),
    };
    const rebased = rebaseWrite(write, current, fenceOf(older, labels));
    expect(rebased.unassign).toBeUndefined();
    expect(rebased).toMatchObject({
      assign: ["U_bot"],
      addLabels: ["agent:claimed"],
      removeLabels: ["agent:stale"],
    });
    expect(rebased.addComments).toEqual(["📝 released generation 2"]);
    expect(rebased.editComments?.map((e) => e.nodeId)).toEqual(["IC_2", "IC_3"]);
    expect(rebased.editComments?.[1]?.body).toContain('"generation":3');
    expect(rebased.fence).toBeUndefined();
  });
});

describe("labelRepair", () => {
  it.each([
    ["a live claim showing its label", record(), ["agent:claimed", "bug"], null],
    ["a live claim without its label", record(), ["bug"], { addLabels: ["agent:claimed"] }],
    [
      "a live claim labelled stale",
      record(),
      ["agent:stale"],
      { addLabels: ["agent:claimed"], removeLabels: ["agent:stale"] },
    ],
    [
      "a human claim under a managed label",
      record({ state: "human" }),
      ["agent:claimed"],
      { removeLabels: ["agent:claimed"] },
    ],
  ])("%s", (_name, given, shown, expected) => {
    expect(labelRepair(given, labels, shown)).toEqual(expected);
  });
});

function snapshot(overrides: Partial<SubjectSnapshot> = {}): SubjectSnapshot {
  return subjectSnapshot({ repoId: 7, repo: "octo/widgets", issue: 12, title: "x", ...overrides });
}

const marker = (state: "active" | "released") => ({
  nodeId: "IC_1",
  databaseId: 1,
  marker: {
    subject: "octo/widgets#12",
    generation: 1,
    state,
    actor: { kind: "agent" as const, login: "fleet-bot" },
    taskClass: "author" as const,
    claimedAt: "2026-01-01T00:00:00.000Z",
    ttlSeconds: 1800,
  },
});

describe("claimStateUnknown (invariant 12)", () => {
  it.each([
    ["nothing at all: never claimed", snapshot(), false],
    ["a label a person added, no claim comment", snapshot({ labels: ["agent:claimed"] }), true],
    ["an App marker that does not verify", snapshot({ rejectedMarkers: 1 }), true],
    ["claim audit comments with their claim comments gone", snapshot({ auditComments: 2 }), true],
    ["a thread not read back far enough", snapshot({ markerSearch: "truncated" }), true],
    [
      "a trusted live claim comment",
      snapshot({ claimComments: [marker("active")], labels: ["agent:claimed"] }),
      false,
    ],
    ["a trusted ended claim, no label", snapshot({ claimComments: [marker("released")] }), false],
    [
      "a trusted ended claim under a managed label",
      snapshot({ claimComments: [marker("released")], labels: ["agent:claimed"] }),
      true,
    ],
    [
      "a newer App claim comment that does not verify",
      snapshot({ claimComments: [marker("active")], rejectedMarkers: 1, rejectedAfterTrusted: 1 }),
      true,
    ],
  ])("%s → %s", (_name, given, unknown) => {
    expect(claimStateUnknown(given, ["agent:claimed", "agent:stale"])).toBe(unknown);
  });
});

describe("inert: agent text that can never act", () => {
  it.each([
    ["a marker", '<!-- claim-hold:v1 {"generation":9} -->', '\\<\\!-- claim-hold:v1 {"generation":9} --\\>'],
    ["a mention", "cc @alice", "cc @\u2060alice"],
    ["a team mention", "@octo/team", "@\u2060octo/team"],
    ["a link", "[x](https://e.example)", "\\[x\\](https://e.example)"],
    ["invisible and bidi characters", "a\u200bb\u202ec", "abc"],
    ["newlines in a one-line field", "a\nb", "a b"],
    ["an entity", "&#64;alice", "\\&\\#64;alice"],
  ])("%s", (_name, text, rendered) => {
    expect(inert(text)).toBe(rendered);
  });

  it("keeps a note's line breaks and cuts long text with an ellipsis", () => {
    expect(inert("a\nb", { multiline: true })).toBe("a\nb");
    expect(inert("x".repeat(400), { max: 300 })).toBe(`${"x".repeat(300)}…`);
  });
});
