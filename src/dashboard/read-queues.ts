// The dashboard's queue panels: each repository's ranked queue with why-skipped, read the way the queue route reads it.
import type { QueueStore } from "../providers/queue-store.js";
import type { QueueView } from "../queue/queue-view.js";

/** A repository the fleet view knows, named as its records name it. */
export interface FleetRepository {
  installationId: number;
  repo: string;
}

export interface QueuePanel extends FleetRepository {
  /** False until the candidate index of the repository completed a refresh: the panel then shows no queue. */
  indexed: boolean;
  queue: QueueView["queue"];
  skipped: QueueView["skipped"];
  truncated: boolean;
  /** Why the queue could not be read (GitHub or the store down); the rest of the page still renders. */
  error: string | null;
}

export interface QueueReaderDeps {
  /** Only to tell an indexed repository from one never refreshed: the dashboard never starts a refresh. */
  store: Pick<QueueStore, "repoOf" | "refreshedAt">;
  /** The queue route's read (`QueuePicker.view` with nobody's own assignment exempted). */
  view: (installationId: number, repo: string, limit: number) => Promise<QueueView>;
  now: () => number;
}

/** Rows per panel (eligible and skipped each). */
export const queuePanelRows = 10;
/** The page refreshes every few seconds; a panel's read (which loads the repository's config) at most this often. */
export const queuePanelTtlMs = 10_000;

/** Reads each repository's panel, sharing one answer per repository for `queuePanelTtlMs`. */
export function createQueueReader(
  deps: QueueReaderDeps,
): (repos: FleetRepository[]) => Promise<QueuePanel[]> {
  const cache = new Map<string, { at: number; panel: Promise<QueuePanel> }>();
  const read = async ({ installationId, repo }: FleetRepository): Promise<QueuePanel> => {
    const empty = { installationId, repo, queue: [], skipped: [], truncated: false };
    try {
      const indexed = await deps.store.repoOf(installationId, repo);
      if (!indexed || (await deps.store.refreshedAt(indexed)) === null)
        return { ...empty, indexed: false, error: null };
      const view = await deps.view(installationId, repo, queuePanelRows);
      return { installationId, repo, indexed: true, ...view, error: null };
    } catch (error) {
      return { ...empty, indexed: true, error: error instanceof Error ? error.message : String(error) };
    }
  };
  return (repos) => {
    const now = deps.now();
    return Promise.all(
      repos.map((repository) => {
        const key = `${repository.installationId}:${repository.repo.toLowerCase()}`;
        const cached = cache.get(key);
        if (cached && now - cached.at < queuePanelTtlMs) return cached.panel;
        const panel = read(repository);
        cache.set(key, { at: now, panel });
        return panel;
      }),
    );
  };
}
