// The janitor sweep (SPEC §6): due claims from the store's deadline index, one GitHub read each, then §2.2's action.
import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import { renderClaimComment } from "../lease/claim-comment.js";
import { endedClaimWrite, minutesAgo } from "../lease/ended-write.js";
import { describe, type RepoConfigSource, recordFromMarker } from "../lease/lease-core.js";
import { stateOfSubject } from "../lease/subject-state.js";
import type { AssignmentProvider, SubjectSnapshot } from "../providers/assignment-provider.js";
import type { LivenessStore } from "../providers/liveness-store.js";
import {
  exceedsDisruptionBudget,
  type PlannedAction,
  planSubject,
  type SweepActionKind,
} from "./plan-sweep.js";

export interface SweepAction {
  subject: string;
  action: SweepActionKind;
  reason: string;
}

export interface SweepReport {
  at: string;
  installations: number;
  examined: number;
  actions: SweepAction[];
  skipped: number;
  halted: boolean;
  haltedInstallations: number[];
  reconciled: boolean;
  dryRun: boolean;
  githubRequests: number;
  durationMs: number;
}

export interface JanitorDeps {
  store: LivenessStore;
  assignments: AssignmentProvider;
  configs: RepoConfigSource;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  log: Logger;
  /** Installations that hold claims (known to the store): what an ordinary sweep visits. */
  installations: () => Promise<number[]>;
  /** Every installation of the App (from GitHub): what a reconcile visits, since a store loss forgets the list. */
  appInstallations: () => Promise<number[]>;
  /** Runs `work` and counts the GitHub requests it made. */
  measure: <T>(work: () => Promise<T>) => Promise<{ result: T; requests: number }>;
  subjectChanged: (key: SubjectKey, record: ClaimRecord) => Promise<void>;
  /** Due claims read per installation and sweep. */
  maxDuePerSweep?: number;
}

export interface SweepOptions {
  dryRun?: boolean;
  installationId?: number;
  reconcile?: boolean;
}

/** GitHub asks integrators to space mutations; the janitor writes at most once a second. */
export const writeSpacingMs = 1000;
const reportDocument = "janitor:last-report";

interface Planned {
  key: SubjectKey;
  record: ClaimRecord;
  snapshot: SubjectSnapshot;
  config: RepoConfig;
  plan: PlannedAction;
}

export class Janitor {
  constructor(private readonly deps: JanitorDeps) {}

  async sweep(options: SweepOptions = {}): Promise<SweepReport> {
    const started = this.deps.now();
    const report: SweepReport = {
      at: new Date(started).toISOString(),
      installations: 0,
      examined: 0,
      actions: [],
      skipped: 0,
      halted: false,
      haltedInstallations: [],
      reconciled: Boolean(options.reconcile),
      dryRun: Boolean(options.dryRun),
      githubRequests: 0,
      durationMs: 0,
    };
    const { requests } = await this.deps.measure(async () => {
      const installations =
        options.installationId !== undefined
          ? [options.installationId]
          : options.reconcile
            ? [...new Set([...(await this.deps.installations()), ...(await this.deps.appInstallations())])]
            : await this.deps.installations();
      report.installations = installations.length;
      for (const installationId of installations) {
        await this.#sweepInstallation(installationId, options, report);
        if (options.reconcile) {
          await this.deps.store.rememberInstallation(installationId);
          await this.#reconcileInstallation(installationId, options, report);
        }
      }
    });
    report.githubRequests = requests;
    report.durationMs = this.deps.now() - started;
    if (!report.dryRun) await this.deps.store.putDocument(reportDocument, report, 7 * 24 * 3_600_000);
    const level = report.halted ? "warn" : "info";
    this.deps.log[level](
      { janitor: { ...report, actions: report.actions.length } },
      "janitor sweep finished",
    );
    return report;
  }

  async lastReport(): Promise<SweepReport | null> {
    return (await this.deps.store.getDocument(reportDocument)) as SweepReport | null;
  }

