import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { type DerivedState, deriveState, type SubjectEvidence } from "../src/lease/reads/derive-state.js";

const min = 60_000;
const day = 86_400_000;
const now = Date.parse("2025-03-01T12:00:00Z");
const ttl = 30 * min;
const reclaimAfter = 60 * min;
const branch = "agent/5f0c/12-fix-parser";

function agentRecord(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return {
    installationId: 1,
    repoId: 100,
    issue: 12,
    repo: "octo/repo",
    generation: 3,
    state: "active",
    actor: { kind: "agent", login: "bot-account", runtime: "claude-code", sessionId: "5f0c" },
    taskClass: "author",
    branch,
    durations: { ttlMs: ttl, reclaimAfterMs: reclaimAfter, heartbeatMs: 5 * min },
    claimedAt: now - 3 * 60 * min,
    lastHeartbeatAt: now - min,
    appAssigned: true,
    sync: "done",
    ...overrides,
  };
}

function humanRecord(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return agentRecord({
    state: "human",
    actor: { kind: "human", login: "alice" },
    branch: undefined,
    generation: 4,
    supersedes: 3,
    claimedAt: now - day,
    lastHeartbeatAt: now - day,
    ...overrides,
  });
}

/** A live agent claim as GitHub shows it after a successful claim. */
function evidence(overrides: Partial<SubjectEvidence> = {}): SubjectEvidence {
  return {
    record: agentRecord(),
    now,
    storeEpoch: now - 7 * day,
    assignees: ["bot-account"],
    labels: ["agent:claimed", "bug"],
    managedLabels: { claimed: "agent:claimed", stale: "agent:stale" },
    openPullRequests: [],
    humanIdleDays: 3,
    maxWaitMs: 24 * 60 * min,
    hasClaimComment: true,
    exemptLabels: ["claim-hold:pinned"],
    ...overrides,
  };
}

const silentFor = (ms: number) => agentRecord({ lastHeartbeatAt: now - ms });
const openPr = { number: 40, headRef: branch, author: "bot-account" };
const otherPr = { number: 41, headRef: "feature/other", author: "carol" };

interface Row {
  name: string;
  evidence: SubjectEvidence;
  state: DerivedState;
  reasons: string[];
}

