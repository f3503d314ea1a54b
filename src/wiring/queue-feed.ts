// The candidate index's feed: the GitHub reads webhooks need and the bounded refresh, over the store; the Gitea instance's refresh beside it.
import type { Logger } from "pino";
import { maxBlockedRereads, type QueueFeedDeps } from "../handlers/queue-feed.js";
import {
  createGiteaQueueRefresh,
  type GiteaCandidateSource,
} from "../providers/gitea/gitea-candidate-source.js";
import type { GiteaClient } from "../providers/gitea/gitea-client.js";
import type { GiteaCollaboratorPermissions } from "../providers/gitea/gitea-collaborator-permissions.js";
import type { GiteaIssueTouch } from "../providers/gitea/gitea-webhook-events.js";
import type { GitHubCandidateSource } from "../providers/github/github-candidate-source.js";
import { createQueueRefresh } from "../providers/github/refresh-candidates.js";
import type { CandidateFeed, CandidateSource, QueueRefresh, QueueStore } from "../providers/queue-store.js";
import type { RefreshQueue } from "../queue/pick-next.js";

export function createQueueFeed(deps: {
  source: GitHubCandidateSource;
  store: CandidateFeed & Pick<QueueStore, "candidate">;
  now: () => number;
  log: Logger;
}): { feed: QueueFeedDeps; refresh: QueueRefresh; refreshByName: RefreshQueue } {
  const refresh = createQueueRefresh({
    source: deps.source,
    feed: deps.store,
    now: deps.now,
    log: deps.log.child({ component: "queue-refresh" }),
  });
  return {
    feed: { candidates: deps.store, source: deps.source },
    refresh,
    /** A miss of `claims/next` names the repository only: its id costs one read before the refresh. */
    refreshByName: async ({ installationId, repo, repoId: known }) => {
      const repoId = known ?? (await deps.source.repositoryId(installationId, repo));
      if (repoId === null) return null;
      const queueRepo = { installationId, repoId, repo };
      await refresh(queueRepo);
      return queueRepo;
    },
  };
}

/** The Gitea instance's candidate index: its bounded refresh and the refresh on a miss (the repository's id costs one read). */
export function createGiteaQueueFeed(deps: {
  client: GiteaClient;
  source: GiteaCandidateSource;
  store: CandidateFeed;
  now: () => number;
  log: Logger;
  /** The instance's shared collaborator permissions (closing pull request authors). */
  permissions: GiteaCollaboratorPermissions;
}): { refresh: QueueRefresh; refreshByName: RefreshQueue; source: GiteaCandidateSource } {
  const refresh = createGiteaQueueRefresh({
    client: deps.client,
    source: deps.source,
    feed: deps.store,
    now: deps.now,
    log: deps.log.child({ component: "queue-refresh", forge: "gitea" }),
    permissions: deps.permissions,
  });
  return {
    refresh,
    source: deps.source,
    refreshByName: async ({ installationId, repo, repoId: known }) => {
      const repoId = known ?? (await deps.source.repositoryId(repo));
      if (repoId === null) return null;
      const queueRepo = { installationId, repoId, repo };
      await refresh(queueRepo);
      return queueRepo;
    },
  };
}

export interface GiteaCandidateFeedDeps {
  store: CandidateFeed & Pick<QueueStore, "candidate" | "repoOf">;
  source: Pick<CandidateSource, "openBlockers" | "blockedIssues">;
}

/**
 * An `issues` delivery fed into the candidate index of a repository it holds (one never indexed is
 * refreshed by its first pick): a closed issue leaves it and blocks none of its issues any more; an
 * opened or reopened issue, or one the index does not hold, is put with its blockers read (1 Gitea
 * request); a reopened one blocks again, so the open issues it blocks are listed (1 request) and
 * the first `maxBlockedRereads` have their blockers read again (1 each), as GitHub's `read-blocked`
 * (Gitea's payload has no dependency summary, so the list is always read); any other change patches
 * the title, labels and assignees the payload carries (none).
 * Answers whether the index holds the repository.
 */
export async function feedGiteaCandidate(
  deps: GiteaCandidateFeedDeps,
  installationId: number,
  touch: GiteaIssueTouch,
): Promise<boolean> {
  const repo = await deps.store.repoOf(installationId, touch.repository.fullName);
  if (!repo) return false;
  if (touch.state === "closed") {
    await deps.store.dropCandidate(repo, touch.issue);
    await deps.store.dropBlocker(repo, `${repo.repo}#${touch.issue}`);
    return true;
  }
  const surface = { title: touch.title, labels: touch.labels, assignees: touch.assignees };
  const known = await deps.store.candidate(repo, touch.issue);
  if (known && touch.action !== "opened" && touch.action !== "reopened") {
    await deps.store.patchCandidate(repo, touch.issue, surface);
    return true;
  }
  await deps.store.putCandidate(repo, {
    issue: touch.issue,
    createdAt: touch.createdAt,
    ...surface,
    blockers: await deps.source.openBlockers(repo, touch.issue),
    openSubIssues: 0,
    closingPullRequests: known?.closingPullRequests ?? [],
  });
  if (touch.action === "reopened") {
    for (const issue of (await deps.source.blockedIssues(repo, touch.issue)).slice(0, maxBlockedRereads)) {
      await deps.store.patchCandidate(repo, issue, { blockers: await deps.source.openBlockers(repo, issue) });
    }
  }
  return true;
}
