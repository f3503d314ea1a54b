// A claim record rebuilt from its claim comment after the store lost it (docs/deploy.md#7-when-redis-loses-its-data).
import { describe, expect, it } from "vitest";
import type { ClaimMarker } from "../../src/lease/claim-comment.js";
import { recordFromMarker } from "../../src/lease/restore-from-comments.js";
import { subjectSnapshot } from "../support/subject-snapshot.js";

const key = { installationId: 42, repoId: 7, issue: 3 };
const fleet = { login: "fleet-bot", nodeId: "U_fleet" };
const alice = { login: "alice", nodeId: "U_alice" };

function marker(overrides: Partial<ClaimMarker>): ClaimMarker {
  return {
    subject: "octo/widgets#3",
    generation: 1,
    state: "active",
    actor: { kind: "agent", login: fleet.login, sessionId: "s" },
    taskClass: "author",
    claimedAt: "2026-12-01T10:00:00.000Z",
    ttlSeconds: 1800,
    ...overrides,
  } as ClaimMarker;
}

function restoredState(m: ClaimMarker, assignees: { login: string; nodeId: string }[]) {
  const snapshot = subjectSnapshot({ repoId: 7, repo: "octo/widgets", issue: 3, assignees });
  return recordFromMarker(key, snapshot, { nodeId: "IC_1", databaseId: 1, marker: m }, 0, 1_000).state;
}

describe("recordFromMarker", () => {
  it.each([
    [
      "an agent's live claim, its App-made assignment in place",
      marker({ appAssigned: true }),
      [fleet],
      "active",
    ],
    // Someone removed the assignment the App made: the claim was revoked, even if the revocation's
    // own write never reached GitHub before the store lost it.
    [
      "an agent's live claim whose App-made assignment is gone",
      marker({ appAssigned: true }),
      [alice],
      "revoked",
    ],
    [
      "an agent's live claim on an issue it was assigned before",
      marker({ appAssigned: false }),
      [],
      "active",
    ],
    [
      "an agent's stale claim whose App-made assignment is gone",
      marker({ state: "stale", appAssigned: true }),
      [],
      "revoked",
    ],
    [
      "a person's claim whose assignment is gone (the janitor never touches a person)",
      marker({ actor: { kind: "human", login: alice.login }, appAssigned: true }),
      [],
      "human",
    ],
    ["an agent's released claim", marker({ state: "released", appAssigned: true }), [], "released"],
  ] as const)("%s", (_, m, assignees, state) => {
    expect(restoredState(m, [...assignees])).toBe(state);
  });
});
