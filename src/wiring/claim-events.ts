// The claim events' fan-out: each transition's notifications queued, its live lease events published, and the merge fence's re-check run after it.
import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import { subjectName } from "../domain/claim.js";
import { type ClaimChange, changesHolder } from "../domain/claim-change.js";
import { type LeaseEventPublisher, leaseEventsOf, publishLeaseEvents } from "../lease/lease-events.js";
import type { ClaimEvents } from "../lease/transitions/claim-events.js";
import { notificationsFor } from "../notify/notifications-for.js";
import type { Notifier } from "../notify/notifier.js";

export interface ClaimEventsFanOut extends ClaimEvents {
  /** Resolves when every re-check started so far has finished (tests and shutdown wait on it; never a sleep). */
  settled(): Promise<void>;
}

/**
 * Fans a transition out: its notifications go to the outbox at once, and a change of holder re-runs
 * the checks of the pull requests linked to the subject. A re-check's failure is logged; the
 * fence's own retry of unfinished checks picks it up.
 */
export function createClaimEvents(deps: {
  notifier: Notifier;
  /** The merge fence's re-check of a subject's linked pull requests. */
  recheck: (change: ClaimChange) => Promise<unknown>;
  log: Logger;
  /** Where the holders' live streams hear of a lost lease; absent: nowhere. */
  leaseEvents?: LeaseEventPublisher;
}): ClaimEventsFanOut {
  const running = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    running.add(work);
    void work.finally(() => running.delete(work));
  };
  return {
    transitioned(change: ClaimChange, config: RepoConfig) {
      for (const notification of notificationsFor(change, config)) deps.notifier.emit(notification);
      const live = leaseEventsOf(change);
      if (live.length > 0) track(publishLeaseEvents(deps.leaseEvents, deps.log, live));
      if (!changesHolder(change)) return Promise.resolve();
      const recheck = (async () => {
        try {
          await deps.recheck(change);
        } catch (error) {
          deps.log.error(
            { subject: subjectName(change.record.repo, change.record.issue), err: error },
            "re-running the checks of linked pull requests failed",
          );
        }
      })();
      track(recheck);
      return recheck;
    },
    async settled() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
