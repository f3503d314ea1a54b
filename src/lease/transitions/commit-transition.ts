// A transition's GitHub write and what follows it: commit, landed-anyway check, rollback, compensation.
import type { RepoConfig } from "../../config/repo-config.js";
import { type ClaimRecord, type SubjectKey, subjectName } from "../../domain/claim.js";
import { renderClaimComment } from "../../domain/claim-marker.js";
import type {
  AppliedWrite,
  AssignmentProvider,
  SubjectRef,
  TransitionWrite,
} from "../../providers/assignment-provider.js";
import type { ClaimStore } from "../../providers/liveness-store.js";
import type { LeaseCoreDeps } from "../ports.js";
import { refused } from "../refusals.js";
import { desiredWrite, fenceOf } from "./fenced-writes.js";

/** The managed labels a fenced write judges GitHub by. */
type Labels = Pick<RepoConfig["labels"], "claimed" | "stale">;
/** What a write needs: GitHub's `apply`, and a log for what is only logged. */
type ApplyPorts = { assignments: Pick<AssignmentProvider, "apply">; log: LeaseCoreDeps["log"] };
/** What committing a landed write needs of the store. */
type CommitStore = Pick<ClaimStore, "commitClaim" | "markSynced">;

/**
 * Applies a transition's write and records the claim comment it created on `generation` (the
 * comment's ids are what a later edit needs); with `orMarkSynced`, a write that created none marks
 * the record's GitHub side written. Throws whatever the write or the store threw.
 */
export async function applyAndCommit(
  ports: { assignments: Pick<AssignmentProvider, "apply">; stores: { claims: CommitStore } },
  ref: SubjectRef,
  key: SubjectKey,
  generation: number,
  write: TransitionWrite,
  options: { orMarkSynced?: boolean } = {},
): Promise<AppliedWrite> {
  // The write fence commits the claim comment in the same store call that gives its lock up.
  const fence = write.fence && sameTransition(write.fence, key, generation) ? write.fence : undefined;
  const asked = fence ? { ...write, fence: { ...fence, commitClaimComment: true } } : write;
  const applied = await ports.assignments.apply(ref, asked);
  if (!applied.committed) {
    await commitWritten(ports.stores.claims, key, generation, applied.claimComment, options);
  }
  return applied;
}

function sameTransition(fence: NonNullable<TransitionWrite["fence"]>, key: SubjectKey, generation: number) {
  const { installationId, repoId, issue } = fence.key;
  return (
    fence.generation === generation &&
    installationId === key.installationId &&
    repoId === key.repoId &&
    issue === key.issue
  );
}

/** After a write that may have created the claim comment: its ids committed, or (asked) the record marked synced. */
export async function commitWritten(
  claims: CommitStore,
  key: SubjectKey,
  generation: number,
  claimComment: { nodeId: string; databaseId: number } | undefined,
  options: { orMarkSynced?: boolean } = {},
): Promise<void> {
  if (claimComment) {
    await claims.commitClaim(key, generation, {
      commentNodeId: claimComment.nodeId,
      commentId: claimComment.databaseId,
    });
  } else if (options.orMarkSynced) {
    await claims.markSynced(key, generation);
  }
}

/** A write on a held lease, fenced on `record`; GitHub's refusal is answered `502 github_failed`. */
export async function writeFenced(
  ports: ApplyPorts,
  ref: SubjectRef,
  record: Parameters<typeof fenceOf>[0] & Pick<ClaimRecord, "repo">,
  write: TransitionWrite,
  labels: Labels,
): Promise<AppliedWrite> {
  try {
    return await ports.assignments.apply(ref, { ...write, fence: fenceOf(record, labels) });
  } catch (error) {
    ports.log.warn(
      { subject: subjectName(record.repo, record.issue), err: error },
      "GitHub refused a claim update",
    );
    throw refused({
      code: "github_failed",
      message: `GitHub refused the update on ${subjectName(record.repo, record.issue)}; retry is safe.`,
    });
  }
}

/** The claim comment of `record`'s generation naming its token, if GitHub shows one (one read). */
export async function landedComment(
  assignments: Pick<AssignmentProvider, "status">,
  ref: SubjectRef,
  record: ClaimRecord,
): Promise<{ nodeId: string; databaseId: number } | null> {
  try {
    const snapshot = await assignments.status(ref);
    const comment = snapshot?.claimComments.find(
      (c) => c.marker.generation === record.generation && c.marker.tokenDigest === record.tokenDigest,
    );
    return comment ? { nodeId: comment.nodeId, databaseId: comment.databaseId } : null;
  } catch {
    return null;
  }
}

/**
 * Invariant 10: a mutation may land even when its answer is lost. One read tells: if this
 * generation's claim comment (with this token's digest) is there, the claim is committed, not undone.
 */
