// Tables for the claim's pure decisions: which subject can be claimed, by whom, on which branch, and the store's refusals.
import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../../src/domain/claim.js";
import type { ClaimMarker } from "../../src/domain/claim-marker.js";
import {
  type ClaimDecision,
  decideClaim,
  overtakenRefusal,
  slugOf,
  storeRefusal,
  unclaimable,
} from "../../src/lease/claim/decide-claim.js";
import { latestMarker } from "../../src/lease/recovery/restore-from-comments.js";
import type { SubjectSnapshot } from "../../src/providers/assignment-provider.js";
import { subjectSnapshot } from "../support/subject-snapshot.js";

const claimant = { login: "fleet-bot", id: 1, nodeId: "U_fleet" };
const actor = { runtime: "codex", sessionId: "s1" };

function snapshot(overrides: Partial<SubjectSnapshot> = {}): SubjectSnapshot {
  return subjectSnapshot({
    repoId: 7,
    repo: "octo/widgets",
    issue: 12,
    title: "Fix the flaky widget test",
    ...overrides,
  });
}

function comment(marker: Partial<ClaimMarker> = {}): SubjectSnapshot["claimComments"][number] {
  return {
    nodeId: "IC_1",
    databaseId: 1,
    marker: {
      subject: "octo/widgets#12",
      generation: 1,
      state: "active",
      actor: { kind: "agent", login: "other-bot", sessionId: "s9" },
      taskClass: "author",
      branch: "agent/s9/12-earlier",
      claimedAt: "2026-01-01T00:00:00.000Z",
      ttlSeconds: 1800,
      appAssigned: true,
      ...marker,
    },
  };
}

const person = (login: string) => ({ login, nodeId: `U_${login}` });

interface DecideOptions {
  ghost?: boolean;
  branch?: string;
  /** Lower-cased fleet logins among the assignees. */
  fleet?: string[];
}

function decide(given: SubjectSnapshot, options: DecideOptions = {}): ClaimDecision {
  return decideClaim({
    request: { user: claimant, actor, ...(options.branch ? { branch: options.branch } : {}) },
    snapshot: given,
    latest: latestMarker(given),
    ghost: options.ghost ?? false,
    agentBranches: ["agent/**"],
    fleetAssignees: new Set(options.fleet ?? []),
  });
}

const plan = (branch: string, appAssigned: boolean): ClaimDecision => ({
  kind: "plan",
  plan: { actor: { kind: "agent", login: "fleet-bot", ...actor }, branch, appAssigned },
});

const humanHeld = (...assignees: string[]): ClaimDecision => ({
  kind: "refused",
  refusal: {
    code: "human_held",
    message: "octo/widgets#12 is assigned to someone the App did not assign.",
    details: { assignees },
  },
});

const defaultBranch = "agent/s1/12-fix-the-flaky-widget-test";

describe("decideClaim", () => {
  it.each<[string, SubjectSnapshot, DecideOptions, ClaimDecision]>([
    ["a free issue: the App assigns the claimant", snapshot(), {}, plan(defaultBranch, true)],
    [
      "the branch the claimant asked for wins",
      snapshot(),
      { branch: "agent/mine" },
      plan("agent/mine", true),
    ],
    [
      "a branch outside the agent globs is refused, naming them",
      snapshot(),
      { branch: "feature/login" },
      {
        kind: "refused",
        refusal: {
          code: "branch_not_allowed",
          message:
            'A claim\'s branch must match check.agentBranches (agent/**); "feature/login" does not. Nothing was claimed.',
          details: { branch: "feature/login", agentBranches: ["agent/**"] },
        },
      },
    ],
    [
      "a branch that heads another login's open PR is taken",
      snapshot({ openPullRequests: [{ number: 9, headRef: "agent/x/1", author: "bob" }] }),
      { branch: "agent/x/1" },
      {
        kind: "refused",
        refusal: {
          code: "branch_taken",
          message:
            'The branch "agent/x/1" is the head of @bob\'s open pull request #9; name a branch of your own. Nothing was claimed.',
          details: { branch: "agent/x/1", pullRequest: 9, author: "bob" },
        },
      },
    ],
    [
      "the claimant's own open PR on the branch does not take it",
      snapshot({ openPullRequests: [{ number: 9, headRef: "agent/x/1", author: "Fleet-Bot" }] }),
      { branch: "agent/x/1" },
      plan("agent/x/1", true),
    ],
    [
      "another PR closing the issue from another branch does not take this one",
      snapshot({ openPullRequests: [{ number: 9, headRef: "agent/y/1", author: "bob" }] }),
      { branch: "agent/x/1" },
      plan("agent/x/1", true),
    ],
    [
      "a fleet login assigned by hand is not a person's hold",
      snapshot({ assignees: [person("other-bot")] }),
      { fleet: ["other-bot"] },
      plan(defaultBranch, true),
    ],
    [
      "a fleet login and a person assigned: held by the person",
      snapshot({ assignees: [person("other-bot"), person("alice")] }),
      { fleet: ["other-bot"] },
      humanHeld("alice"),
    ],
    [
      "a rolled-back claim's assignment of a fleet login still holds: the App can neither claim over it nor remove it",
      snapshot({ assignees: [person("other-bot")], claimComments: [comment()] }),
      { ghost: true, fleet: ["other-bot"] },
      humanHeld("other-bot"),
    ],
    [
      "an earlier claim's branch off the agent globs is not resumed",
      snapshot({ claimComments: [comment({ state: "released", branch: "fix-1-parser" })] }),
      {},
      plan(defaultBranch, true),
    ],
    [
      "a person assigned: held by that person",
      snapshot({ assignees: [person("alice")] }),
      {},
      humanHeld("alice"),
    ],
    [
      "the claimant assigned itself: its assignment is not the App's to remove",
      snapshot({ assignees: [person("fleet-bot")] }),
      {},
      plan(defaultBranch, false),
    ],
    [
      "the claimant and a person assigned: only the person is named",
      snapshot({ assignees: [person("fleet-bot"), person("alice")] }),
      {},
      humanHeld("fleet-bot", "alice"),
    ],
    [
      "the App-made assignment of the claim in force does not hold the subject; its branch is resumed",
      snapshot({ assignees: [person("other-bot")], claimComments: [comment()] }),
      {},
      plan("agent/s9/12-earlier", true),
    ],
    [
      "an assignment the claim in force says a person made holds it",
      snapshot({ assignees: [person("other-bot")], claimComments: [comment({ appAssigned: false })] }),
      {},
      humanHeld("other-bot"),
    ],
    [
      "a rolled-back claim's App-made assignment of another login holds the subject",
      snapshot({ assignees: [person("other-bot")], claimComments: [comment()] }),
      { ghost: true },
      humanHeld("other-bot"),
    ],
    [
      "a rolled-back claim's App-made assignment of the claimant is taken over as App-made",
      snapshot({
        assignees: [person("fleet-bot")],
        claimComments: [comment({ actor: { kind: "agent", login: "fleet-bot", sessionId: "s0" } })],
      }),
      { ghost: true },
      plan("agent/s9/12-earlier", true),
    ],
    [
      "an ended claim's assignment is not the App's any more",
      snapshot({ assignees: [person("other-bot")], claimComments: [comment({ state: "released" })] }),
      {},
      humanHeld("other-bot"),
    ],
    [
      "a released claim's branch is resumed",
      snapshot({ claimComments: [comment({ state: "released" })] }),
      {},
      plan("agent/s9/12-earlier", true),
    ],
    [
      "a completed claim's branch is not",
      snapshot({ claimComments: [comment({ state: "completed" })] }),
      {},
      plan(defaultBranch, true),
    ],
  ])("%s", (_name, given, options, expected) => {
    expect(decide(given, options)).toEqual(expected);
  });
});

