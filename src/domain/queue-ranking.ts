// The queue's order (docs/reference/http-api.md#post-apiv1claimsnext--claim-the-best-free-issue): priority label rank, then `queue.order`, then issue number — and the score the store sorts by.
import type { CandidateFacts } from "./candidate-facts.js";

/**
 * How `claims/next` orders a repository's candidates
 * (docs/reference/http-api.md#post-apiv1claimsnext--claim-the-best-free-issue).
 */
export interface QueueRanking {
  /** Priority labels, most urgent first; an issue without one ranks after all of them. */
  priority: string[];
  order: "oldest" | "newest";
}

/** Index of the issue's most urgent priority label in `priority`; `priority.length` when it has none. */
export function priorityRankOf(labels: readonly string[], priority: readonly string[]): number {
  const index = priority.findIndex((label) => labels.includes(label));
  return index === -1 ? priority.length : index;
}

/** Creation times are below 2^42 ms (year 2109), so priority rank and time share one exact double. */
export const createdAtSpan = 2 ** 42;

/**
 * The sort score of a candidate: `rank · 2^42 + t`, with `t` the creation time (`oldest`) or its
 * mirror (`newest`). Equal scores are ordered by issue number, which the Redis store gets from its
 * members (zero-padded numbers, compared byte by byte) and `compareCandidates` from the number.
 * lua/includes/queue.lua computes the same score.
 */
export function rankingScore(
  facts: Pick<CandidateFacts, "labels" | "createdAt">,
  ranking: QueueRanking,
): number {
  const createdAt = Math.min(Math.max(0, Math.floor(facts.createdAt)), createdAtSpan - 1);
  const time = ranking.order === "oldest" ? createdAt : createdAtSpan - 1 - createdAt;
  return priorityRankOf(facts.labels, ranking.priority) * createdAtSpan + time;
}

/** The queue's order as a comparator: negative when `a` comes first. */
export function compareCandidates(ranking: QueueRanking) {
  return (a: CandidateFacts, b: CandidateFacts): number =>
    rankingScore(a, ranking) - rankingScore(b, ranking) || a.issue - b.issue;
}

/** Candidates in the queue's order (a new array). */
export function rankCandidates(
  candidates: readonly CandidateFacts[],
  ranking: QueueRanking,
): CandidateFacts[] {
  return [...candidates].sort(compareCandidates(ranking));
}

/** Why a candidate stands where it does: `priority:p0` (or `unprioritized`), then `oldest` or `newest`. */
export function rankingReasons(facts: Pick<CandidateFacts, "labels">, ranking: QueueRanking): string[] {
  const rank = priorityRankOf(facts.labels, ranking.priority);
  return [
    rank < ranking.priority.length ? `priority:${ranking.priority[rank]}` : "unprioritized",
    ranking.order,
  ];
}

/** The ranking as the store remembers it: one canonical string, so a change is a string inequality. */
export function rankingFingerprint(ranking: QueueRanking): string {
  return JSON.stringify({ priority: ranking.priority, order: ranking.order });
}
