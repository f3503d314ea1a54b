// Derives a subject's claim state (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory) from the store's record and GitHub's evidence; pure.
import type { DerivedState } from "../../contract/derived-states.js";
import type { ClaimRecord } from "../../domain/claim.js";
import { decideStall } from "../../domain/stall.js";

export { type DerivedState, derivedStates } from "../../contract/derived-states.js";

export interface OpenPullRequest {
  number: number;
  headRef: string;
  author: string;
}

/** Everything the derivation looks at; `null` means "GitHub was not read", never "empty". */
export interface SubjectEvidence {
  /** The store's record of the current (or last) incarnation; null when the store has none. */
  record: ClaimRecord | null;
  now: number;
  /** When the store's data began: before it, liveness is `unknown` (docs/deploy.md#7-when-redis-loses-its-data). */
  storeEpoch: number;
  /** Assignee logins on GitHub. */
  assignees: string[] | null;
  /** Label names on GitHub. */
  labels: string[] | null;
  /** `overBudget`, when given, adds the reason `over-budget` to a subject carrying it. */
  managedLabels: { claimed: string; stale: string; overBudget?: string };
  openPullRequests: OpenPullRequest[];
  /** Latest push to the holder's branch seen by GitHub (the record's own `lastPushAt` counts too). */
  lastPushAt?: number;
  /** Latest activity linked to a human-held subject (comments, pushes, PR events). */
  lastHumanActivityAt?: number;
  humanIdleDays: number;
  maxWaitMs: number;
  /** Whether the subject carries this incarnation's claim comment. */
  hasClaimComment: boolean | null;
  exemptLabels: string[];
}

export interface DerivedClaimState {
  state: DerivedState;
  /** Machine-readable kebab-case codes, most decisive first. */
  reasons: string[];
}

const dayMs = 86_400_000;

type AgentLiveness = DerivedClaimState & { live: boolean };

/**
 * Liveness of an agent record in force (`state: "active"`), before GitHub's evidence is weighed.
 * `live` marks the states in which the holder may still be working (active, waiting, unknown).
 */
function agentLiveness(record: ClaimRecord, evidence: SubjectEvidence): AgentLiveness {
  const { now, storeEpoch } = evidence;
  const { ttlMs, reclaimAfterMs } = record.durations;
  // A wait reported at a heartbeat counts as presence until it ends, capped at that heartbeat + maxWait.
  const waitEnd =
    record.waitUntil !== undefined
      ? Math.min(record.waitUntil, record.lastHeartbeatAt + evidence.maxWaitMs)
      : 0;
  const silent = now - Math.max(record.lastHeartbeatAt, waitEnd, storeEpoch);
  const heartbeat =
    silent < ttlMs ? "heartbeat-live" : silent < reclaimAfterMs ? "heartbeat-missed" : "heartbeat-expired";

  // The spec caps a wait "by config" but a cap at now + maxWait never bites in a pure derivation;
  // the wait was reported at a heartbeat, so it is capped at the last heartbeat + maxWait instead.
  if (record.waitUntil !== undefined) {
    const cap = record.lastHeartbeatAt + evidence.maxWaitMs;
    const waitUntil = Math.min(record.waitUntil, cap);
    // A reported wait holds whether or not heartbeats continue (the janitor does nothing "until
    // waitUntil"); it needs no telemetry, so it is decided before the store-epoch rule.
    if (waitUntil > now) {
      const reasons = ["wait-reported", heartbeat];
      if (record.waitUntil > cap) reasons.push("wait-capped");
      if (record.blocker) reasons.push("blocker-reported");
      if (record.needsHuman) reasons.unshift("needs-human");
      return { state: "waiting", reasons, live: true };
    }
  }

  if (record.lastHeartbeatAt < storeEpoch && now - storeEpoch < reclaimAfterMs) {
    return { state: "unknown", reasons: ["store-epoch-recent", ...prInfo(record, evidence)], live: true };
  }
  // Asking for a person keeps no one live by itself: it is `waiting` while the heartbeats go on.
  if (record.needsHuman && silent < ttlMs) {
    const reasons = ["needs-human", heartbeat];
    if (record.blocker) reasons.push("blocker-reported");
    return { state: "waiting", reasons, live: true };
  }
  if (silent < ttlMs) {
    // Heartbeating without progress for stallAfter: still the holder's, but stuck (docs/reference/http-api.md#stalled).
    const stall = decideStall(record, now);
    if (stall.stalledSince === null) return { state: "active", reasons: [heartbeat], live: true };
    const reasons = ["no-progress", heartbeat];
    if (stall.takeoverAllowed) reasons.push("takeover-allowed");
    // The App asks a person on its behalf (onStall needs-human): the dashboard's "needs you" lists it.
    if (record.stallAsk) reasons.push("needs-human");
    return { state: "stalled", reasons, live: true };
  }

  const prs = prInfo(record, evidence);
  // An open PR outranks the clock in both the stale and the reclaimable range: never reaped.
  if (prs.length > 0) return { state: "awaiting-review", reasons: [heartbeat, ...prs], live: false };
  if (silent < reclaimAfterMs) return { state: "stale", reasons: [heartbeat], live: false };

  const pushes = [evidence.lastPushAt, record.lastPushAt].filter((at): at is number => at !== undefined);
  const lastPush = pushes.length > 0 ? Math.max(...pushes) : undefined;
  // Past reclaimAfter but pushed to recently: not reclaimable, and `stale` is the nearest §2.2 row.
  if (lastPush !== undefined && now - lastPush < reclaimAfterMs) {
    return { state: "stale", reasons: [heartbeat, "recent-push"], live: false };
  }
  return {
    state: "reclaimable",
    reasons: [heartbeat, "no-open-pull-request", "no-recent-push"],
    live: false,
  };
}

