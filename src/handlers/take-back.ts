// A person's take-back of a subject, after the decision (docs/reference/github-surfaces.md#reclaim): shared by `/reclaim` and the dashboard's operator actions, so both write the same comment under the same fence.
//
// 1. stores.claims.humanClaim (new generation), re-run the linked PR checks, then ONE batched mutation:
//    unassign, unlabel, assign, old claim comment → superseded/revoked, new claim comment, reply;
// 2. a mutation GitHub refused is read back once: landed → committed; provably absent → the store
//    is rolled back (invariants 3, 7, 10); unknown (the read failed too) → left `sync: pending`.
import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import { type Actor, type ClaimRecord, type SubjectKey, subjectName } from "../domain/claim.js";
import type { MergeFence } from "../fence/merge-fence.js";
import { type LeaseEventPublisher, publishLeaseEvents, supersededEvent } from "../lease/lease-events.js";
import {
  highestGeneration,
  latestMarker,
  markerHolds,
  recordFromMarker,
} from "../lease/recovery/restore-from-comments.js";
import { applyAndCommit, rollBack } from "../lease/transitions/commit-transition.js";
import { fenceOf } from "../lease/transitions/fenced-writes.js";
import type { AssignmentProvider, SubjectSnapshot } from "../providers/assignment-provider.js";
import { definitelyRefused } from "../providers/refused-write.js";
import type { Stores } from "../providers/stores.js";
import { reclaimWrite, releasedAssignees } from "./reclaim-decision.js";

export interface TakeBackDeps {
  stores: Pick<Stores, "claims">;
  fence: MergeFence;
  assignments: AssignmentProvider;
  now: () => number;
  /** Where the superseded agent's live stream hears of it; absent: nowhere. */
  leaseEvents?: LeaseEventPublisher;
}

export interface TakeBackInput {
  ref: { installationId: number; repo: string; issue: number };
  key: SubjectKey;
  snapshot: SubjectSnapshot;
  /** The subject's record as restoredRecord answered it. */
  record: ClaimRecord | null;
  config: RepoConfig;
  /** Who takes it back: the human claim's actor and, for an assignment, their node id. */
  actor: Actor;
  actorNodeId: string;
  /** How the reply names who acted; default `@login`. */
  byline?: string;
  /** A note quoted (inert) in the reply. */
  note?: string;
  release: boolean;
  assign: boolean;
  /** Set once the store changed, so a caller that dedupes knows a retry must not run again. */
  progress: { storeChanged: boolean };
}

