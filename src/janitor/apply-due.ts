// Applies the planned actions of due claims (mark stale, reap, repair a phantom) within the write budget and spacing.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import { applyAndCommit } from "../lease/transitions/commit-transition.js";
import { endClaim, type WriteResult } from "../lease/transitions/end-claim.js";
import { markStale as markStaleTransition } from "../lease/transitions/mark-stale.js";
import { type SubjectSnapshot, subjectRefOf } from "../providers/assignment-provider.js";
import { planPhantomRepair, reapNote, revokedNote, staleWrite } from "./plan-repairs.js";
import type { PlannedAction } from "./plan-sweep.js";
import { type JanitorDeps, type SweepRun, subjectName, writesHeld } from "./sweep-types.js";

/** GitHub asks integrators to space mutations; the janitor writes at most once a second. */
export const writeSpacingMs = 1000;

/** A due claim the sweep decided to act on, with the evidence the action was decided from. */
export interface PlannedSubject {
  key: SubjectKey;
  record: ClaimRecord;
  snapshot: SubjectSnapshot;
  config: RepoConfig;
  plan: PlannedAction;
}

/**
 * Applies `planned` in order: a dry run only reports; the smallest `maxWritesPerMinute` of the
 * subjects' configs bounds the writes, spaced `writeSpacingMs` apart.
 */
export async function applyPlanned(run: SweepRun, planned: PlannedSubject[], epoch: number): Promise<void> {
  const { deps, report } = run;
  const budget = Math.min(
    ...planned.map((p) => p.config.janitor.maxWritesPerMinute),
    Number.POSITIVE_INFINITY,
  );
  let writes = 0;
  for (const item of planned) {
    const subject = subjectName(item.record.repo, item.record.issue);
    if (writesHeld(run, item.config)) {
      report.actions.push({ subject, action: item.plan.kind, reason: item.plan.reason });
      continue;
    }
    if (writes >= budget) {
      report.actions.push({ subject, action: "deferred", reason: `write budget of ${budget}/min spent` });
      continue;
    }
    if (writes > 0) await deps.sleep(writeSpacingMs);
    let done: Performed;
    try {
      done = await performPlanned(deps, item, epoch);
    } catch (error) {
      deps.log.warn({ subject, err: error }, "janitor action failed on GitHub");
      done = "github-failed";
    }
    if (done === "github-failed") {
      // One subject's GitHub failure does not stop the sweep; its store side (if any) stays
      // `sync: pending` and the next reconcile writes it again.
      writes++;
      report.actions.push({ subject, action: "deferred", reason: `github-failed (${item.plan.kind})` });
    } else if (done === "done") {
      writes++;
      report.actions.push({ subject, action: item.plan.kind, reason: item.plan.reason });
    } else {
      report.skipped++;
    }
  }
}

/** What one planned action came to: `skipped` when the store's atomic re-check found the holder alive again. */
type Performed = "done" | "skipped" | "github-failed";

function performed(result: { kind: string } & Partial<WriteResult>): Performed {
  if (result.kind !== "ended" && result.kind !== "marked") return "skipped";
  return result.written ? "done" : "github-failed";
}

/** Applies one planned action. */
function performPlanned(deps: JanitorDeps, item: PlannedSubject, epoch: number): Promise<Performed> {
  switch (item.plan.kind) {
    case "relabel-stale":
      return markStale(deps, item, epoch);
    case "reap":
      return reap(deps, item, epoch);
    case "repair":
      return repairPhantom(deps, item);
  }
}

async function markStale(
  deps: JanitorDeps,
  { key, record, snapshot, config }: PlannedSubject,
  epoch: number,
): Promise<Performed> {
  const now = deps.now();
  const marked = await markStaleTransition(deps, {
    mark: {
      key,
      generation: record.generation,
      now,
      requireSilentMs: record.durations.ttlMs,
      storeEpoch: epoch,
    },
    ref: subjectRefOf(record),
    config,
    write: (stale) => staleWrite(record, stale, snapshot, config, now),
  });
  return performed(marked);
}

async function reap(
  deps: JanitorDeps,
  { key, record, config }: PlannedSubject,
  epoch: number,
): Promise<Performed> {
  const now = deps.now();
  const ended = await endClaim(deps, {
    end: {
      key,
      generation: record.generation,
      now,
      to: "reaped",
      bump: true,
      requireSilentMs: record.durations.reclaimAfterMs,
      storeEpoch: epoch,
      failure: "reaped",
    },
    ref: subjectRefOf(record),
    config,
    note: reapNote(record, now),
  });
  return performed(ended);
}

async function repairPhantom(
  deps: JanitorDeps,
  { key, record, snapshot, config }: PlannedSubject,
): Promise<Performed> {
  const repair = planPhantomRepair(record, snapshot, config);
  if (repair.kind === "revoke") {
    const ended = await endClaim(deps, {
      end: { key, generation: record.generation, now: deps.now(), to: "revoked", bump: true },
      ref: subjectRefOf(record),
      config,
      note: revokedNote(record.generation),
    });
    return performed(ended);
  }
  await applyAndCommit(deps, subjectRefOf(record), key, record.generation, repair.write, {
    orMarkSynced: true,
  });
  return "done";
}