  async #sweepInstallation(
    installationId: number,
    options: SweepOptions,
    report: SweepReport,
  ): Promise<void> {
    const { store, assignments, configs } = this.deps;
    const now = this.deps.now();
    const due = await store.due(installationId, now, this.deps.maxDuePerSweep ?? 500);
    if (due.length === 0) return;
    const epoch = await store.epoch(installationId, now);
    const active = await store.activeCount(installationId);
    const planned: Planned[] = [];
    for (const key of due) {
      const record = await store.get(key);
      if (record?.state !== "active") continue;
      report.examined++;
      const config = await configs.load(installationId, record.repo);
      if (!config.janitor.enabled) {
        report.skipped++;
        continue;
      }
      const snapshot = await assignments.status(
        { installationId, repo: record.repo, issue: record.issue },
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
    const reaps = planned.filter((p) => p.plan.kind === "reap");
    const maxFraction = Math.min(...planned.map((p) => p.config.janitor.maxReapFraction), 1);
    let toApply = planned;
    if (exceedsDisruptionBudget(reaps.length, active, maxFraction)) {
      report.halted = true;
      report.haltedInstallations.push(installationId);
      this.deps.log.warn(
        { installationId, reaps: reaps.length, active },
        "janitor halted reaping: too many claims due at once (disruption guard)",
      );
      toApply = planned.filter((p) => p.plan.kind !== "reap");
      report.skipped += reaps.length;
    }
    await this.#apply(toApply, epoch, options, report);
  }

  async #apply(planned: Planned[], epoch: number, options: SweepOptions, report: SweepReport): Promise<void> {
    const budget = Math.min(
      ...planned.map((p) => p.config.janitor.maxWritesPerMinute),
      Number.POSITIVE_INFINITY,
    );
    let writes = 0;
    for (const item of planned) {
      const subject = `${item.record.repo}#${item.record.issue}`;
      if (options.dryRun || item.config.janitor.dryRun) {
        report.actions.push({ subject, action: item.plan.kind, reason: item.plan.reason });
        continue;
      }
      if (writes >= budget) {
        report.actions.push({ subject, action: "deferred", reason: `write budget of ${budget}/min spent` });
        continue;
      }
      if (writes > 0) await this.deps.sleep(writeSpacingMs);
      const done = await this.#perform(item, epoch);
      if (done) {
        writes++;
        report.actions.push({ subject, action: item.plan.kind, reason: item.plan.reason });
      } else {
        report.skipped++;
      }
    }
  }

  /** Applies one planned action; false when the store's atomic re-check found the holder alive again. */
  async #perform({ key, record, snapshot, config, plan }: Planned, epoch: number): Promise<boolean> {
    const { store, assignments } = this.deps;
    const ref = { installationId: key.installationId, repo: record.repo, issue: record.issue };
    const now = this.deps.now();
    if (plan.kind === "relabel-stale") {
      const marked = await store.markStale({
        key,
        generation: record.generation,
        now,
        requireSilentMs: record.durations.ttlMs,
        storeEpoch: epoch,
      });
      if (marked.kind !== "marked") return false;
      await assignments.apply(ref, {
        subjectNodeId: snapshot.nodeId,
        removeLabels: [config.labels.claimed],
        addLabels: [config.labels.stale],
        ...(record.commentNodeId
          ? {
              editComments: [
                { nodeId: record.commentNodeId, body: renderClaimComment(marked.record, "stale") },
              ],
            }
          : {}),
        addComments: [
          `⏸️ No heartbeat from ${describe(record.actor)} for ${minutesAgo(now, record.lastHeartbeatAt)} min ` +
            `(stale after ${Math.round(record.durations.ttlMs / 60_000)} min). The claim is kept; ` +
            `it is reaped after ${Math.round(record.durations.reclaimAfterMs / 60_000)} min without a heartbeat.`,
        ],
      });
      return true;
    }
    if (plan.kind === "reap") {
      const ended = await store.endClaim({
        key,
        generation: record.generation,
        now,
        to: "reaped",
        bump: true,
        requireSilentMs: record.durations.reclaimAfterMs,
        storeEpoch: epoch,
      });
      if (ended.kind !== "ended") return false;
      const note =
        `🧹 Reaped generation ${record.generation} of ${describe(record.actor)}: last heartbeat ` +
        `${new Date(record.lastHeartbeatAt).toISOString()} (${minutesAgo(now, record.lastHeartbeatAt)} min ago), ` +
        "no open pull request and no recent push." +
        (record.branch
          ? ` Its branch \`${record.branch}\` is kept: claim the issue again to resume from it.`
          : "");
      await assignments.apply(
        ref,
        endedClaimWrite({ previous: ended.previous, ended: ended.record, config, note }),
      );
      await store.markSynced(key, ended.record.generation);
      await this.deps.subjectChanged(key, ended.record);
      return true;
    }
    return this.#repair(key, record, snapshot, config);
  }

  /** A phantom left by a failed or missed write: re-apply what the record says, or revoke it when GitHub's assignment is gone. */
  async #repair(
    key: SubjectKey,
    record: ClaimRecord,
    snapshot: SubjectSnapshot,
    config: RepoConfig,
  ): Promise<boolean> {
    const { store, assignments } = this.deps;
    const ref = { installationId: key.installationId, repo: record.repo, issue: record.issue };
    const assigned = snapshot.assignees.some((a) => a.login === record.actor.login);
    if (record.appAssigned && !assigned) {
      const ended = await store.endClaim({
        key,
        generation: record.generation,
        now: this.deps.now(),
        to: "revoked",
        bump: true,
      });
      if (ended.kind !== "ended") return false;
      await assignments.apply(
        ref,
        endedClaimWrite({
          previous: ended.previous,
          ended: ended.record,
          config,
          note: `⛔ The assignment of generation ${record.generation} is gone from GitHub; the claim is revoked.`,
        }),
      );
      await store.markSynced(key, ended.record.generation);
      await this.deps.subjectChanged(key, ended.record);
      return true;
    }
    const hasComment = snapshot.claimComments.some((c) => c.marker.generation === record.generation);
    const label = record.staleMarkedAt !== undefined ? config.labels.stale : config.labels.claimed;
    const applied = await assignments.apply(ref, {
      subjectNodeId: snapshot.nodeId,
      ...(snapshot.labels.includes(label) ? {} : { addLabels: [label] }),
      ...(hasComment
        ? {}
        : { createClaimComment: renderClaimComment(record, record.staleMarkedAt ? "stale" : "active") }),
    });
    if (applied.claimComment) {
      await store.commitClaim(key, record.generation, {
        commentNodeId: applied.claimComment.nodeId,
        commentId: applied.claimComment.databaseId,
      });
    } else {
      await store.markSynced(key, record.generation);
    }
    return true;
  }

  /**
   * Reconcile (every `JANITOR_RECONCILE_EVERY` sweeps): issues carrying a managed label are matched
   * with the store; a label without a record is rebuilt from a current claim comment, or removed.
   */
  async #reconcileInstallation(
    installationId: number,
    options: SweepOptions,
    report: SweepReport,
  ): Promise<void> {
    const { assignments, configs } = this.deps;
    const repos = await assignments.listRepositories(installationId);
    for (const repo of repos) {
      const config = await configs.load(installationId, repo);
      let after: string | null = null;
      for (let page = 0; page < 20; page++) {
        const listing = await assignments.listOpenIssues(
          { installationId, repo },
          { first: 100, after, labels: [config.labels.claimed, config.labels.stale] },
        );
        for (const snapshot of listing.issues) {
          await this.#reconcileSubject(installationId, snapshot, config, options, report);
        }
        if (!listing.hasNextPage) break;
        after = listing.endCursor;
      }
    }
  }

  async #reconcileSubject(
    installationId: number,
    snapshot: SubjectSnapshot,
    config: RepoConfig,
    options: SweepOptions,
    report: SweepReport,
  ): Promise<void> {
    const { store, assignments } = this.deps;
    const key = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
    const subject = `${snapshot.repo}#${snapshot.issue}`;
    report.examined++;
    const record = await store.get(key);
    if (record && (record.state === "active" || record.state === "human")) {
      report.skipped++;
      return;
    }
    const latest = snapshot.claimComments
      .filter((c) => c.marker.subject === subject)
      .sort((a, b) => b.marker.generation - a.marker.generation)[0];
    const current = latest && (!record || latest.marker.generation > record.generation);
    if (current && (latest.marker.state === "active" || latest.marker.state === "stale")) {
      report.actions.push({ subject, action: "repair", reason: "record-rebuilt-from-claim-comment" });
      if (options.dryRun) return;
      const epoch = await store.epoch(installationId, this.deps.now());
      await store.restore(recordFromMarker(key, snapshot, latest, epoch), this.deps.now());
      return;
    }
    report.actions.push({ subject, action: "repair", reason: "label-without-record" });
    if (options.dryRun || config.janitor.dryRun) return;
    await assignments.apply(
      { installationId, repo: snapshot.repo, issue: snapshot.issue },
      {
        subjectNodeId: snapshot.nodeId,
        removeLabels: [config.labels.claimed, config.labels.stale].filter((l) => snapshot.labels.includes(l)),
        addComments: ["🏷️ claim-hold found a claim label without a live claim behind it and removed it."],
      },
    );
  }
}
