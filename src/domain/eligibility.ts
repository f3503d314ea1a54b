// Whether `claims/next` may offer an indexed issue ("Eligible" in docs/reference/http-api.md#post-apiv1claimsnext--claim-the-best-free-issue): a pure function of its facts, its claim record and the filters.

import type { CandidateFacts } from "./candidate-facts.js";
import { missingCapabilities } from "./capabilities.js";
import type { ClaimRecord } from "./claim.js";
import { livenessOf } from "./liveness.js";

/** Why an issue is not offered; the queue view shows these codes, `queue_empty` counts them. */
export const skipReasons = [
  "closed",
  "filtered",
  "missingCapability",
  "exempt",
  "over-budget",
  "human",
  "held",
  "failing",
  "blocked",
  "sub-issues",
  "pr-open",
] as const;
export type SkipReason = (typeof skipReasons)[number];

/** What a pick asks for besides the repository's own `queue` config. */
export interface QueueFilter {
  /** The issue must carry all of these. */
  labels: string[];
  /** The issue must carry none of these. */
  excludeLabels: string[];
  /** Subjects the App never touches (`janitor.exemptLabels`). */
  exemptLabels: string[];
  /** A subject whose spend reached its budget, until a person removes the label (`labels.overBudget`). */
  overBudgetLabel: string;
  /** Labels starting with this name a capability the issue needs (`queue.capabilityPrefix`). */
  capabilityPrefix: string;
  /** The capabilities the caller declared (lower-case). */
  capabilities: readonly string[];
}

export interface EligibilityInput {
  /** The index's facts, or a confirming read's (then `state` says whether it is still open). */
  facts: Omit<CandidateFacts, "title" | "createdAt"> & { state?: "open" | "closed" };
  /** The subject's claim record in the store, if any. */
  record: ClaimRecord | null;
  /** Head branches of this subject's claims (the record's, its claim comments'): their PRs are its own work. */
  claimBranches: readonly string[];
  /** The picker's login: its own assignment is not somebody else's. */
  login: string;
  filter: QueueFilter;
  /** Reclaimable agent claims are offered too, to be taken over (resumed on their branch). */
  includeTakeovers: boolean;
  now: number;
  /** When the store's data began: a heartbeat before it counts as at it (invariant 7). */
  storeEpoch?: number;
  /** The subject's failure breaker (src/domain/failure-breaker.ts) is tripped or backing off. */
  failing?: boolean;
}

export type Eligibility = { eligible: true; takeover: boolean } | { eligible: false; reason: SkipReason };

const has = (labels: ReadonlySet<string>, label: string) => labels.has(label.toLowerCase());

/** The first reason in `skipReasons` order that keeps the issue out of the queue, or eligible (and whether as a takeover). */
export function eligibilityOf(input: EligibilityInput): Eligibility {
  const { facts, record, filter, now } = input;
  const skip = (reason: SkipReason): Eligibility => ({ eligible: false, reason });
  if (facts.state === "closed") return skip("closed");
  // GitHub's label names are case-insensitive.
  const labels = new Set(facts.labels.map((l) => l.toLowerCase()));
  if (!filter.labels.every((l) => has(labels, l)) || filter.excludeLabels.some((l) => has(labels, l))) {
    return skip("filtered");
  }
  const missing = missingCapabilities({
    labels: facts.labels,
    prefix: filter.capabilityPrefix,
    declared: filter.capabilities,
  });
  if (missing.length > 0) return skip("missingCapability");
  if (filter.exemptLabels.some((l) => has(labels, l))) return skip("exempt");
  if (has(labels, filter.overBudgetLabel)) return skip("over-budget");
  if (record?.state === "human") return skip("human");
  // Only the assignment the current claim's App write made is the App's; anyone else assigned holds it.
  const appMade = record?.state === "active" && record.appAssigned ? record.actor.login : null;
  if (facts.assignees.some((login) => login !== appMade && login !== input.login)) return skip("human");
  let takeover = false;
  if (record?.state === "active") {
    const liveness = livenessOf(record, now, input.storeEpoch ?? 0);
    const awaitingReview =
      record.branch !== undefined && facts.closingPullRequests.some((pr) => pr.headRefName === record.branch);
    if (liveness !== "expired" || !input.includeTakeovers || awaitingReview) return skip("held");
    takeover = true;
  }
  if (input.failing) return skip("failing");
  if (facts.blockers.length > 0) return skip("blocked");
  if (facts.openSubIssues > 0) return skip("sub-issues");
  const ours = new Set(input.claimBranches);
  if (facts.closingPullRequests.some((pr) => !ours.has(pr.headRefName))) return skip("pr-open");
  return { eligible: true, takeover };
}

/** The branches of a subject's claims a PR may come from and still be the subject's own work. */
export function claimBranchesOf(
  record: ClaimRecord | null,
  markerBranches: readonly (string | undefined)[] = [],
) {
  const branches = new Set<string>();
  if (record?.branch) branches.add(record.branch);
  for (const branch of markerBranches) if (branch) branches.add(branch);
  return [...branches];
}
