// The ranking part of a repository's `queue` config, and the default one.
import type { QueueRanking } from "../domain/queue-ranking.js";
import { defaultRepoConfig, type RepoConfig } from "./repo-config.js";

/** The ranking part of a repository's `queue` config. */
export function rankingOf(queue: RepoConfig["queue"]): QueueRanking {
  return { priority: queue.priority, order: queue.order };
}

/**
 * The default ranking (`queue.priority`, `queue.order` in
 * docs/reference/config.md#per-repository-githubclaim-holdyml): the one an index is scored by before any
 * pick named its repository's.
 */
export const defaultQueueRanking: QueueRanking = rankingOf(defaultRepoConfig.queue);
