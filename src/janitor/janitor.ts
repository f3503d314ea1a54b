// The janitor sweep (README.md#keeping-github-and-the-store-in-step): due claims from the store's deadline index, one GitHub read each, then the action their derived state calls for.

import { stateOfSubject } from "../lease/reads/subject-state.js";
import { janitorHaltedNotification } from "../notify/notification-events.js";
import { subjectRefOf } from "../providers/assignment-provider.js";
import { applyPlanned, type PlannedSubject } from "./apply-due.js";
import { createJanitorPauses } from "./janitor-pauses.js";
import {
  type InstallationVisit,
  type ListedInstallations,
  listReason,
  lostInstallations,
  planVisit,
} from "./plan-installations.js";
import { exceedsDisruptionBudget, planSubject } from "./plan-sweep.js";
import { reconcileInstallation } from "./reconcile.js";
import type { JanitorDeps, SweepOptions, SweepReport, SweepRun } from "./sweep-types.js";

// What the Janitor is built with and what a sweep takes and answers, for its callers.
export type { JanitorDeps, SweepAction, SweepOptions, SweepReport } from "./sweep-types.js";

const reportDocument = "janitor:last-report";
const reportRetentionMs = 7 * 24 * 3_600_000;
const defaultMaxDuePerSweep = 500;

/**
 * One sweep:
 *   1. installationsToVisit — the store's installation set, or GitHub's list when the store lost it
 *      or a reconcile pass was asked for (plan-installations.ts decides which);
 *   2. per installation not paused by an operator (janitor-pauses.ts), planDue — each due claim read once from GitHub and planned by §2.2;
 *   3. holdBackMassReap — the disruption guard drops the reaps when too many are due at once;
 *   4. applyPlanned — the plan written within the write budget (apply-due.ts);
 *   5. reconcileInstallation — on a reconcile pass, labelled issues matched with the store (reconcile.ts);
 *   6. check evaluations that could not finish (GitHub or the store down) re-run (MergeFence.retryUnfinished);
 *   7. the report kept as a document and logged.
 */
export class Janitor {
  /** GitHub's list as this process last read it: what tells a lost store set from an App without installations. */
  #listed: ListedInstallations | null = null;

  constructor(private readonly deps: JanitorDeps) {}

  async sweep(options: SweepOptions = {}): Promise<SweepReport> {
    const started = this.deps.now();
    const report = emptyReport(started, options);
    const run: SweepRun = { deps: this.deps, options, report };
    const { requests } = await this.deps.measure(async () => {
      const { visit, reconcile } = await this.#installationsToVisit(options, started);
      report.installations = visit.length;
      report.reconciled = reconcile.length > 0 || report.reconciled;
      const pauses = createJanitorPauses(this.deps.stores.documents);
      const paused: number[] = [];
      for (const installationId of visit) {
        // A pause holds every sweep, the operator's too: resuming is the one way to let it act again.
        // Read just before the installation's turn, so a pause set while a long sweep runs holds it.
        if (await pauses.isPaused(installationId)) {
          paused.push(installationId);
          continue;
        }
        await this.#sweepInstallation(run, installationId);
        if (reconcile.includes(installationId)) {
          await this.deps.stores.installations.rememberInstallation(installationId);
          await reconcileInstallation(run, installationId);
        }
      }
      report.pausedInstallations = [...new Set(paused)].sort((a, b) => a - b);
      if (!options.dryRun && options.installationId === undefined) await this.deps.retryUnfinishedChecks?.();
    });
    report.githubRequests = requests;
    report.durationMs = this.deps.now() - started;
    if (!report.dryRun)
      await this.deps.stores.documents.putDocument(reportDocument, report, reportRetentionMs);
    const level = report.halted ? "warn" : "info";
    this.deps.log[level](
      { janitor: { ...report, actions: report.actions.length } },
      "janitor sweep finished",
    );
    return report;
  }

  async lastReport(): Promise<SweepReport | null> {
    return (await this.deps.stores.documents.getDocument(reportDocument)) as SweepReport | null;
  }

