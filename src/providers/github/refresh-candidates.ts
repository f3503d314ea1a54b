// The bounded refresh of a repository's candidate index: one paged listing, a few narrow reads, then one replace.

import type { Logger } from "pino";
import { mapBounded } from "../map-bounded.js";
import type {
  CandidateFacts,
  CandidateFeed,
  QueueRefresh,
  QueueRefreshReport,
  QueueRepo,
} from "../queue-store.js";
import type { GitHubCandidateSource } from "./github-candidate-source.js";
import { factsFromIssue, isPullRequest, openBlockerCount } from "./queue-facts.js";

export interface QueueRefreshDeps {
  source: Pick<GitHubCandidateSource, "listOpenItems" | "openPullRequestLinks" | "openBlockers">;
  feed: Pick<CandidateFeed, "replaceCandidates">;
  now: () => number;
  log?: Logger;
  /** Pages of 100 each listing reads at most (default 10: 1,000 open issues and pull requests). */
  maxPages?: number;
  /** Blocker lists read at once (default 4). */
  concurrency?: number;
}

export const defaultRefreshPages = 10;

/**
 * Refreshes one repository, costing `ceil(open issues and PRs / 100)` listing pages (≤ maxPages),
 * plus `ceil(open PRs / 100)` GraphQL pages only when the listing held a pull request, plus one
 * request per issue whose `issue_dependencies_summary` says it has open blockers.
 */
export function createQueueRefresh(deps: QueueRefreshDeps): QueueRefresh {
  const refresh = refreshOnce(deps);
  // Callers that miss together (a fleet's first picks) share one refresh per repository and process.
  const running = new Map<number, Promise<QueueRefreshReport>>();
  return (repo) => {
    const shared = running.get(repo.repoId);
    if (shared) return shared;
    const started = refresh(repo).finally(() => running.delete(repo.repoId));
    running.set(repo.repoId, started);
    return started;
  };
}

function refreshOnce(deps: QueueRefreshDeps): QueueRefresh {
  const maxPages = deps.maxPages ?? defaultRefreshPages;
  return async (repo: QueueRepo): Promise<QueueRefreshReport> => {
    // 1. The open issues and pull requests, oldest first, bounded.
    const listing = await deps.source.listOpenItems(repo, maxPages);
    const issues = listing.items.filter((item) => !isPullRequest(item));
    const pullRequestsListed = issues.length < listing.items.length;
    // 2. Which open PRs close which issues: GitHub's links, read only when an open PR exists.
    const links = pullRequestsListed
      ? await deps.source.openPullRequestLinks(repo, maxPages)
      : { byIssue: new Map(), requests: 0, truncated: false };
    // 3. The open blockers of the issues whose summary says they have some.
    const blocked = issues.filter((issue) => openBlockerCount(issue) > 0);
    const blockers = await mapBounded(blocked, deps.concurrency ?? 4, (issue) =>
      deps.source.openBlockers(repo, issue.number),
    );
    const blockersOf = new Map(blocked.map((issue, i) => [issue.number, blockers[i]!]));
    // 4. The index becomes exactly these issues.
    const facts: CandidateFacts[] = issues.map((issue) =>
      factsFromIssue(issue, {
        blockers: blockersOf.get(issue.number) ?? [],
        closingPullRequests: links.byIssue.get(issue.number) ?? [],
      }),
    );
    await deps.feed.replaceCandidates(repo, facts, deps.now());
    const report: QueueRefreshReport = {
      repo: repo.repo,
      candidates: facts.length,
      githubRequests: listing.requests + links.requests + blocked.length,
      truncated: listing.truncated || links.truncated,
    };
    if (report.truncated) {
      deps.log?.warn(
        { ...report, maxPages },
        "queue refresh stopped at its page cap: the index holds the oldest open issues only",
      );
    }
    return report;
  };
}