export async function landedAnyway(
  ports: {
    assignments: Pick<AssignmentProvider, "status">;
    stores: { claims: Pick<CommitStore, "commitClaim"> };
  },
  ref: SubjectRef,
  key: SubjectKey,
  record: ClaimRecord,
): Promise<boolean> {
  const comment = await landedComment(ports.assignments, ref, record);
  if (!comment) return false;
  try {
    await ports.stores.claims.commitClaim(key, record.generation, {
      commentNodeId: comment.nodeId,
      commentId: comment.databaseId,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * A claim GitHub refused: the store goes back to `previous` and GitHub back to what it wants. When
 * that undo fails too, or the failed write was not definitely refused (`unsure`: a 5xx, a timeout,
 * a lost connection, which may still land after the undo), and the claim was an agent's on a subject
 * with no record before, the claim's generation is kept as an ended record whose write is pending:
 * the writes that landed (Gitea's transition is several requests, its assignee first —
 * docs/reference/gitea-surfaces.md#assignees-and-request-timeouts) may carry no claim comment, so no
 * listing of the forge would find them again once the record is gone; the reconcile's pending retry
 * takes them off, and ends a claim comment that landed late, as it finishes an unwritten release.
 */
export async function rollBack(
  ports: ApplyPorts & { stores: { claims: Pick<ClaimStore, "rollbackClaim" | "restore"> } },
  ref: SubjectRef,
  key: SubjectKey,
  transition: {
    record: ClaimRecord;
    previous: ClaimRecord | null;
    write: TransitionWrite;
    now: number;
    /** The failed write may still land (it was not definitely refused). */
    unsure?: boolean;
  },
  labels: Labels,
): Promise<void> {
  const { record, previous, now } = transition;
  await ports.stores.claims.rollbackClaim(key, record.generation, previous, now);
  const undone = await compensate(ports, ref, transition.write, previous, labels, key);
  if ((undone && !transition.unsure) || !leftoverKept(record, previous)) return;
  // Only when the store is still as the rollback left it (no newer claim since): `restore` writes
  // over an older generation or none, never over a newer one.
  try {
    await ports.stores.claims.restore(leftoverOf(record, now), now);
  } catch (error) {
    ports.log.warn(
      { subject: `${ref.repo}#${ref.issue}`, err: error },
      "could not keep a failed claim's generation for reconcile",
    );
  }
}

/**
 * Whether a failed undo's leftovers may stand as the rolled-back generation's ended record: only an
 * agent's claim on a subject with no record. A person's take-back kept so would be finished by the
 * reconcile as a `/reclaim` the person was told had failed; a previous record (a holder's, or an
 * ended claim whose outcome the next claim resumes from) is put back as it was.
 */
function leftoverKept(record: ClaimRecord, previous: ClaimRecord | null): boolean {
  return previous === null && record.actor.kind === "agent";
}

/**
 * The refused claim as ended by the App, its GitHub side not yet written. It names no claim
 * comment and no App-made assignment: whether either landed is read when the write is retried
 * (`withLateWrites`), so an assignment of the agent's login a person makes meanwhile is never
 * taken for the App's.
 */
function leftoverOf(record: ClaimRecord, now: number): ClaimRecord {
  const { pendingTokenDigest: _, commentNodeId: __, commentId: ___, assigneeNodeId: ____, ...rest } = record;
  return { ...rest, appAssigned: false, state: "revoked", sync: "pending", endedAt: now };
}

/**
 * `previous` with what of its generation's write the subject shows, for a kept leftover
 * (`leftoverOf`), which names neither: the App's claim comment of that generation (it may have
 * landed after the App gave up), and the agent's assignment when the issue's history says the App
 * made it. An assignment of that login a person made stays theirs (invariant 5).
 */
export async function withLateWrites(
  assignments: Pick<AssignmentProvider, "status" | "lastEvidenceChange">,
  ref: SubjectRef,
  previous: ClaimRecord,
): Promise<ClaimRecord> {
  const snapshot = await assignments.status(ref);
  if (!snapshot) return previous;
  const late = snapshot.claimComments.find((c) => c.marker.generation === previous.generation);
  let found = late ? { ...previous, commentNodeId: late.nodeId, commentId: late.databaseId } : previous;
  const login = previous.actor.login;
  const assignee =
    previous.actor.kind === "agent" && !previous.appAssigned
      ? snapshot.assignees.find((a) => a.login.toLowerCase() === login.toLowerCase())
      : undefined;
  if (assignee) {
    const change = await assignments.lastEvidenceChange(ref, { assignee: login });
    if (change.kind === "added" && !change.byPerson)
      found = { ...found, appAssigned: true, assigneeNodeId: assignee.nodeId };
  }
  return found;
}

/**
 * Best effort after a rolled-back claim: undoes the writes that may have landed before the one that
 * failed (they run in order: unassign, labels, assign, edits, comments). Answers whether the undo
 * was written; what it cannot undo, reconcile finds as a phantom or (`rollBack`) retries.
 */
export async function compensate(
  ports: ApplyPorts,
  ref: SubjectRef,
  write: TransitionWrite,
  previous: ClaimRecord | null,
  labels: Labels,
  key: SubjectKey,
): Promise<boolean> {
  // GitHub back to what the restored record wants — the incumbent's label and assignment stay when
  // it holds the subject (a fleet shares one login) — and whatever else the failed write added goes.
  const held = previous?.state === "active" || previous?.state === "human";
  const kept = held && previous.appAssigned ? previous.assigneeNodeId : undefined;
  const desired = previous ? desiredWrite(previous, labels, write.subjectNodeId) : null;
  const unassign = (write.assign ?? []).filter((id) => id !== kept);
  const undo: TransitionWrite = {
    subjectNodeId: write.subjectNodeId,
    ...(unassign.length ? { unassign } : {}),
    ...(held ? { addLabels: desired?.addLabels ?? [] } : {}),
    removeLabels: held ? (desired?.removeLabels ?? []) : [labels.claimed],
    ...(write.unassign ? { assign: write.unassign } : {}),
    ...(previous && held && previous.commentNodeId && write.editComments
      ? { editComments: [{ nodeId: previous.commentNodeId, body: renderClaimComment(previous, "active") }] }
      : {}),
    fence: previous
      ? fenceOf(previous, labels)
      : { key, generation: 0, state: "revoked", stale: false, labels },
  };
  try {
    await ports.assignments.apply(ref, undo);
    return true;
  } catch (error) {
    ports.log.warn(
      { subject: `${ref.repo}#${ref.issue}`, err: error },
      "could not undo a failed claim; reconcile will",
    );
    return false;
  }
}
