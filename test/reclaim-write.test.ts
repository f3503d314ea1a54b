// `/reclaim` removes the App-made agent assignment even when the agent's record ended but its
// unassign never landed (`sync: pending`), or when the record lacks the assignee's node id.
import { describe, expect, it } from "vitest";
import { defaultRepoConfig } from "../src/config/repo-config.js";
import type { ClaimRecord } from "../src/domain/claim.js";
import { reclaimWrite } from "../src/handlers/reclaim-decision.js";
import type { SubjectSnapshot } from "../src/providers/assignment-provider.js";
import { subjectSnapshot } from "./support/subject-snapshot.js";

const snapshot: SubjectSnapshot = subjectSnapshot({
  repoId: 7001,
  repo: "octo/widgets",
  issue: 3,
  title: "Work item",
  assignees: [{ login: "fleet-bot", nodeId: "U_bot" }],
});

const agent: ClaimRecord = {
  installationId: 42,
  repoId: 7001,
  issue: 3,
  repo: "octo/widgets",
  generation: 1,
  state: "active",
  actor: { kind: "agent", login: "fleet-bot", runtime: "t", sessionId: "s" },
  taskClass: "author",
  durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
  claimedAt: 0,
  lastHeartbeatAt: 0,
  appAssigned: true,
  assigneeNodeId: "U_bot",
  sync: "done",
};

const human: ClaimRecord = {
  ...agent,
  generation: 2,
  state: "human",
  actor: { kind: "human", login: "alice" },
  appAssigned: true,
  assigneeNodeId: "U_alice",
  sync: "pending",
};

const write = (previous: ClaimRecord, snap = snapshot) =>
  reclaimWrite({
    snapshot: snap,
    previous,
    record: human,
    config: defaultRepoConfig,
    commenter: { login: "alice", nodeId: "U_alice" },
    assign: true,
    changes: [],
  });

describe("reclaimWrite: the App-made agent assignment", () => {
  it("is removed when the agent's release ended the record but its unassign failed (sync pending)", () => {
    const ended: ClaimRecord = { ...agent, state: "completed", sync: "pending", endedAt: 1 };
    expect(write(ended).unassign).toEqual(["U_bot"]);
  });

  it("is removed when a record restored from its comment has no assignee node id", () => {
    const { assigneeNodeId: _, ...restored } = agent;
    expect(write(restored).unassign).toEqual(["U_bot"]);
  });

  it("is left alone when the ended record was synced (a human assigned the login again)", () => {
    const ended: ClaimRecord = { ...agent, state: "completed", sync: "done", endedAt: 1 };
    expect(write(ended).unassign).toBeUndefined();
  });
});