describe("unclaimable", () => {
  const request = { repo: "Octo/Widgets", issue: 12 };
  it.each([
    ["no such issue", null, { code: "not_found", message: "Octo/Widgets#12 is not an issue." }],
    [
      "a closed issue",
      snapshot({ state: "closed" }),
      { code: "closed", message: "octo/widgets#12 is closed." },
    ],
    ["an open issue", snapshot(), null],
  ])("%s", (_name, given, expected) => {
    expect(unclaimable(request, given)).toEqual(expected);
  });
});

describe("slugOf", () => {
  it.each([
    ["Fix the flaky widget test", "fix-the-flaky-widget-test"],
    ["  --Ünïcode & symbols!!  ", "n-code-symbols"],
    ["", "work"],
    ["!!!", "work"],
    [`${"a".repeat(39)} b`, "a".repeat(39)],
  ])("%j → %j", (title, slug) => {
    expect(slugOf(title)).toBe(slug);
  });
});

function record(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return {
    installationId: 42,
    repoId: 7,
    issue: 12,
    repo: "octo/widgets",
    generation: 3,
    state: "active",
    actor: { kind: "agent", login: "other-bot", sessionId: "s9" },
    taskClass: "author",
    claimedAt: 0,
    lastHeartbeatAt: 60_000,
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    tokenDigest: "d".repeat(64),
    appAssigned: true,
    sync: "done",
    ...overrides,
  };
}

describe("storeRefusal", () => {
  const subject = "octo/widgets#12";
  it("names a live holder, its state and when it becomes reclaimable", () => {
    expect(storeRefusal({ kind: "held", current: record() }, subject, 120_000)).toEqual({
      code: "held",
      message: "octo/widgets#12 is held by another session.",
      details: {
        holder: record().actor,
        generation: 3,
        state: "active",
        lastHeartbeatAt: "1970-01-01T00:01:00.000Z",
        reclaimableAt: new Date(60_000 + 3_600_000).toISOString(),
      },
    });
  });
  it("names a pending takeover", () => {
    const by = { kind: "agent" as const, login: "third-bot", sessionId: "s3" };
    const refusal = storeRefusal(
      { kind: "held", current: record(), takeoverPendingBy: by },
      subject,
      120_000,
    );
    expect(refusal.details).toMatchObject({ takeoverPendingBy: by });
  });
  it("names a human holder", () => {
    const human = record({ actor: { kind: "human", login: "alice" }, state: "human" });
    expect(storeRefusal({ kind: "human_held", current: human }, subject, 0)).toEqual({
      code: "human_held",
      message: "octo/widgets#12 is held by @alice.",
      details: { holder: { kind: "human", login: "alice" }, generation: 3 },
    });
  });
  it("names the cap reached", () => {
    expect(storeRefusal({ kind: "cap_reached", limit: "session", max: 2 }, subject, 0)).toEqual({
      code: "cap_reached",
      message: "This session already holds 2 live claim(s).",
      details: { limit: "session", max: 2 },
    });
  });
  it("answers an overtaken re-claim as held, with the holder when there is one", () => {
    expect(overtakenRefusal(subject, null, 0)).toEqual({
      code: "held",
      message: "octo/widgets#12 changed while this re-claim was written; claim again.",
      details: {},
    });
    expect(overtakenRefusal(subject, record(), 120_000).details).toMatchObject({
      generation: 3,
      state: "active",
    });
  });
});
