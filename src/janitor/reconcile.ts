// The reconcile pass: labelled issues matched with the store, pending writes retried, lost labels put back.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import { type FailedAttempt, summaryCovers, tripUnwritten } from "../domain/failure-breaker.js";
import { needsHumanLabelShown } from "../lease/calls/needs-human-show.js";
import { restoreClaimRecord } from "../lease/recovery/recovery.js";
import { applyAndCommit, withLateWrites } from "../lease/transitions/commit-transition.js";
import { type EndedClaim, writeEnded } from "../lease/transitions/end-claim.js";
import { endedClaimWrite } from "../lease/transitions/ended-write.js";
import { markTripLanded, withTrip } from "../lease/transitions/failure-summary.js";
import {
  type SubjectSnapshot,
  subjectRefOf,
  type TransitionWrite,
} from "../providers/assignment-provider.js";
import type { QueueRepo } from "../providers/queue-store.js";
import { lostAssignment, revokeForRemoval } from "./lost-assignment.js";
import {
  finishReclaimWrite,
  labelWithoutRecordFence,
  planLabelRepair,
  planReconcile,
  recordBeforeEnd,
  supersededAppAssignees,
} from "./plan-repairs.js";
import { type SweepRun, subjectName, writesHeld } from "./sweep-types.js";

/** Pages of labelled open issues read per repository and reconcile pass. */
const maxListingPages = 20;
/** Records of a repository read for the pending retry and the unlabelled repair. */
const repositoryRecordLimit = 200;

/**
 * Reconcile (every `JANITOR_RECONCILE_EVERY` sweeps), per repository of the installation:
 *   1. list the open issues carrying a managed label, page by page, and reconcile each (§ planReconcile);
 *   2. after the first page (which names the repository id), retry ended claims whose write is pending;
 *   3. repair live claims the labelled listing missed: their label was lost on GitHub;
 *   4. write the failure breaker's trip of subjects tripped without it on GitHub;
 *   5. refresh the repository's candidate index.
 */
export async function reconcileInstallation(run: SweepRun, installationId: number): Promise<void> {
  const { assignments, configs } = run.deps;
  const repos = await assignments.listRepositories(installationId);
  for (const repo of repos) {
    const config = await configs.load(installationId, repo);
    let after: string | null = null;
    let repoId: number | null = null;
    const seen = new Set<number>();
    const labelsShown = new Map<number, readonly string[]>();
    for (let page = 0; page < maxListingPages; page++) {
      const listing = await assignments.listOpenIssues(
        { installationId, repo },
        { first: 100, after, labels: [config.labels.claimed, config.labels.stale] },
      );
      for (const snapshot of listing.issues) {
        seen.add(snapshot.issue);
        labelsShown.set(snapshot.issue, snapshot.labels);
        await reconcileSubject(run, installationId, snapshot, config);
      }
      if (listing.repoId !== null) repoId = listing.repoId;
      if (page === 0 && listing.repoId !== null) {
        await retryPending(run, installationId, listing.repoId, labelsShown, config);
      }
      if (!listing.hasNextPage) break;
      after = listing.endCursor;
    }
    if (repoId !== null) await repairUnlabelled(run, installationId, repoId, seen, config);
    if (repoId !== null) await writeUnwrittenTrips(run, installationId, repoId, config);
    if (repoId !== null) await refreshQueue(run, { installationId, repoId, repo });
  }
}

/** 5. rebuild the repository's candidate index: what webhooks the App missed heals here. */
async function refreshQueue(run: SweepRun, repo: QueueRepo): Promise<void> {
  try {
    await run.deps.refreshQueue?.(repo);
  } catch (error) {
    run.deps.log.error({ repo: repo.repo, err: error }, "could not refresh the candidate index");
  }
}