/** Applies a decided take-back; answers the new record. */
export async function takeBack(deps: TakeBackDeps, input: TakeBackInput, log: Logger): Promise<ClaimRecord> {
  const { stores, now: clock } = deps;
  const { ref, key, snapshot, record, config, actor, release, progress } = input;
  const now = clock();
  const { record: next, previous } = await stores.claims.humanClaim({
    key,
    repo: snapshot.repo,
    actor,
    now,
    minGeneration: highestGeneration(snapshot),
    release,
    appAssigned: input.assign,
    issueNodeId: snapshot.nodeId,
    ...(input.actorNodeId ? { assigneeNodeId: input.actorNodeId } : {}),
    ...(snapshot.title ? { title: snapshot.title } : {}),
    // Who a release unassigns is decided now, so a retry never removes someone assigned later.
    ...(release ? { releasedAssigneeNodeIds: releasedAssignees(snapshot, record) } : {}),
  });
  progress.storeChanged = true;
  // The fence first: the old holder's PRs fail before anything else is announced.
  const changes = await deps.fence.claimChanged(next, previous);
  const write = {
    ...reclaimWrite({
      snapshot,
      previous,
      record: next,
      config,
      commenter: { login: actor.login, nodeId: input.actorNodeId },
      assign: input.assign,
      changes,
      ...(input.byline ? { byline: input.byline } : {}),
      ...(input.note ? { note: input.note } : {}),
    }),
    fence: fenceOf(next, config.labels),
  };
  try {
    await applyAndCommit(deps, ref, key, next.generation, write);
    await taken(deps, log, key, release, previous, next);
    return next;
  } catch (error) {
    const landed = await landedHumanClaim(deps, ref, next);
    // A write GitHub did not definitely refuse (the App stopped waiting, GitHub answered 5xx, the
    // connection dropped) may still land after this read: absent now proves nothing, so the human
    // claim stays in the store, pending, for reconcile to finish.
    if (landed === "unknown" || (landed === null && !definitelyRefused(error))) throw error;
    if (landed) {
      await stores.claims.commitClaim(key, next.generation, {
        commentNodeId: landed.nodeId,
        commentId: landed.databaseId,
      });
      log.warn({ err: error }, "take-back kept: GitHub applied it although the answer was lost");
      await taken(deps, log, key, release, previous, next);
      return next;
    }
    // Nothing of the human claim reached GitHub: kept only in the store, a store loss would drop
    // it and revive the superseded lease from its comment. Undone, the old holder's lease stands
    // as GitHub shows it, and a retry may try again.
    await rollBack(
      { ...deps, log },
      ref,
      key,
      { record: next, previous, write, now: clock() },
      config.labels,
    );
    progress.storeChanged = false;
    await deps.fence.recheckSubject(ref.installationId, key).catch((recheck: unknown) => {
      log.error({ err: recheck }, "re-running the checks of linked pull requests failed");
    });
    throw error;
  }
}

/**
 * Once the take-back is on GitHub (never before: a refused write rolls the claim back and must
 * leave the count too): a release resets the failure breaker, and the superseded agent's live
 * stream hears of the person's claim (best-effort).
 */
async function taken(
  deps: Pick<TakeBackDeps, "leaseEvents" | "stores">,
  log: Logger,
  key: SubjectKey,
  release: boolean,
  previous: ClaimRecord | null,
  next: ClaimRecord,
): Promise<void> {
  if (release) await deps.stores.claims.clearFailures(key);
  if (previous?.state !== "active" || !previous.tokenDigest) return;
  await publishLeaseEvents(deps.leaseEvents, log, [supersededEvent(previous, next)]);
}

/**
 * After a refused write, one read: the human claim's comment (this generation, this human) when
 * GitHub shows it, null when GitHub shows it absent, "unknown" when the read fails as well.
 */
async function landedHumanClaim(
  deps: Pick<TakeBackDeps, "assignments">,
  ref: { installationId: number; repo: string; issue: number },
  record: ClaimRecord,
): Promise<{ nodeId: string; databaseId: number } | null | "unknown"> {
  let snapshot: SubjectSnapshot | null;
  try {
    snapshot = await deps.assignments.status(ref);
  } catch {
    return "unknown";
  }
  if (!snapshot) return "unknown";
  const subject = subjectName(snapshot.repo, snapshot.issue);
  const comment = snapshot.claimComments.find(
    (c) =>
      c.marker.subject === subject &&
      c.marker.generation === record.generation &&
      c.marker.actor.kind === "human" &&
      c.marker.actor.login.toLowerCase() === record.actor.login.toLowerCase(),
  );
  return comment ? { nodeId: comment.nodeId, databaseId: comment.databaseId } : null;
}

/** Invariant 7: a live claim the store lost is put back from its comment before it is superseded. */
export async function restoredRecord(
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  deps: Pick<TakeBackDeps, "stores">,
  now: number,
): Promise<ClaimRecord | null> {
  const record = await deps.stores.claims.get(key);
  if (record) return record;
  const latest = latestMarker(snapshot);
  if (!latest || !markerHolds(latest.marker)) return null;
  const epoch = await deps.stores.claims.epoch(key.installationId, now);
  await deps.stores.claims.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
  return deps.stores.claims.get(key);
}