const rows: Row[] = [
  // --- liveness of an agent claim, and its boundaries
  { name: "fresh heartbeat", evidence: evidence(), state: "active", reasons: ["heartbeat-live"] },
  {
    name: "silent 1 ms short of ttl",
    evidence: evidence({ record: silentFor(ttl - 1) }),
    state: "active",
    reasons: ["heartbeat-live"],
  },
  {
    name: "silent exactly ttl",
    evidence: evidence({ record: silentFor(ttl) }),
    state: "stale",
    reasons: ["heartbeat-missed"],
  },
  {
    name: "silent 1 ms short of reclaimAfter",
    evidence: evidence({ record: silentFor(reclaimAfter - 1) }),
    state: "stale",
    reasons: ["heartbeat-missed"],
  },
  {
    name: "silent exactly reclaimAfter, no PR, no push",
    evidence: evidence({ record: silentFor(reclaimAfter) }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },
  // --- progress (docs/reference/http-api.md#stalled): claimed 3 h ago, heartbeating
  {
    name: "heartbeating, no progress for stallAfter",
    evidence: evidence({ record: agentRecord({ stallAfterMs: 2 * 60 * min }) }),
    state: "stalled",
    reasons: ["no-progress", "heartbeat-live"],
  },
  {
    name: "heartbeating, no progress for stallAfter, onStall reclaimable",
    evidence: evidence({ record: agentRecord({ stallAfterMs: 2 * 60 * min, onStall: "reclaimable" }) }),
    state: "stalled",
    reasons: ["no-progress", "heartbeat-live", "takeover-allowed"],
  },
  {
    name: "heartbeating, pushed within stallAfter",
    evidence: evidence({ record: agentRecord({ stallAfterMs: 2 * 60 * min, lastPushAt: now - 60 * min }) }),
    state: "active",
    reasons: ["heartbeat-live"],
  },
  {
    name: "heartbeating without progress but asking for a person",
    evidence: evidence({ record: agentRecord({ stallAfterMs: 2 * 60 * min, needsHuman: true }) }),
    state: "waiting",
    reasons: ["needs-human", "heartbeat-live"],
  },
  {
    name: "silent past ttl and without progress: stale, not stalled",
    evidence: evidence({ record: agentRecord({ stallAfterMs: 2 * 60 * min, lastHeartbeatAt: now - ttl }) }),
    state: "stale",
    reasons: ["heartbeat-missed"],
  },
  {
    name: "stale with an open PR from the holder's branch",
    evidence: evidence({ record: silentFor(ttl), openPullRequests: [openPr] }),
    state: "awaiting-review",
    reasons: ["heartbeat-missed", "open-pull-request"],
  },
  {
    name: "past reclaimAfter with an open PR from the holder's branch",
    evidence: evidence({ record: silentFor(5 * reclaimAfter), openPullRequests: [openPr] }),
    state: "awaiting-review",
    reasons: ["heartbeat-expired", "open-pull-request"],
  },
  {
    name: "past reclaimAfter, the open PR is from another branch",
    evidence: evidence({ record: silentFor(reclaimAfter), openPullRequests: [otherPr] }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },
  {
    name: "past reclaimAfter, a PR the holder reported by number that is not from its branch keeps nothing alive",
    evidence: evidence({
      record: agentRecord({ lastHeartbeatAt: now - reclaimAfter, pullRequest: 41 }),
      openPullRequests: [otherPr],
    }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },
  {
    name: "a live claim with an open PR stays active",
    evidence: evidence({ openPullRequests: [openPr] }),
    state: "active",
    reasons: ["heartbeat-live"],
  },
  {
    name: "past reclaimAfter, pushed to the branch 1 ms inside reclaimAfter",
    evidence: evidence({ record: silentFor(2 * reclaimAfter), lastPushAt: now - reclaimAfter + 1 }),
    state: "stale",
    reasons: ["heartbeat-expired", "recent-push"],
  },
  {
    name: "past reclaimAfter, the record's own push is recent",
    evidence: evidence({
      record: agentRecord({ lastHeartbeatAt: now - 2 * reclaimAfter, lastPushAt: now - min }),
    }),
    state: "stale",
    reasons: ["heartbeat-expired", "recent-push"],
  },
  {
    name: "past reclaimAfter, last push exactly reclaimAfter ago",
    evidence: evidence({ record: silentFor(2 * reclaimAfter), lastPushAt: now - reclaimAfter }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },

  // --- needs-human (a heartbeat asked for a person)
  {
    name: "live holder asked for a person",
    evidence: evidence({ record: agentRecord({ needsHuman: true, blocker: "which API key?" }) }),
    state: "waiting",
    reasons: ["needs-human", "heartbeat-live", "blocker-reported"],
  },
  {
    name: "asked for a person and reported a wait",
    evidence: evidence({
      record: agentRecord({ needsHuman: true, blocker: "approve", waitUntil: now + 60 * min }),
    }),
    state: "waiting",
    reasons: ["needs-human", "wait-reported", "heartbeat-live", "blocker-reported"],
  },
  {
    name: "asked for a person, then went silent past ttl: the ask keeps no one live",
    evidence: evidence({ record: agentRecord({ needsHuman: true, lastHeartbeatAt: now - ttl }) }),
    state: "stale",
    reasons: ["heartbeat-missed"],
  },
  {
    name: "the ask was cleared by the next heartbeat",
    evidence: evidence({ record: agentRecord({ blocker: "which API key?" }) }),
    state: "active",
    reasons: ["heartbeat-live"],
  },
  {
    name: "an over-budget subject nobody holds",
    evidence: evidence({
      record: agentRecord({ state: "released", budgetExhausted: true, outcome: "abandoned" }),
      assignees: [],
      labels: ["agent:over-budget"],
      managedLabels: { claimed: "agent:claimed", stale: "agent:stale", overBudget: "agent:over-budget" },
    }),
    state: "free",
    reasons: ["no-claim", "over-budget"],
  },

  // --- waiting
  {
    name: "live holder reported a wait",
    evidence: evidence({ record: agentRecord({ waitUntil: now + 60 * min, blocker: "CI queue" }) }),
    state: "waiting",
    reasons: ["wait-reported", "heartbeat-live", "blocker-reported"],
  },
  {
    name: "silent past reclaimAfter but still inside its wait",
    evidence: evidence({
      record: agentRecord({ lastHeartbeatAt: now - 2 * reclaimAfter, waitUntil: now + min }),
    }),
    // The wait counts as presence: the ttl clock runs from the wait's end, like the store's.
    state: "waiting",
    reasons: ["wait-reported", "heartbeat-live"],
  },
  {
    name: "the wait ended exactly now: the ttl runs from its end",
    evidence: evidence({ record: agentRecord({ lastHeartbeatAt: now - 2 * reclaimAfter, waitUntil: now }) }),
    state: "active",
    reasons: ["heartbeat-live"],
  },
  {
    name: "the wait ended a reclaimAfter ago",
    evidence: evidence({
      record: agentRecord({ lastHeartbeatAt: now - 3 * reclaimAfter, waitUntil: now - reclaimAfter }),
    }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },
  {
    name: "a wait past maxWait is capped at the last heartbeat + maxWait (still in force)",
    evidence: evidence({
      record: agentRecord({ lastHeartbeatAt: now - min, waitUntil: now + 3 * day }),
    }),
    state: "waiting",
    reasons: ["wait-reported", "heartbeat-live", "wait-capped"],
  },
  {
    name: "a wait past maxWait is capped at the last heartbeat + maxWait (expired)",
    evidence: evidence({
      record: agentRecord({ lastHeartbeatAt: now - day - 2 * reclaimAfter, waitUntil: now + day }),
    }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },

  // --- store epoch (invariant 7)
  {
    name: "heartbeat predates an epoch younger than ttl",
    evidence: evidence({ record: silentFor(3 * day), storeEpoch: now - min }),
    state: "unknown",
    reasons: ["store-epoch-recent"],
  },
  {
    name: "heartbeat predates an epoch younger than reclaimAfter (would be stale)",
    evidence: evidence({ record: silentFor(3 * day), storeEpoch: now - reclaimAfter + 1 }),
    state: "unknown",
    reasons: ["store-epoch-recent"],
  },
  {
    name: "heartbeat predates an epoch exactly reclaimAfter old",
    evidence: evidence({ record: silentFor(3 * day), storeEpoch: now - reclaimAfter }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },
  {
    name: "heartbeat after a young epoch is judged normally",
    evidence: evidence({ record: silentFor(ttl), storeEpoch: now - ttl - 1 }),
    state: "stale",
    reasons: ["heartbeat-missed"],
  },
  {
    name: "unknown liveness with an open PR",
    evidence: evidence({ record: silentFor(day), storeEpoch: now - min, openPullRequests: [openPr] }),
    state: "unknown",
    reasons: ["store-epoch-recent", "open-pull-request"],
  },

  // --- human
  {
    name: "human claim from /reclaim",
    evidence: evidence({
      record: humanRecord({ claimedAt: now - min, lastHeartbeatAt: now - min }),
      assignees: ["alice"],
      labels: [],
    }),
    state: "human",
    reasons: ["human-claim"],
  },
  {
    name: "human assignee, no record",
    evidence: evidence({ record: null, assignees: ["alice"], labels: [], lastHumanActivityAt: now - day }),
    state: "human",
    reasons: ["foreign-assignee"],
  },
  {
    name: "human assignee, no record, no activity evidence is not idle",
    evidence: evidence({ record: null, assignees: ["alice"], labels: [] }),
    state: "human",
    reasons: ["foreign-assignee"],
  },
  {
    name: "human assignee after a released agent claim",
    evidence: evidence({
      record: agentRecord({ state: "released", endedAt: now - day }),
      assignees: ["alice"],
      labels: [],
      hasClaimComment: true,
    }),
    state: "human",
    reasons: ["foreign-assignee"],
  },
  {
    name: "human co-assignee on a stale agent claim",
    evidence: evidence({
      record: silentFor(ttl),
      assignees: ["bot-account", "alice"],
      lastHumanActivityAt: now - min,
    }),
    state: "human",
    reasons: ["foreign-assignee", "heartbeat-missed"],
  },
  {
    name: "human-held, no activity for exactly humanIdleDays",
    evidence: evidence({
      record: null,
      assignees: ["alice"],
      labels: [],
      lastHumanActivityAt: now - 3 * day,
    }),
    state: "human-idle",
    reasons: ["foreign-assignee", "human-inactive"],
  },
  {
    name: "human-held, last activity 1 ms inside humanIdleDays",
    evidence: evidence({
      record: null,
      assignees: ["alice"],
      labels: [],
      lastHumanActivityAt: now - 3 * day + 1,
    }),
    state: "human",
    reasons: ["foreign-assignee"],
  },
  {
    name: "human claim made long ago with no later activity",
    evidence: evidence({
      record: humanRecord({ claimedAt: now - 5 * day, lastHeartbeatAt: now - 5 * day }),
      assignees: ["alice"],
      labels: [],
    }),
    state: "human-idle",
    reasons: ["human-claim", "human-inactive"],
  },
  {
    name: "old human claim with a recent push",
    evidence: evidence({
      record: humanRecord({ claimedAt: now - 5 * day, lastHeartbeatAt: now - 5 * day }),
      assignees: ["alice"],
      labels: [],
      lastPushAt: now - day,
    }),
    state: "human",
    reasons: ["human-claim"],
  },
  {
    name: "the agent's own login assigned before the claim is not foreign",
    evidence: evidence({ record: agentRecord({ appAssigned: false }) }),
    state: "active",
    reasons: ["heartbeat-live"],
  },

  // --- conflicted
  {
    name: "human co-assignee on a live agent claim",
    evidence: evidence({ assignees: ["bot-account", "alice"] }),
    state: "conflicted",
    reasons: ["foreign-assignee", "heartbeat-live"],
  },
  {
    name: "human replaced the agent assignee on a live claim",
    evidence: evidence({ assignees: ["alice"] }),
    state: "conflicted",
    reasons: ["foreign-assignee", "heartbeat-live"],
  },
  {
    name: "human assignee while liveness is unknown (never treated as abandoned)",
    evidence: evidence({
      record: silentFor(day),
      storeEpoch: now - min,
      assignees: ["bot-account", "alice"],
    }),
    state: "conflicted",
    reasons: ["foreign-assignee", "store-epoch-recent"],
  },
  {
    name: "a human unassigned the agent from a live, synced claim",
    evidence: evidence({ assignees: [] }),
    state: "conflicted",
    reasons: ["agent-unassigned", "heartbeat-live"],
  },
  {
    name: "a human unassigned the agent from a stale claim",
    evidence: evidence({ record: silentFor(ttl), assignees: [] }),
    state: "stale",
    reasons: ["heartbeat-missed", "agent-unassigned"],
  },

  // --- phantom
  {
    name: "claimed label, no record (store loss)",
    evidence: evidence({ record: null, assignees: ["bot-account"] }),
    state: "phantom",
    reasons: ["label-without-record"],
  },
  {
    name: "stale label left by a released claim",
    evidence: evidence({
      record: agentRecord({ state: "released" }),
      assignees: [],
      labels: ["agent:stale"],
    }),
    state: "phantom",
    reasons: ["label-without-record"],
  },
  {
    name: "claimed label on a human claim whose /reclaim writes failed",
    evidence: evidence({ record: humanRecord({ sync: "pending" }), assignees: ["alice"] }),
    state: "phantom",
    reasons: ["label-without-record"],
  },
  {
    name: "live record, GitHub shows neither label nor claim comment",
    evidence: evidence({ labels: ["bug"], hasClaimComment: false }),
    state: "phantom",
    reasons: ["record-without-label", "heartbeat-live"],
  },
  {
    name: "record without label but with its claim comment is not phantom",
    evidence: evidence({ labels: ["bug"], hasClaimComment: true }),
    state: "active",
    reasons: ["heartbeat-live"],
  },
  {
    name: "record without label, comments not read: not phantom",
    evidence: evidence({ labels: [], hasClaimComment: null }),
    state: "active",
    reasons: ["heartbeat-live"],
  },
  {
    name: "stale label counts as the label",
    evidence: evidence({ record: silentFor(ttl), labels: ["agent:stale"], hasClaimComment: false }),
    state: "stale",
    reasons: ["heartbeat-missed"],
  },
  {
    name: "live claim whose assignment was never written",
    evidence: evidence({ record: agentRecord({ sync: "pending" }), assignees: [] }),
    state: "phantom",
    reasons: ["assignee-missing", "heartbeat-live"],
  },
  {
    name: "App-made assignee left after an unfinished release",
    evidence: evidence({ record: agentRecord({ state: "released", sync: "pending" }), labels: [] }),
    state: "phantom",
    reasons: ["assignee-without-record"],
  },
  {
    name: "same login assigned again after a finished release is a human's doing",
    evidence: evidence({ record: agentRecord({ state: "released", sync: "done" }), labels: [] }),
    state: "human",
    reasons: ["foreign-assignee"],
  },

  // --- free, unread GitHub, exemptions
  {
    name: "nothing anywhere",
    evidence: evidence({ record: null, assignees: [], labels: [] }),
    state: "free",
    reasons: ["no-claim"],
  },
  {
    name: "released claim, GitHub clean",
    evidence: evidence({ record: agentRecord({ state: "completed" }), assignees: [], labels: [] }),
    state: "free",
    reasons: ["no-claim"],
  },
  {
    name: "no record, GitHub not read",
    evidence: evidence({ record: null, assignees: null, labels: null, hasClaimComment: null }),
    state: "free",
    reasons: ["github-not-read"],
  },
  {
    name: "agent claim judged on the store alone when GitHub was not read",
    evidence: evidence({
      record: silentFor(reclaimAfter),
      assignees: null,
      labels: null,
      hasClaimComment: null,
    }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push"],
  },
  {
    name: "exempt label keeps the state and says so",
    evidence: evidence({ record: silentFor(reclaimAfter), labels: ["agent:claimed", "claim-hold:pinned"] }),
    state: "reclaimable",
    reasons: ["heartbeat-expired", "no-open-pull-request", "no-recent-push", "exempt-label"],
  },
];

describe("deriveState", () => {
  it.each(rows)("$name → $state", ({ evidence, state, reasons }) => {
    expect(deriveState(evidence)).toEqual({ state, reasons });
  });

  it("covers every derived state in the table", () => {
    const covered = new Set(rows.map((row) => row.state));
    expect([...covered].sort()).toEqual(
      [
        "active",
        "awaiting-review",
        "conflicted",
        "free",
        "human",
        "human-idle",
        "phantom",
        "reclaimable",
        "stale",
        "stalled",
        "unknown",
        "waiting",
      ].sort(),
    );
  });

  it("does not mutate its evidence", () => {
    const input = evidence({ assignees: ["bot-account", "alice"], openPullRequests: [openPr] });
    const copy = structuredClone(input);
    deriveState(input);
    expect(input).toEqual(copy);
  });
});