async function reconcileSubject(
  run: SweepRun,
  installationId: number,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
): Promise<void> {
  const { deps, options, report } = run;
  const key = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
  const subject = subjectName(snapshot.repo, snapshot.issue);
  report.examined++;
  const record = await deps.stores.claims.get(key);
  const action = planReconcile(record, snapshot, config);
  switch (action.kind) {
    case "finish-reclaim":
      report.actions.push({ subject, action: "repair", reason: "reclaim-write-pending" });
      if (!writesHeld(run, config)) await finishReclaim(run, key, action.record, snapshot, config);
      return;
    case "repair-labels":
      await repairLabels(run, action.record, snapshot, config);
      return;
    case "left-to-retry":
      return;
    case "state-unknown":
      report.skipped++;
      deps.log.warn(
        { subject },
        "claim state unknown: the claim comments cannot vouch for what GitHub shows",
      );
      return;
    case "rebuild-record": {
      report.actions.push({ subject, action: "repair", reason: "record-rebuilt-from-claim-comment" });
      // Only the store is written: a repository's janitor dry run does not hold it back.
      if (options.dryRun) return;
      const now = deps.now();
      const epoch = await deps.stores.claims.epoch(installationId, now);
      // A claim whose App-made assignment a person removed comes back revoked, its write pending:
      // the pending retry below writes it as the webhook's revocation would have.
      const restored = await restoreClaimRecord(deps, key, snapshot, action.comment, epoch, now);
      if (restored === "unknown") report.skipped++;
      return;
    }
    case "remove-label":
      report.actions.push({ subject, action: "repair", reason: "label-without-record" });
      if (writesHeld(run, config)) return;
      await deps.assignments.apply(
        { installationId, repo: snapshot.repo, issue: snapshot.issue },
        // Decided from a listing read earlier: a claim made since re-aims it (invariant 13).
        { ...action.write, fence: labelWithoutRecordFence(key, record, config) },
      );
      return;
  }
}

/**
 * Invariant 13: a claim in force whose labels GitHub does not show as the record says (a late or
 * lost write) gets them back; only labels — assignments follow the phantom rule when due.
 */
async function repairLabels(
  run: SweepRun,
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
): Promise<void> {
  const { deps, report } = run;
  let leftovers = supersededAppAssignees(record, snapshot);
  if (leftovers.length > 0) {
    // A claim comment of a generation this store rolled back stands for no App-made assignment.
    const rolledBack = new Set(
      (await deps.stores.claims.history(record))
        .filter((t) => t.kind === "rolled-back")
        .map((t) => t.generation),
    );
    leftovers = leftovers.filter((left) => !rolledBack.has(left.generation));
  }
  const ref = { installationId: record.installationId, repo: snapshot.repo, issue: snapshot.issue };
  const lost = await lostAssignment(deps, ref, record, snapshot, config);
  if (lost?.kind === "revoke") return revokeForRemoval(run, record, lost.by, config);
  const repair = planLabelRepair(record, snapshot, config, leftovers, {
    reassign: lost?.kind === "reassign",
  });
  if (!repair) {
    report.skipped++;
    return;
  }
  report.actions.push({
    subject: subjectName(snapshot.repo, snapshot.issue),
    action: "repair",
    reason: repair.reason,
  });
  if (writesHeld(run, config)) return;
  await deps.assignments.apply(ref, repair.write);
}

/** Live claims of the repository that the labelled listing missed: their label was lost on GitHub. */
async function repairUnlabelled(
  run: SweepRun,
  installationId: number,
  repoId: number,
  seen: ReadonlySet<number>,
  config: RepoConfig,
): Promise<void> {
  const { stores, assignments } = run.deps;
  const records = await stores.index.listRepository(installationId, repoId, repositoryRecordLimit);
  for (const record of records) {
    if (record.state !== "active" || seen.has(record.issue)) continue;
    const snapshot = await assignments.status(subjectRefOf(record));
    if (snapshot?.state !== "open") continue;
    run.report.examined++;
    await repairLabels(run, record, snapshot, config);
  }
}

const endedStates: readonly ClaimRecord["state"][] = ["released", "completed", "reaped", "revoked"];

/**
 * 4. A subject whose failure breaker tripped without its trip on GitHub (the ending write failed, a
 * release was retried after it, or `queue.maxFailures` was lowered below its count) gets the
 * needs-human label and the summary, then the mark that they landed (`tripUnwritten`); one whose
 * issue is closed or gone is only marked, so it is not read again every pass. Only ended
 * claims whose own write is done: an agent holding it (`override`) keeps it until it ends, and a
 * pending ended write goes first (the retry above).
 */
