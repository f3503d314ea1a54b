// The trust model's pure decisions as tables: who runs agents, which branches claims may name, whose PR counts, when an outage fails closed.
import { describe, expect, it } from "vitest";
import {
  actorKindOf,
  agentBranchPatterns,
  agentMayBeInvolved,
  associationCanWrite,
  branchMayLink,
  countsAsPerson,
  isAgentBranch,
  isFleetLogin,
  type OutagePullEvidence,
  permissionCanWrite,
  pullRequestCounts,
  ruleOnClaimBranch,
} from "../../src/domain/trust.js";

const patterns = ["agent/**"];

describe("isFleetLogin", () => {
  it.each([
    ["a Bot", { bot: true, learned: false, configured: [] }, true],
    ["a login that held an agent claim", { bot: false, learned: true, configured: [] }, true],
    [
      "a login the config lists, in another case",
      { bot: false, learned: false, configured: ["FLEET-BOT"] },
      true,
    ],
    ["a User with write and no claim", { bot: false, learned: false, configured: ["other"] }, false],
  ])("%s → %s", (_name, evidence, expected) => {
    expect(isFleetLogin({ login: "fleet-bot", ...evidence })).toBe(expected);
  });
});

describe("actorKindOf and countsAsPerson: who acted, and which acts only a person's count for", () => {
  it.each([
    [{ ownApp: true, fleet: false }, "app"],
    [{ ownApp: true, fleet: true }, "app"],
    [{ ownApp: false, fleet: true }, "fleet"],
    [{ ownApp: false, fleet: false }, "person"],
  ] as const)("%j → %s", (evidence, kind) => {
    expect(actorKindOf(evidence)).toBe(kind);
  });

  const acts = ["claim-removal", "needs-human-answer", "breaker-reset", "reclaim"] as const;
  it.each([
    ["app", [false, false, false, false]],
    ["fleet", [false, false, false, false]],
    ["person", [true, true, true, true]],
  ] as const)("%s: counts for %j", (kind, expected) => {
    expect(acts.map((act) => countsAsPerson(kind, act))).toEqual(expected);
  });
});

describe("agent branches", () => {
  it.each([
    ["agent/s1/12-fix", patterns, true],
    ["agent/x", patterns, true],
    ["feature/login", patterns, false],
    ["agentic/x", patterns, false],
    ["fix-1-parser", patterns, false],
    ["bots/s1/12", ["bots/*/**"], true],
  ])("%s under %j → %s", (branch, globs, expected) => {
    expect(isAgentBranch(branch, globs)).toBe(expected);
  });

  it("the older prefix joins the globs", () => {
    expect(agentBranchPatterns({ agentBranches: ["agent/**"], agentBranchPrefix: "bots/" })).toEqual([
      "agent/**",
      "bots/**",
    ]);
    expect(agentBranchPatterns({ agentBranches: ["agent/**"], agentBranchPrefix: "agent/" })).toEqual([
      "agent/**",
    ]);
  });
});

describe("ruleOnClaimBranch", () => {
  it.each([
    ["an agent branch nobody's PR heads", "agent/a/1", [], { kind: "allowed" }],
    ["a branch outside the globs", "feature/login", [], { kind: "not_allowed", patterns }],
    [
      "the claimant's own PR heads it",
      "agent/a/1",
      [{ number: 4, author: "Fleet-Bot" }],
      { kind: "allowed" },
    ],
    [
      "another login's PR heads it",
      "agent/a/1",
      [{ number: 4, author: "bob" }],
      { kind: "taken", pullRequest: 4, author: "bob" },
    ],
  ] as const)("%s", (_name, branch, openHeads, expected) => {
    expect(ruleOnClaimBranch({ branch, patterns, claimant: "fleet-bot", openHeads })).toEqual(expected);
  });
});

describe("PR standing", () => {
  it.each([
    [
      "a writer's PR from the repository",
      { headInBase: true, authorFleet: false, authorCanWrite: true },
      true,
    ],
    [
      "a fleet login's PR from the repository",
      { headInBase: true, authorFleet: true, authorCanWrite: false },
      true,
    ],
    ["a writer's PR from a fork", { headInBase: false, authorFleet: false, authorCanWrite: true }, false],
    [
      "a reader's PR from the repository",
      { headInBase: true, authorFleet: false, authorCanWrite: false },
      false,
    ],
  ])("%s → %s", (_name, evidence, expected) => {
    expect(pullRequestCounts(evidence)).toBe(expected);
  });

  it.each([
    ["OWNER", true],
    ["MEMBER", true],
    ["COLLABORATOR", true],
    ["CONTRIBUTOR", false],
    ["FIRST_TIME_CONTRIBUTOR", false],
    ["NONE", false],
    [null, false],
  ])("association %s → %s", (association, expected) => {
    expect(associationCanWrite(association)).toBe(expected);
  });

  it.each([
    ["admin", true],
    ["maintain", true],
    ["write", true],
    ["triage", false],
    ["read", false],
    ["none", false],
  ] as const)("permission %s → %s (Gitea's collaborator permission)", (permission, expected) => {
    expect(permissionCanWrite(permission)).toBe(expected);
  });

  it.each([
    ["a person's PR on an agent branch", "agent/a/1", false, true],
    ["a person's PR on another branch", "feature/x", false, false],
    ["a fleet login's PR on any branch", "fix-1", true, true],
  ])("%s may be linked through its branch: %s", (_name, headRef, authorFleet, expected) => {
    expect(branchMayLink({ headRef, patterns, authorFleet })).toBe(expected);
  });
});

describe("agentMayBeInvolved: fail closed on evidence while the store cannot be read", () => {
  const person: OutagePullEvidence = {
    author: { login: "bob", bot: false },
    authorFleet: false,
    headRef: "docs",
    linked: [],
  };
  const quiet = { managedLabel: false, appClaimComment: false };
  it.each([
    ["no PR known", [], true],
    ["a person's PR, no linked issue", [person], false],
    ["a person's PR, linked issues quiet", [{ ...person, linked: [quiet] }], false],
    ["a Bot's PR", [{ ...person, author: { login: "b[bot]", bot: true } }], true],
    ["a fleet login's PR", [{ ...person, authorFleet: true }], true],
    ["a PR on an agent branch", [{ ...person, headRef: "agent/a/1" }], true],
    [
      "a linked issue with a managed label",
      [{ ...person, linked: [{ ...quiet, managedLabel: true }] }],
      true,
    ],
    [
      "a linked issue with an App claim comment",
      [{ ...person, linked: [{ ...quiet, appClaimComment: true }] }],
      true,
    ],
    ["linked issues GitHub did not show", [{ ...person, linked: null }], true],
  ] satisfies [string, OutagePullEvidence[], boolean][])("%s → %s", (_name, pulls, expected) => {
    expect(agentMayBeInvolved(pulls, patterns)).toBe(expected);
  });
});
