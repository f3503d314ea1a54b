// Eligibility for claims/next as a table: every skip reason, its boundary, and the filters merged with the repository's queue config.
import { describe, expect, it } from "vitest";
import { defaultRepoConfig, RepoConfig } from "../../src/config/repo-config.js";
import type { ClaimRecord } from "../../src/domain/claim.js";
import {
  claimBranchesOf,
  type Eligibility,
  type EligibilityInput,
  eligibilityOf,
} from "../../src/domain/eligibility.js";
import { queueFilterOf } from "../../src/queue/queue-filter.js";

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };

function record(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return {
    installationId: 1,
    repoId: 7,
    issue: 12,
    repo: "acme/app",
    generation: 3,
    state: "active",
    actor: { kind: "agent", login: "fleet-bot", sessionId: "s1" },
    taskClass: "author",
    branch: "agent/s1/12-fix",
    durations,
    claimedAt: T0 - 10 * minute,
    lastHeartbeatAt: T0 - minute,
    appAssigned: true,
    sync: "done",
    ...overrides,
  };
}

const pr = (headRefName: string) => ({ number: 90, headRefName, author: "someone" });

function input(overrides: {
  facts?: Partial<EligibilityInput["facts"]>;
  record?: ClaimRecord | null;
  claimBranches?: string[];
  filter?: Partial<EligibilityInput["filter"]>;
  includeTakeovers?: boolean;
}): EligibilityInput {
  const record = overrides.record ?? null;
  return {
    facts: {
      issue: 12,
      labels: [],
      assignees: [],
      blockers: [],
      openSubIssues: 0,
      closingPullRequests: [],
      ...overrides.facts,
    },
    record,
    claimBranches: overrides.claimBranches ?? claimBranchesOf(record),
    login: "fleet-bot",
    filter: {
      labels: [],
      excludeLabels: [],
      exemptLabels: ["claim-hold:pinned"],
      overBudgetLabel: "agent:over-budget",
      capabilityPrefix: "needs:",
      capabilities: [],
      ...overrides.filter,
    },
    includeTakeovers: overrides.includeTakeovers ?? false,
    now: T0,
  };
}

const eligible: Eligibility = { eligible: true, takeover: false };
const skipped = (reason: string) => ({ eligible: false, reason });

