// The janitor sweep (SPEC §6): due claims from the store's deadline index, one GitHub read each, then §2.2's action.
import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import { branchCode, renderClaimComment } from "../lease/claim-comment.js";
import { endedClaimWrite, spanOf } from "../lease/ended-write.js";
import { fenceOf, labelRepair } from "../lease/fenced-writes.js";
import { describe, type RepoConfigSource } from "../lease/lease-core.js";
import {
  claimStateUnknown,
  latestMarker,
  markerHolds,
  recordFromMarker,
} from "../lease/restore-from-comments.js";
import { stateOfSubject } from "../lease/subject-state.js";
import type {
  AssignmentProvider,
  SubjectSnapshot,
  TransitionWrite,
} from "../providers/assignment-provider.js";
import type { InstallationSource } from "../providers/installation-source.js";
import type { LivenessStore } from "../providers/liveness-store.js";
import {
  type InstallationVisit,
  type ListedInstallations,
  listReason,
  lostInstallations,
  planVisit,
} from "./plan-installations.js";
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
  /**
   * Every installation of the App, from GitHub: read on a reconcile pass, and whenever the store's
   * own installation set (what an ordinary sweep visits, no GitHub request) was lost.
   */
  installations: InstallationSource;
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
  /** GitHub's list as this process last read it: what tells a lost store set from an App without installations. */
  #listed: ListedInstallations | null = null;

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
      const { visit, reconcile } = await this.#installationsToVisit(options, started);
      report.installations = visit.length;
      report.reconciled = reconcile.length > 0 || report.reconciled;
      for (const installationId of visit) {
        await this.#sweepInstallation(installationId, options, report);
        if (reconcile.includes(installationId)) {
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

  /**
   * The store's installation set, unless it was lost (empty, no longer naming an installation GitHub
   * listed, or an installation's data begun again since): then, and on every reconcile pass, GitHub's
   * list is read and what the store lost is reconciled — a store loss is repaired by the next sweep,
   * not by whichever webhook happens to arrive.
   */
  async #installationsToVisit(options: SweepOptions, now: number): Promise<InstallationVisit> {
    const { store } = this.deps;
    if (options.installationId !== undefined) {
      const only = [options.installationId];
      return { visit: only, reconcile: options.reconcile ? only : [] };
    }
    const stored = await store.installations();
    const epochs = new Map<number, number>();
    for (const id of this.#listed?.ids ?? []) {
      if (stored.includes(id)) epochs.set(id, await store.epoch(id, now));
    }
    const evidence = { reconcile: Boolean(options.reconcile), stored, listed: this.#listed, epochs };
    const reason = listReason(evidence);
    if (!reason) return { visit: stored, reconcile: [] };
    const lost = lostInstallations(evidence);
    const fetched = await this.deps.installations.listInstallations();
    // Every listed installation gets its epoch now, so a later epoch means its data began again.
    for (const id of fetched) await store.epoch(id, now);
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
      let done: boolean;
      try {
        done = await this.#perform(item, epoch);
      } catch (error) {
        // One subject's GitHub failure does not stop the sweep; its store side (if any) stays
        // `sync: pending` and the next reconcile writes it again.
        this.deps.log.warn({ subject, err: error }, "janitor action failed on GitHub");
        writes++;
        report.actions.push({ subject, action: "deferred", reason: `github-failed (${item.plan.kind})` });
        continue;
      }
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
        fence: fenceOf(marked.record, config.labels),
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
          `⏸️ No heartbeat from ${describe(record.actor)} for ${spanOf(now - record.lastHeartbeatAt)} ` +
            `(stale after ${spanOf(record.durations.ttlMs)}). The claim is kept; ` +
            `it is reaped after ${spanOf(record.durations.reclaimAfterMs)} without a heartbeat.`,
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
        `${new Date(record.lastHeartbeatAt).toISOString()} (${spanOf(now - record.lastHeartbeatAt)} ago), ` +
        "no open pull request and no recent push." +
        (record.branch
          ? ` Its branch ${branchCode(record.branch)} is kept: claim the issue again to resume from it.`
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
      fence: fenceOf(record, config.labels),
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
      let repoId: number | null = null;
      const seen = new Set<number>();
      for (let page = 0; page < 20; page++) {
        const listing = await assignments.listOpenIssues(
          { installationId, repo },
          { first: 100, after, labels: [config.labels.claimed, config.labels.stale] },
        );
        for (const snapshot of listing.issues) {
          seen.add(snapshot.issue);
          await this.#reconcileSubject(installationId, snapshot, config, options, report);
        }
        if (listing.repoId !== null) repoId = listing.repoId;
        if (page === 0 && listing.repoId !== null) {
          await this.#retryPending(installationId, listing.repoId, config, options, report);
        }
        if (!listing.hasNextPage) break;
        after = listing.endCursor;
      }
      if (repoId !== null)
        await this.#repairUnlabelled(installationId, repoId, seen, config, options, report);
    }
  }

  /**
   * Invariant 13: a claim in force whose labels GitHub does not show as the record says (a late or
   * lost write) gets them back; only labels — assignments follow the phantom rule when due.
   */
  async #repairLabels(
    record: ClaimRecord,
    snapshot: SubjectSnapshot,
    config: RepoConfig,
    options: SweepOptions,
    report: SweepReport,
  ): Promise<void> {
    const repair = labelRepair(record, config.labels, snapshot.labels);
    // A live agent claim whose App-made assignment GitHub lost (a late or failed write) gets it back:
    // invariant 13 repairs toward the current generation; a person's unassignment revokes through
    // its webhook before this ever runs.
    const lostAssignment =
      record.state === "active" &&
      record.actor.kind === "agent" &&
      record.appAssigned &&
      record.assigneeNodeId !== undefined &&
      !snapshot.assignees.some((a) => a.login === record.actor.login);
    let leftovers = supersededAppAssignees(record, snapshot);
    if (leftovers.length > 0) {
      // A claim comment of a generation this store rolled back stands for no App-made assignment.
      const rolledBack = new Set(
        (await this.deps.store.history(record))
          .filter((t) => t.kind === "rolled-back")
          .map((t) => t.generation),
      );
      leftovers = leftovers.filter((left) => !rolledBack.has(left.generation));
    }
    if (!repair && !lostAssignment && leftovers.length === 0) {
      report.skipped++;
      return;
    }
    const subject = `${snapshot.repo}#${snapshot.issue}`;
    const reason = repair || lostAssignment ? "diverged-from-record" : "superseded-app-assignment-left";
    report.actions.push({ subject, action: "repair", reason });
    if (options.dryRun || config.janitor.dryRun) return;
    await this.deps.assignments.apply(
      { installationId: record.installationId, repo: snapshot.repo, issue: snapshot.issue },
      {
        subjectNodeId: snapshot.nodeId,
        ...repair,
        ...(lostAssignment ? { assign: [record.assigneeNodeId!] } : {}),
        ...(leftovers.length ? { unassign: leftovers.map((left) => left.nodeId) } : {}),
        fence: fenceOf(record, config.labels),
      },
    );
  }

  /** Live claims of the repository that the labelled listing missed: their label was lost on GitHub. */
  async #repairUnlabelled(
    installationId: number,
    repoId: number,
    seen: ReadonlySet<number>,
    config: RepoConfig,
    options: SweepOptions,
    report: SweepReport,
  ): Promise<void> {
    const { store, assignments } = this.deps;
    const records = await store.listRepository(installationId, repoId, 200);
    for (const record of records) {
      if (record.state !== "active" || seen.has(record.issue)) continue;
      const snapshot = await assignments.status({ installationId, repo: record.repo, issue: record.issue });
      if (snapshot?.state !== "open") continue;
      report.examined++;
      await this.#repairLabels(record, snapshot, config, options, report);
    }
  }

  /**
   * Invariant 10: an ended claim whose GitHub write failed (`sync: pending`) gets it written again —
   * unassign what the App assigned, labels off, claim comment final.
   */
  async #retryPending(
    installationId: number,
    repoId: number,
    config: RepoConfig,
    options: SweepOptions,
    report: SweepReport,
  ): Promise<void> {
    const { store, assignments } = this.deps;
    const records = await store.listRepository(installationId, repoId, 200);
    for (const record of records) {
      const ended = ["released", "completed", "reaped", "revoked"].includes(record.state);
      if (!ended || record.sync !== "pending") continue;
      const subject = `${record.repo}#${record.issue}`;
      report.actions.push({ subject, action: "repair", reason: "unwritten-transition-retried" });
      if (options.dryRun || config.janitor.dryRun) continue;
      if (record.actor.kind === "human") {
        // A `/reclaim release` whose one batched write failed: finished like any pending `/reclaim`.
        const ref = { installationId, repo: record.repo, issue: record.issue };
        const snapshot = await assignments.status(ref);
        const key = { installationId, repoId, issue: record.issue };
        if (snapshot) await this.#finishReclaim(key, record, snapshot, config);
        continue;
      }
      const previous: ClaimRecord = {
        ...record,
        state: "active",
        generation:
          record.state === "reaped" || record.state === "revoked"
            ? (record.supersedes ?? record.generation)
            : record.generation,
      };
      await assignments.apply(
        { installationId, repo: record.repo, issue: record.issue },
        // A completion by closing the issue keeps the assignee as the record; a release with outcome
        // `completed` (ended by the agent itself) unassigns like any release.
        endedClaimWrite({
          previous,
          ended: record,
          config,
          keepAssignee: record.state === "completed" && record.endedBy?.kind !== "agent",
        }),
      );
      await store.markSynced(record, record.generation);
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
    const ref = { installationId, repo: snapshot.repo, issue: snapshot.issue };
    if (record?.actor.kind === "human" && record.sync === "pending") {
      // A `/reclaim` whose one batched write failed after the store took the subject (invariant 10).
      report.actions.push({ subject, action: "repair", reason: "reclaim-write-pending" });
      if (!options.dryRun && !config.janitor.dryRun) await this.#finishReclaim(key, record, snapshot, config);
      return;
    }
    if (record && (record.state === "active" || record.state === "human")) {
      await this.#repairLabels(record, snapshot, config, options, report);
      return;
    }
    // An ended claim whose write failed is finished by #retryPending from its record, comment included.
    if (record?.sync === "pending") return;
    // Invariant 12: what GitHub shows cannot be explained by a trusted claim comment: hands off.
    if (claimStateUnknown(snapshot, [config.labels.claimed, config.labels.stale])) {
      report.skipped++;
      this.deps.log.warn(
        { subject },
        "claim state unknown: the claim comments cannot vouch for what GitHub shows",
      );
      return;
    }
    const latest = latestMarker(snapshot);
    const current = latest && (!record || latest.marker.generation > record.generation);
    if (current && markerHolds(latest.marker)) {
      report.actions.push({ subject, action: "repair", reason: "record-rebuilt-from-claim-comment" });
      if (options.dryRun) return;
      const now = this.deps.now();
      const epoch = await store.epoch(installationId, now);
      await store.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
      return;
    }
    report.actions.push({ subject, action: "repair", reason: "label-without-record" });
    if (options.dryRun || config.janitor.dryRun) return;
    // The claim ended (its comment says so) but its write never landed: the App-made assignment goes too.
    const marker = latest?.marker;
    const leftAssignee =
      marker?.appAssigned && marker.actor.kind === "agent"
        ? snapshot.assignees.find((a) => a.login === marker.actor.login)
        : undefined;
    await assignments.apply(ref, {
      subjectNodeId: snapshot.nodeId,
      removeLabels: [config.labels.claimed, config.labels.stale].filter((l) => snapshot.labels.includes(l)),
      ...(leftAssignee ? { unassign: [leftAssignee.nodeId] } : {}),
      addComments: ["🏷️ claim-hold found a claim label without a live claim behind it and removed it."],
      // Decided from a listing read earlier: a claim made since re-aims it (invariant 13).
      fence: {
        key,
        generation: record?.generation ?? 0,
        state: record?.state ?? "revoked",
        stale: false,
        labels: config.labels,
      },
    });
  }

  /** Labels off, the superseded agent's App-made assignment off, the human assigned and announced. */
  async #finishReclaim(
    key: SubjectKey,
    record: ClaimRecord,
    snapshot: SubjectSnapshot,
    config: RepoConfig,
  ): Promise<void> {
    const { store, assignments } = this.deps;
    const subject = `${snapshot.repo}#${snapshot.issue}`;
    const agent = snapshot.claimComments
      .filter(
        (c) =>
          c.marker.subject === subject &&
          c.marker.actor.kind === "agent" &&
          c.marker.generation < record.generation,
      )
      .sort((a, b) => b.marker.generation - a.marker.generation)[0]?.marker;
    // Only an agent claim its comment still shows in force: an ended one's assignment is gone, and
    // whoever holds that login's assignment now was assigned by someone else.
    const agentLeft =
      agent?.appAssigned && markerHolds(agent)
        ? snapshot.assignees.find((a) => a.login === agent.actor.login && a.login !== record.actor.login)
        : undefined;
    const assigned = snapshot.assignees.some((a) => a.login === record.actor.login);
    const hasComment = snapshot.claimComments.some(
      (c) => c.marker.subject === subject && c.marker.generation === record.generation,
    );
    // `/reclaim release` removes exactly whom it found assigned when it ran (invariant 13), never
    // someone who assigned themself since; a release recorded before that field existed removes only
    // the agent's App-made assignment.
    const recorded = record.state === "released" ? (record.releasedAssigneeNodeIds ?? []) : [];
    const stillThere = recorded.filter((id) => snapshot.assignees.some((a) => a.nodeId === id));
    const unassign = [...new Set([...stillThere, ...(agentLeft ? [agentLeft.nodeId] : [])])];
    const write: TransitionWrite = {
      subjectNodeId: snapshot.nodeId,
      fence: fenceOf(record, config.labels),
      removeLabels: [config.labels.claimed, config.labels.stale].filter((l) => snapshot.labels.includes(l)),
      ...(unassign.length ? { unassign } : {}),
      ...(record.appAssigned && record.assigneeNodeId && !assigned
        ? { assign: [record.assigneeNodeId] }
        : {}),
      ...(hasComment
        ? {}
        : {
            createClaimComment: renderClaimComment(record, record.state === "human" ? "active" : "released"),
          }),
    };
    const applied = await assignments.apply(
      { installationId: key.installationId, repo: snapshot.repo, issue: snapshot.issue },
      write,
    );
    if (applied.claimComment) {
      await store.commitClaim(key, record.generation, {
        commentNodeId: applied.claimComment.nodeId,
        commentId: applied.claimComment.databaseId,
      });
    } else {
      await store.markSynced(key, record.generation);
    }
  }
}

/**
 * App-made agent assignments a trusted claim comment still shows in force, of another account than
 * the record's holder: left by a claim whose write landed after it was rolled back (invariant 13).
 * Only what a signed marker says the App assigned is named, never a person's assignment.
 */
function supersededAppAssignees(
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
): { nodeId: string; generation: number }[] {
  const subject = `${snapshot.repo}#${snapshot.issue}`;
  const holder = record.actor.login.toLowerCase();
  const found = new Map<string, number>();
  for (const { marker } of snapshot.claimComments) {
    if (marker.subject !== subject || marker.actor.kind !== "agent" || !marker.appAssigned) continue;
    if (!markerHolds(marker) || marker.actor.login.toLowerCase() === holder) continue;
    const left = snapshot.assignees.find((a) => a.login.toLowerCase() === marker.actor.login.toLowerCase());
    if (left) found.set(left.nodeId, marker.generation);
  }
  return [...found].map(([nodeId, generation]) => ({ nodeId, generation }));
}