/**
 * `open-pull-request` when a PR that counts is open from the holder's branch. The PR a heartbeat
 * reported counts only as such: naming someone else's PR keeps no stale claim alive
 * (docs/security.md#trust-model).
 */
function prInfo(record: ClaimRecord, evidence: SubjectEvidence): string[] {
  const open = evidence.openPullRequests.some(
    (pr) => record.branch !== undefined && pr.headRef === record.branch,
  );
  return open ? ["open-pull-request"] : [];
}

function humanState(evidence: SubjectEvidence, reasons: string[]): DerivedClaimState {
  const { record, now } = evidence;
  const activity = [evidence.lastHumanActivityAt, evidence.lastPushAt];
  if (record?.state === "human") activity.push(record.claimedAt, record.lastHeartbeatAt);
  const known = activity.filter((at): at is number => at !== undefined);
  // Without any activity evidence a human hold is never called idle.
  if (known.length > 0 && now - Math.max(...known) >= evidence.humanIdleDays * dayMs) {
    return { state: "human-idle", reasons: [...reasons, "human-inactive"] };
  }
  return { state: "human", reasons };
}

/**
 * The §2.2 state of one subject. Precedence, where the spec is silent:
 * 1. a managed label without an agent record in force is `phantom` (store loss or a failed release;
 *    with no record nobody can tell an assignee is the App's, so this outranks `human`);
 * 2. an agent record in force: while the holder may be live (active, waiting, unknown) a foreign
 *    assignee or a removed App-made assignee is `conflicted`; once it is not live a foreign assignee
 *    makes it `human` (a person picked up an abandoned issue); a record GitHub shows neither by
 *    label nor by claim comment is `phantom`; otherwise its liveness state;
 * 3. no agent record in force: a human claim or a foreign assignee is `human`/`human-idle`,
 *    nothing at all is `free`.
 * An exempt label changes no state; it adds `exempt-label` so the janitor leaves the subject alone.
 * The over-budget label changes none either; it adds `over-budget` (`claims/next` skips the subject).
 */
export function deriveState(evidence: SubjectEvidence): DerivedClaimState {
  const result = derive(evidence);
  const exempt = evidence.labels?.some((label) => evidence.exemptLabels.includes(label)) ?? false;
  const { overBudget } = evidence.managedLabels;
  const overSpent = overBudget !== undefined && (evidence.labels?.includes(overBudget) ?? false);
  if (!exempt && !overSpent) return result;
  const reasons = [...result.reasons];
  if (overSpent) reasons.push("over-budget");
  if (exempt) reasons.push("exempt-label");
  return { state: result.state, reasons };
}

function derive(evidence: SubjectEvidence): DerivedClaimState {
  const { record, assignees, labels, managedLabels } = evidence;
  const agent = record?.state === "active" ? record : null;
  const managed = labels?.filter((l) => l === managedLabels.claimed || l === managedLabels.stale) ?? [];

  if (!agent && managed.length > 0) return { state: "phantom", reasons: ["label-without-record"] };

  if (agent) {
    const liveness = agentLiveness(agent, evidence);
    // The holder's own login is never foreign while its claim is in force, even when it was
    // assigned before the claim (appAssigned false): claim and assignment name the same account.
    const foreign = assignees?.filter((login) => login !== agent.actor.login) ?? [];
    const unassigned = assignees !== null && agent.appAssigned && !assignees.includes(agent.actor.login);
    if (liveness.live && foreign.length > 0) {
      return { state: "conflicted", reasons: ["foreign-assignee", ...liveness.reasons] };
    }
    if (liveness.live && unassigned) {
      // `sync: pending` means the claim's own GitHub writes are not known to be done (a failed
      // mutation); once they were, a missing assignee is someone's deliberate unassignment.
      return agent.sync === "pending"
        ? { state: "phantom", reasons: ["assignee-missing", ...liveness.reasons] }
        : { state: "conflicted", reasons: ["agent-unassigned", ...liveness.reasons] };
    }
    if (foreign.length > 0) return humanState(evidence, ["foreign-assignee", ...liveness.reasons]);
    if (labels !== null && managed.length === 0 && evidence.hasClaimComment === false) {
      return { state: "phantom", reasons: ["record-without-label", ...liveness.reasons] };
    }
    const reasons = unassigned ? [...liveness.reasons, "agent-unassigned"] : liveness.reasons;
    return { state: liveness.state, reasons };
  }

  if (record?.state === "human") return humanState(evidence, ["human-claim"]);
  if (assignees === null) return { state: "free", reasons: ["github-not-read"] };
  // An ended record whose App-made assignee is still there: a release or reap that did not finish.
  const leftover = record?.appAssigned === true ? record.actor.login : undefined;
  if (leftover !== undefined && record?.sync === "pending" && assignees.includes(leftover)) {
    return { state: "phantom", reasons: ["assignee-without-record"] };
  }
  if (assignees.length > 0) return humanState(evidence, ["foreign-assignee"]);
  return { state: "free", reasons: ["no-claim"] };
}
