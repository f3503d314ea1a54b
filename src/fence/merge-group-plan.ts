// Which pull requests a merge group holds, from the merge queue's entries and the group's ref (pure).

import type { QueueEntry } from "../domain/check-values.js";

export type QueuedPullRequest = NonNullable<QueueEntry["pullRequest"]>;

const queueRef = /^refs\/heads\/gh-readonly-queue\/(.+)\/pr-(\d+)-[0-9a-f]{40}$/;

/**
 * GitHub's merge group branch `gh-readonly-queue/<base>/pr-<N>-<sha>`: the base branch and the PR
 * whose entry the group was built for (the last PR of the group); null for any other ref.
 */
export function parseMergeGroupRef(headRef: string): { base: string; number: number } | null {
  const match = queueRef.exec(headRef);
  if (!match) return null;
  const number = Number(match[2]);
  return Number.isSafeInteger(number) && number > 0 ? { base: match[1]!, number } : null;
}

/**
 * The group's pull requests, in queue order: the entry whose group head is `headSha` (or, while
 * GitHub has not shown that head yet, the entry of the PR its ref names) and every entry ahead of
 * it — a group holds the base branch, the entries ahead and its own PR. Null when no entry matches.
 */
export function membersOfGroup(
  entries: QueueEntry[],
  group: { headSha: string; headRef: string },
): QueuedPullRequest[] | null {
  const sorted = [...entries].sort((a, b) => a.position - b.position);
  const named = parseMergeGroupRef(group.headRef)?.number;
  const own =
    sorted.find((e) => e.groupHeadSha === group.headSha) ??
    sorted.find((e) => named !== undefined && e.pullRequest?.number === named);
  if (!own?.pullRequest) return null;
  return sorted
    .filter((e) => e.position <= own.position)
    .flatMap((e) => (e.pullRequest ? [e.pullRequest] : []));
}
