// The janitor and its schedule: sweeps every interval (a reconcile every few), each counted in the metrics.

import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import { Janitor } from "../janitor/janitor.js";
import { JobRegistry } from "../janitor/job-registry.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { ClaimEvents } from "../lease/transitions/claim-events.js";
import type { ClaimHoldMetrics } from "../metrics/create-metrics.js";
import type { Notifier } from "../notify/notifier.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { InstallationSource } from "../providers/installation-source.js";
import type { QueueRefresh } from "../providers/queue-store.js";
import type { Stores } from "../providers/stores.js";
import type { RequestMeter } from "../request-meter.js";
import type { ClaimHoldOptions } from "./claim-hold-options.js";

type SweepOptions = Parameters<Janitor["sweep"]>[0];

export function createJanitorJobs(
  options: Pick<ClaimHoldOptions, "sleep" | "janitorIntervalSeconds" | "reconcileEvery" | "disabledJobs">,
  deps: {
    stores: Stores;
    assignments: AssignmentProvider;
    configs: RepoConfigSource;
    installations: InstallationSource;
    events: ClaimEvents;
    notifier: Notifier;
    retryUnfinishedChecks?: () => Promise<unknown>;
    meter: RequestMeter;
    metrics: ClaimHoldMetrics;
    now: () => number;
    log: Logger;
    refreshQueue?: QueueRefresh;
    fleet?: Pick<FleetLogins, "actorKind">;
  },
) {
  const { stores, metrics, meter, now, log } = deps;
  const janitor = new Janitor({
    stores,
    assignments: deps.assignments,
    configs: deps.configs,
    now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    log: log.child({ component: "janitor" }),
    installations: deps.installations,
    measure: (work) => meter.measure(work),
    events: deps.events,
    ...(deps.refreshQueue ? { refreshQueue: deps.refreshQueue } : {}),
    ...(deps.fleet ? { fleet: deps.fleet } : {}),
    notifier: deps.notifier,
    ...(deps.retryUnfinishedChecks ? { retryUnfinishedChecks: deps.retryUnfinishedChecks } : {}),
  });
  /** Every sweep (scheduled or operator-run) is counted in the metrics. */
  const observedSweep = async (sweepOptions: SweepOptions) => {
    try {
      const report = await janitor.sweep(sweepOptions);
      metrics.observeSweep(report);
      return report;
    } catch (error) {
      metrics.janitorSweeps.inc({ result: "failed" });
      throw error;
    }
  };
  const jobs = new JobRegistry({ store: stores.locks, log, now, disabled: options.disabledJobs ?? [] });
  let sweeps = 0;
  jobs.register({
    name: "janitor",
    intervalMs: (options.janitorIntervalSeconds ?? 300) * 1000,
    run: async () => {
      sweeps++;
      await observedSweep({ reconcile: sweeps % (options.reconcileEvery ?? 12) === 0 });
    },
  });
  return {
    janitor,
    jobs,
    /**
     * The operator's sweep runs under the scheduled job's run lock: it is the schedule's code path
     * (docs/reference/http-api.md#operator-and-operations).
     */
    operatorSweep: (sweepOptions: SweepOptions) => jobs.runNow("janitor", () => observedSweep(sweepOptions)),
  };
}