async function writeUnwrittenTrips(
  run: SweepRun,
  installationId: number,
  repoId: number,
  config: RepoConfig,
): Promise<void> {
  const { deps, report } = run;
  const { stores, assignments } = deps;
  const records = (await stores.index.listRepository(installationId, repoId, repositoryRecordLimit)).filter(
    (record) => endedStates.includes(record.state) && record.sync !== "pending",
  );
  if (records.length === 0) return;
  const keys = records.map((record) => ({ installationId, repoId, issue: record.issue }));
  const breakers = await stores.claims.breakers(keys);
  for (const [i, record] of records.entries()) {
    const { attempts, tripWrittenThrough } = breakers[i]!;
    if (!tripUnwritten(attempts, tripWrittenThrough, config.queue.maxFailures)) continue;
    const subject = subjectName(record.repo, record.issue);
    report.actions.push({ subject, action: "repair", reason: "failure-trip-unwritten" });
    if (writesHeld(run, config)) continue;
    const ref = subjectRefOf(record);
    let snapshot: SubjectSnapshot | null;
    try {
      snapshot = await assignments.status(ref);
    } catch (error) {
      // One subject's failed read never ends the installation's reconcile.
      deps.log.warn(
        { subject, err: error },
        "failure breaker trip not checked on GitHub; the next reconcile will",
      );
      continue;
    }
    if (snapshot?.state !== "open") {
      // A closed or vanished issue waits for nobody: marked, it is not read again every pass. The
      // count stands, so reopened it is still refused and skipped as failing, without the label.
      await markTripLanded(deps, keys[i]!, subject, attempts.at(-1)!.generation);
      continue;
    }
    // Idempotent: an inline write that landed but whose mark did not (another replica between the
    // two calls, or a failed mark) already shows; it is only marked.
    if (!tripShown(snapshot, attempts, config)) {
      try {
        await assignments.apply(ref, withTrip({ subjectNodeId: snapshot.nodeId }, subject, attempts, config));
      } catch (error) {
        deps.log.warn(
          { subject, err: error },
          "failure breaker trip not written on GitHub; the next reconcile will",
        );
        continue;
      }
    }
    await markTripLanded(deps, keys[i]!, subject, attempts.at(-1)!.generation);
  }
}

/** GitHub already shows this run's trip: the needs-human label and the App's summary of exactly these attempts. */
function tripShown(
  snapshot: SubjectSnapshot,
  attempts: readonly FailedAttempt[],
  config: RepoConfig,
): boolean {
  const label = config.labels.needsHuman.toLowerCase();
  return (
    snapshot.labels.some((l) => l.toLowerCase() === label) &&
    (snapshot.failureSummaries ?? []).some((body) => summaryCovers(body, attempts))
  );
}

/**
 * Invariant 10: an ended claim whose GitHub write failed (`sync: pending`) gets it written again —
 * unassign what the App assigned, labels off, claim comment final. `labelsShown` holds the labels
 * of the issues listed so far (the ended record no longer says whether the App's stall ask stood).
 */