  /**
   * The store's installation set, unless it was lost (empty, no longer naming an installation GitHub
   * listed, or an installation's data begun again since): then, and on every reconcile pass, GitHub's
   * list is read and what the store lost is reconciled — a store loss is repaired by the next sweep,
   * not by whichever webhook happens to arrive.
   */
  async #installationsToVisit(options: SweepOptions, now: number): Promise<InstallationVisit> {
    const { stores } = this.deps;
    if (options.installationId !== undefined) {
      const only = [options.installationId];
      return { visit: only, reconcile: options.reconcile ? only : [] };
    }
    const stored = await stores.installations.installations();
    const epochs = new Map<number, number>();
    for (const id of this.#listed?.ids ?? []) {
      if (stored.includes(id)) epochs.set(id, await stores.claims.epoch(id, now));
    }
    const evidence = { reconcile: Boolean(options.reconcile), stored, listed: this.#listed, epochs };
    const reason = listReason(evidence);
    if (!reason) return { visit: stored, reconcile: [] };
    const lost = lostInstallations(evidence);
    const fetched = await this.deps.installations.listInstallations();
    // Every listed installation gets its epoch now, so a later epoch means its data began again.
    for (const id of fetched) await stores.claims.epoch(id, now);
    this.#listed = { ids: fetched, at: now };
    const plan = planVisit({ reconcile: Boolean(options.reconcile), stored, fetched, lost });
    if (reason !== "reconcile") {
      this.deps.log.warn(
        { reason, stored: stored.length, listed: fetched.length, reconciling: plan.reconcile },
        "the store lost installations: listed them from GitHub and reconciling them",
      );
    }
    return plan;
  }

  async #sweepInstallation(run: SweepRun, installationId: number): Promise<void> {
    const { stores } = this.deps;
    const now = this.deps.now();
    const due = await stores.index.due(
      installationId,
      now,
      this.deps.maxDuePerSweep ?? defaultMaxDuePerSweep,
    );
    if (due.length === 0) return;
    const epoch = await stores.claims.epoch(installationId, now);
    const active = await stores.index.activeCount(installationId);
    const planned = await this.#planDue(run, installationId, due, epoch);
    const toApply = holdBackMassReap(run, installationId, planned, active);
    await applyPlanned(run, toApply, epoch);
  }

  /** Each due claim still active: its repository's config, one GitHub read, and §2.2's action (or a skip). */
  async #planDue(
    run: SweepRun,
    installationId: number,
    due: PlannedSubject["key"][],
    epoch: number,
  ): Promise<PlannedSubject[]> {
    const { stores, assignments, configs } = this.deps;
    const { report } = run;
    const planned: PlannedSubject[] = [];
    for (const key of due) {
      const record = await stores.claims.get(key);
      if (record?.state !== "active") continue;
      report.examined++;
      const config = await configs.load(installationId, record.repo);
      if (!config.janitor.enabled) {
        report.skipped++;
        continue;
      }
      const snapshot = await assignments.status(
        subjectRefOf(record),
        record.branch ? { branch: record.branch } : {},
      );
      if (!snapshot) {
        report.skipped++;
        continue;
      }
      const derived = stateOfSubject(snapshot, record, epoch, this.deps.now(), config);
      const plan = planSubject(derived, record, config);
      if (plan) planned.push({ key, record, snapshot, config, plan });
      else report.skipped++;
    }
    return planned;
  }
}

function emptyReport(started: number, options: SweepOptions): SweepReport {
  return {
    at: new Date(started).toISOString(),
    installations: 0,
    examined: 0,
    actions: [],
    skipped: 0,
    halted: false,
    haltedInstallations: [],
    pausedInstallations: [],
    reconciled: Boolean(options.reconcile),
    dryRun: Boolean(options.dryRun),
    githubRequests: 0,
    durationMs: 0,
  };
}

/** Invariant 8: when the disruption guard trips, the installation's reaps are dropped and reported as halted. */
function holdBackMassReap(
  run: SweepRun,
  installationId: number,
  planned: PlannedSubject[],
  active: number,
): PlannedSubject[] {
  const { report } = run;
  const reaps = planned.filter((p) => p.plan.kind === "reap");
  const maxFraction = Math.min(...planned.map((p) => p.config.janitor.maxReapFraction), 1);
  if (!exceedsDisruptionBudget(reaps.length, active, maxFraction)) return planned;
  report.halted = true;
  report.haltedInstallations.push(installationId);
  run.deps.log.warn(
    { installationId, reaps: reaps.length, active },
    "janitor halted reaping: too many claims due at once (disruption guard)",
  );
  report.skipped += reaps.length;
  if (!run.options.dryRun) {
    run.deps.notifier?.emit(
      janitorHaltedNotification(
        {
          installationId,
          reaps: reaps.length,
          active,
          repos: [...new Set(reaps.map((p) => p.record.repo))],
          sweepAt: Date.parse(report.at),
        },
        reaps.map((p) => p.config),
      ),
    );
  }
  return planned.filter((p) => p.plan.kind !== "reap");
}
