// The candidate index's feed: the GitHub reads webhooks need and the bounded refresh, over the store.
import type { Logger } from "pino";
import type { QueueFeedDeps } from "../handlers/queue-feed.js";
import type { GitHubCandidateSource } from "../providers/github/github-candidate-source.js";
import { createQueueRefresh } from "../providers/github/refresh-candidates.js";
import type { CandidateFeed, QueueRefresh, QueueStore } from "../providers/queue-store.js";

export function createQueueFeed(deps: {
  source: GitHubCandidateSource;
  store: CandidateFeed & Pick<QueueStore, "candidate">;
  now: () => number;
  log: Logger;
}): { feed: QueueFeedDeps; refresh: QueueRefresh } {
  const refresh = createQueueRefresh({
    source: deps.source,
    feed: deps.store,
    now: deps.now,
    log: deps.log.child({ name: "queue-refresh" }),
  });
  return {
    feed: { candidates: deps.store, source: deps.source },
    refresh,
  };
}