describe("eligibilityOf", () => {
  const table: {
    name: string;
    input: EligibilityInput;
    expected: Eligibility | ReturnType<typeof skipped>;
  }[] = [
    { name: "an open, unassigned, unclaimed issue", input: input({}), expected: eligible },
    {
      name: "closed (a confirming read)",
      input: input({ facts: { state: "closed" } }),
      expected: skipped("closed"),
    },
    {
      name: "still open on the confirming read",
      input: input({ facts: { state: "open" } }),
      expected: eligible,
    },
    // held
    { name: "held: a live agent claim", input: input({ record: record() }), expected: skipped("held") },
    {
      name: "held: a stale claim (past ttl, before reclaimAfter)",
      input: input({ record: record({ lastHeartbeatAt: T0 - 59 * minute }) }),
      expected: skipped("held"),
    },
    {
      name: "held: a reclaimable claim without includeTakeovers",
      input: input({ record: record({ lastHeartbeatAt: T0 - 60 * minute }) }),
      expected: skipped("held"),
    },
    {
      name: "boundary: a reclaimable claim with includeTakeovers is offered as a takeover",
      input: input({ record: record({ lastHeartbeatAt: T0 - 60 * minute }), includeTakeovers: true }),
      expected: { eligible: true, takeover: true },
    },
    {
      name: "a stale claim is not offered even with includeTakeovers (one minute short)",
      input: input({ record: record({ lastHeartbeatAt: T0 - 59 * minute }), includeTakeovers: true }),
      expected: skipped("held"),
    },
    {
      name: "held: a reclaimable claim whose branch has an open PR is awaiting review, never taken",
      input: input({
        record: record({ lastHeartbeatAt: T0 - 90 * minute }),
        facts: { closingPullRequests: [pr("agent/s1/12-fix")] },
        includeTakeovers: true,
      }),
      expected: skipped("held"),
    },
    {
      name: "held: a waiting holder is live until its waitUntil",
      input: input({
        record: record({ lastHeartbeatAt: T0 - 90 * minute, waitUntil: T0 + minute }),
        includeTakeovers: true,
      }),
      expected: skipped("held"),
    },
    {
      name: "boundary: a released claim holds nothing",
      input: input({ record: record({ state: "released", outcome: "handoff" }) }),
      expected: eligible,
    },
    // human
    {
      name: "human: a human claim (/reclaim)",
      input: input({ record: record({ state: "human" }) }),
      expected: skipped("human"),
    },
    {
      name: "human: an assignee the App did not assign",
      input: input({ facts: { assignees: ["alice"] } }),
      expected: skipped("human"),
    },
    {
      name: "human: someone assigned beside a live claim's App-made assignment",
      input: input({
        facts: { assignees: ["fleet-bot", "alice"] },
        record: record({ actor: { kind: "agent", login: "other-bot" } }),
      }),
      expected: skipped("human"),
    },
    {
      name: "boundary: the App-made assignment of a live claim is the claim (held, not human)",
      input: input({
        facts: { assignees: ["other-bot"] },
        record: record({ actor: { kind: "agent", login: "other-bot" } }),
      }),
      expected: skipped("held"),
    },
    {
      name: "human: the claimant's own assignment, when the claimant assigned itself, is not the App's",
      input: input({
        facts: { assignees: ["other-bot"] },
        record: record({ actor: { kind: "agent", login: "other-bot" }, appAssigned: false }),
      }),
      expected: skipped("human"),
    },
    {
      name: "boundary: the picker's own login assigned is no one else's",
      input: input({ facts: { assignees: ["fleet-bot"] } }),
      expected: eligible,
    },
    // exempt
    {
      name: "exempt: a janitor.exemptLabels label (any case)",
      input: input({ facts: { labels: ["Claim-Hold:Pinned"] } }),
      expected: skipped("exempt"),
    },
    // failing (the failure breaker, src/domain/failure-breaker.ts, decides `failing`)
    {
      name: "failing: the breaker is tripped or backing off",
      input: { ...input({}), failing: true },
      expected: skipped("failing"),
    },
    {
      name: "failing comes after held: a held issue is held",
      input: { ...input({ record: record() }), failing: true },
      expected: skipped("held"),
    },
    {
      name: "failing comes before blocked",
      input: { ...input({ facts: { blockers: ["acme/app#9"] } }), failing: true },
      expected: skipped("failing"),
    },
    {
      name: "failing: false changes nothing",
      input: { ...input({}), failing: false },
      expected: eligible,
    },
    // blocked
    {
      name: "blocked: an open blocker",
      input: input({ facts: { blockers: ["acme/app#3"] } }),
      expected: skipped("blocked"),
    },
    {
      name: "boundary: blocker closed (dropped from the facts)",
      input: input({ facts: { blockers: [] } }),
      expected: eligible,
    },
    // sub-issues
    {
      name: "a tracking issue with an open sub-issue",
      input: input({ facts: { openSubIssues: 1 } }),
      expected: skipped("sub-issues"),
    },
    // pr-open
    {
      name: "pr-open: an open PR from someone else's branch closes it",
      input: input({ facts: { closingPullRequests: [pr("feature/alice")] } }),
      expected: skipped("pr-open"),
    },
    {
      name: "boundary: the open PR comes from this subject's claim branch (a handed-off claim)",
      input: input({
        facts: { closingPullRequests: [pr("agent/s1/12-fix")] },
        record: record({ state: "released", outcome: "handoff" }),
      }),
      expected: eligible,
    },
    {
      name: "boundary: a PR from an earlier claim's branch (a claim comment's) is ours too",
      input: input({
        facts: { closingPullRequests: [pr("agent/s0/12-first")] },
        claimBranches: ["agent/s0/12-first"],
      }),
      expected: eligible,
    },
    {
      name: "boundary: PR closed (no open closing PR)",
      input: input({ facts: { closingPullRequests: [] } }),
      expected: eligible,
    },
    // filters
    {
      name: "filtered: lacks one of the labels asked for",
      input: input({ facts: { labels: ["agent-ready"] }, filter: { labels: ["agent-ready", "backend"] } }),
      expected: skipped("filtered"),
    },
    {
      name: "boundary: carries every label asked for (any case)",
      input: input({
        facts: { labels: ["Agent-Ready", "backend"] },
        filter: { labels: ["agent-ready", "backend"] },
      }),
      expected: eligible,
    },
    {
      name: "filtered: carries an excluded label",
      input: input({ facts: { labels: ["needs-design"] }, filter: { excludeLabels: ["needs-design"] } }),
      expected: skipped("filtered"),
    },
    // missingCapability
    {
      name: "missingCapability: needs gpu, the caller declared nothing",
      input: input({ facts: { labels: ["needs:gpu"] } }),
      expected: skipped("missingCapability"),
    },
    {
      name: "missingCapability: needs gpu and python, the caller declared only gpu",
      input: input({ facts: { labels: ["needs:gpu", "needs:python"] }, filter: { capabilities: ["gpu"] } }),
      expected: skipped("missingCapability"),
    },
    {
      name: "boundary: the caller declares every capability the issue needs (label in any case)",
      input: input({
        facts: { labels: ["Needs:GPU", "needs:python"] },
        filter: { capabilities: ["gpu", "python", "rust"] },
      }),
      expected: eligible,
    },
    {
      name: "the repository's own prefix (queue.capabilityPrefix); the default one then means nothing",
      input: input({
        facts: { labels: ["requires/gpu", "needs:python"] },
        filter: { capabilityPrefix: "requires/", capabilities: ["python"] },
      }),
      expected: skipped("missingCapability"),
    },
    {
      name: "boundary: a label that is only the prefix needs nothing",
      input: input({ facts: { labels: ["needs:"] } }),
      expected: eligible,
    },
    // over-budget
    {
      name: "over-budget: the budget label",
      input: input({ facts: { labels: ["agent:over-budget"] } }),
      expected: skipped("over-budget"),
    },
    {
      name: "over-budget: the repository's own name for the budget label (labels.overBudget)",
      input: input({ facts: { labels: ["Spent"] }, filter: { overBudgetLabel: "spent" } }),
      expected: skipped("over-budget"),
    },
    {
      name: "over-budget: the default name means nothing once the repository renamed the label",
      input: input({ facts: { labels: ["agent:over-budget"] }, filter: { overBudgetLabel: "spent" } }),
      expected: eligible,
    },
    // order of reasons
    {
      name: "a filtered issue counts as filtered, whatever else keeps it out",
      input: input({
        facts: { labels: ["needs-design"], blockers: ["acme/app#1"] },
        filter: { excludeLabels: ["needs-design"] },
        record: record(),
      }),
      expected: skipped("filtered"),
    },
    {
      name: "an issue the caller cannot work on counts as missingCapability before held",
      input: input({ facts: { labels: ["needs:gpu"] }, record: record() }),
      expected: skipped("missingCapability"),
    },
    {
      name: "a held issue counts as held before its blockers",
      input: input({ facts: { blockers: ["acme/app#1"] }, record: record() }),
      expected: skipped("held"),
    },
  ];

  it.each(table)("$name", ({ input, expected }) => {
    expect(eligibilityOf(input)).toEqual(expected);
  });
});

describe("queueFilterOf", () => {
  it("merges the request's filters with the repository's queue config and takes the exempt labels", () => {
    const config = RepoConfig.parse({
      queue: { labels: ["agent-ready"], excludeLabels: ["wontfix"] },
      janitor: { exemptLabels: ["pinned"] },
      labels: { overBudget: "spent" },
    });
    expect(
      queueFilterOf(config, {
        labels: ["backend", "agent-ready"],
        excludeLabels: ["needs-design"],
        capabilities: ["GPU", "gpu", "python"],
      }),
    ).toEqual({
      labels: ["agent-ready", "backend"],
      excludeLabels: ["wontfix", "needs-design"],
      exemptLabels: ["pinned"],
      overBudgetLabel: "spent",
      capabilityPrefix: "needs:",
      capabilities: ["gpu", "python"],
    });
    expect(queueFilterOf(defaultRepoConfig)).toEqual({
      labels: [],
      excludeLabels: [],
      exemptLabels: ["claim-hold:pinned"],
      overBudgetLabel: "agent:over-budget",
      capabilityPrefix: "needs:",
      capabilities: [],
    });
  });
});
