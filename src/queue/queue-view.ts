// What a pick or a queue view reports besides its issue: the skip counts of `queue_empty` and the rows the queue view shows.
import { missingCapabilities } from "../domain/capabilities.js";
import type { QueueFilter, SkipReason } from "../domain/eligibility.js";
import type { CandidateFacts } from "../providers/queue-store.js";

/**
 * What `queue_empty` counts (docs/reference/http-api.md#post-apiv1claimsnext--claim-the-best-free-issue),
 * plus `reserved`: eligible, but taken by a concurrent pick.
 */
export type SkippedCounts = Record<
  | "held"
  | "human"
  | "blocked"
  | "prOpen"
  | "filtered"
  | "missingCapability"
  | "failing"
  | "exempt"
  | "overBudget"
  | "subIssues"
  | "closed"
  | "reserved",
  number
>;

export const skippedCountKey: Record<SkipReason, keyof SkippedCounts> = {
  held: "held",
  human: "human",
  blocked: "blocked",
  "pr-open": "prOpen",
  filtered: "filtered",
  missingCapability: "missingCapability",
  failing: "failing",
  exempt: "exempt",
  "over-budget": "overBudget",
  "sub-issues": "subIssues",
  closed: "closed",
};

export function noneSkipped(): SkippedCounts {
  return {
    held: 0,
    human: 0,
    blocked: 0,
    prOpen: 0,
    filtered: 0,
    missingCapability: 0,
    failing: 0,
    exempt: 0,
    overBudget: 0,
    subIssues: 0,
    closed: 0,
    reserved: 0,
  };
}

export interface QueueRow {
  issue: number;
  title: string;
  rank: number;
  reasons: string[];
}

export interface SkippedRow {
  issue: number;
  reason: SkipReason;
  /** With `missingCapability`: the capabilities the issue needs that the caller did not declare. */
  missing?: string[];
}

export interface QueueView {
  queue: QueueRow[];
  skipped: SkippedRow[];
  truncated: boolean;
}

export function skippedRow(facts: CandidateFacts, reason: SkipReason, filter: QueueFilter): SkippedRow {
  if (reason !== "missingCapability") return { issue: facts.issue, reason };
  const missing = missingCapabilities({
    labels: facts.labels,
    prefix: filter.capabilityPrefix,
    declared: filter.capabilities,
  });
  return { issue: facts.issue, reason, missing };
}
