// The candidate index's feed: the GitHub reads webhooks need and the bounded refresh, over the store; the Gitea instance's refresh beside it.
import type { Logger } from "pino";
import type { QueueFeedDeps } from "../handlers/queue-feed.js";
import {
  createGiteaQueueRefresh,
  type GiteaCandidateSource,
} from "../providers/gitea/gitea-candidate-source.js";
import type { GiteaClient } from "../providers/gitea/gitea-client.js";
import type { GitHubCandidateSource } from "../providers/github/github-candidate-source.js";
import { createQueueRefresh } from "../providers/github/refresh-candidates.js";
import type { CandidateFeed, QueueRefresh, QueueStore } from "../providers/queue-store.js";
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
}): { refresh: QueueRefresh; refreshByName: RefreshQueue; source: GiteaCandidateSource } {
  const refresh = createGiteaQueueRefresh({
    client: deps.client,
    source: deps.source,
    feed: deps.store,
    now: deps.now,
    log: deps.log.child({ component: "queue-refresh", forge: "gitea" }),
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
