// A direct claim's open blockers, known before it decides (docs/reference/config.md `queue.maxIndexAge`).
import type { Logger } from "pino";
import type { CandidateSource, QueueRefresh, QueueRepo, QueueStore } from "../providers/queue-store.js";

export interface DirectClaimBlockersDeps {
  index: Pick<QueueStore, "candidate" | "indexedCandidate">;
  refresh: QueueRefresh;
  source: Pick<CandidateSource, "openBlockers">;
  now: () => number;
  log: Logger;
}

/**
 * The open blockers of `issue`, from an index no older than `maxIndexAgeMs`: a repository whose
 * index was never refreshed, or too long ago, is refreshed first (bounded; one refresh per
 * repository at a time); an issue the fresh index still does not know has its `blocked_by` list
 * read once over REST. The steady state (a fresh index that knows the issue) asks GitHub nothing.
 */
/** After a refresh failed, claims on that repository wait this long before one is tried again. */
const refreshBackoffMs = 60_000;

export class DirectClaimBlockers {
  readonly #refreshing = new Map<string, Promise<unknown>>();
  /** Repository → when its last refresh failed. */
  readonly #failedAt = new Map<string, number>();

  constructor(private readonly deps: DirectClaimBlockersDeps) {}

  async of(repo: QueueRepo, issue: number, maxIndexAgeMs: number): Promise<string[]> {
    const { index, source, now } = this.deps;
    // The steady state is one store read: a fresh index's facts of the issue.
    const indexed = await index.indexedCandidate(repo, issue);
    const { refreshedAt } = indexed;
    const failedAt = this.#failedAt.get(idOf(repo));
    const backingOff = failedAt !== undefined && now() - failedAt < refreshBackoffMs;
    let facts = indexed.candidate;
    if ((refreshedAt === null || now() - refreshedAt > maxIndexAgeMs) && !backingOff) {
      await this.#refresh(repo);
      facts = await index.candidate(repo, issue);
    }
    if (facts) return facts.blockers;
    return source.openBlockers(repo, issue);
  }

  async #refresh(repo: QueueRepo): Promise<void> {
    const id = idOf(repo);
    let running = this.#refreshing.get(id);
    if (!running) {
      running = this.deps.refresh(repo).finally(() => this.#refreshing.delete(id));
      this.#refreshing.set(id, running);
    }
    try {
      await running;
      this.#failedAt.delete(id);
    } catch (error) {
      this.#failedAt.set(id, this.deps.now());
      // The subject's own blocked_by read (below) still answers for this claim.
      this.deps.log.warn({ repo: repo.repo, err: error }, "queue index not refreshed before a direct claim");
    }
  }
}

function idOf(repo: QueueRepo): string {
  return `${repo.installationId}:${repo.repoId}`;
}