async function retryPending(
  run: SweepRun,
  installationId: number,
  repoId: number,
  labelsShown: ReadonlyMap<number, readonly string[]>,
  config: RepoConfig,
): Promise<void> {
  const { deps, report } = run;
  const { stores, assignments } = deps;
  const records = await stores.index.listRepository(installationId, repoId, repositoryRecordLimit);
  for (const record of records) {
    // A `/reclaim` still pending whose write landed unanswered has no label left to be listed by
    // (one still labelled on the listing's first page was finished from it; a later page's is
    // finished here, and found committed when its page comes).
    const pendingReclaim =
      record.state === "human" && record.actor.kind === "human" && !labelsShown.has(record.issue);
    if (record.sync !== "pending" || !(endedStates.includes(record.state) || pendingReclaim)) continue;
    report.actions.push({
      subject: subjectName(record.repo, record.issue),
      action: "repair",
      reason: "unwritten-transition-retried",
    });
    if (writesHeld(run, config)) continue;
    const ref = subjectRefOf(record);
    const key = { installationId, repoId, issue: record.issue };
    if (record.actor.kind === "human") {
      // A `/reclaim` (or `/reclaim release`) whose one batched write failed or went unanswered.
      const snapshot = await assignments.status(ref);
      if (snapshot) await finishReclaim(run, key, record, snapshot, config);
      continue;
    }
    // A completion by closing the issue keeps the assignee as the record; a release with outcome
    // `completed` (ended by the agent itself) unassigns like any release.
    const keepAssignee = record.state === "completed" && record.endedBy?.kind !== "agent";
    let previous = recordBeforeEnd(record);
    // A rolled-back claim kept for its late writes (`rollBack`) names no claim comment: what of it
    // landed after the App gave up on it is found and ended with the rest.
    if (!previous.commentNodeId) previous = await withLateWrites(assignments, ref, previous);
    const askOff = await endedAskStillShown(run, key, previous, labelsShown.get(record.issue) ?? [], config);
    await writeEnded(deps, key, ref, { previous, record }, config, {
      keepAssignee,
      // A tripped breaker's label goes back on (an override claim took it off); otherwise a
      // needs-human label the App showed for the ended claim ends with it.
      failures: await stores.claims.failures(key),
      ...(askOff ? { write: (ended) => endedWriteAskOff(ended, config, keepAssignee) } : {}),
    });
  }
}

/**
 * Whether the issue still shows needs-human as the ended claim's ask: the record asked, or the
 * throttle's document says the App's label (a holder's ask or the App's stall ask, which ended
 * records no longer carry) was shown for that generation. A label a person added after the claim
 * ended is neither, and stays.
 */
async function endedAskStillShown(
  run: SweepRun,
  key: SubjectKey,
  previous: ClaimRecord,
  shown: readonly string[],
  config: RepoConfig,
): Promise<boolean> {
  const label = config.labels.needsHuman.toLowerCase();
  if (!shown.some((name) => name.toLowerCase() === label)) return false;
  if (previous.needsHuman) return true;
  return needsHumanLabelShown(run.deps.stores.documents, { ...key, generation: previous.generation });
}

/** The ended claim's write with the needs-human label off as well (a tripped breaker puts it back). */
function endedWriteAskOff(ended: EndedClaim, config: RepoConfig, keepAssignee: boolean): TransitionWrite {
  const write = endedClaimWrite({
    previous: ended.previous,
    ended: ended.record,
    config,
    ...(keepAssignee ? { keepAssignee: true } : {}),
  });
  const removeLabels = write.removeLabels ?? [];
  if (removeLabels.includes(config.labels.needsHuman)) return write;
  return { ...write, removeLabels: [...removeLabels, config.labels.needsHuman] };
}

/**
 * A `/reclaim` (or `/reclaim release`) whose write failed, written again from its record — unless
 * GitHub shows it landed (its claim comment comes last in the batched write): then it is only
 * committed, and what people changed by hand since it landed stays (invariant 13).
 */
async function finishReclaim(
  run: SweepRun,
  key: SubjectKey,
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
): Promise<void> {
  const subject = subjectName(snapshot.repo, snapshot.issue);
  const landed = snapshot.claimComments.find(
    (c) =>
      c.marker.subject === subject &&
      c.marker.generation === record.generation &&
      c.marker.actor.kind === "human" &&
      c.marker.actor.login.toLowerCase() === record.actor.login.toLowerCase(),
  );
  if (landed) {
    if (record.state === "human") {
      await run.deps.stores.claims.commitClaim(key, record.generation, {
        commentNodeId: landed.nodeId,
        commentId: landed.databaseId,
      });
    } else {
      await run.deps.stores.claims.markSynced(record, record.generation);
    }
    return;
  }
  await applyAndCommit(
    run.deps,
    { installationId: key.installationId, repo: snapshot.repo, issue: snapshot.issue },
    key,
    record.generation,
    finishReclaimWrite(record, snapshot, config),
    { orMarkSynced: true },
  );
}
