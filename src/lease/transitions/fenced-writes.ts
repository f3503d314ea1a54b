// Invariant 13: GitHub writes fenced by generation — one in flight per subject, and a late one never undoes a newer claim.
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { ClaimRecord, RecordState, SubjectKey } from "../../domain/claim.js";
import { markerStateOfRecord, renderClaimComment, restateClaimComment } from "../../domain/claim-marker.js";
import { asksForPerson } from "../../domain/stall.js";
import type { FinishWriteInput, SubjectWriteLocks } from "../../providers/app-stores.js";
import type {
  AppliedWrite,
  AssignmentProvider,
  SubjectRef,
  TransitionWrite,
  WriteFence,
} from "../../providers/assignment-provider.js";
import { movedOnFrom } from "../../providers/claim-records.js";
import type { ClaimStore } from "../../providers/liveness-store.js";

/** What a fenced write was decided for: the record as its transition left it. */
export function fenceOf(
  record: Pick<ClaimRecord, "installationId" | "repoId" | "issue" | "generation" | "state" | "staleMarkedAt">,
  labels: WriteFence["labels"],
): WriteFence {
  return {
    key: { installationId: record.installationId, repoId: record.repoId, issue: record.issue },
    generation: record.generation,
    state: record.state,
    stale: record.staleMarkedAt !== undefined,
    labels,
  };
}

/** True when the store's record is no longer the one the write was decided for. */
export function movedOn(record: ClaimRecord | null, fence: WriteFence): boolean {
  return movedOnFrom(record, fence);
}

const heldStates: readonly RecordState[] = ["active", "human"];

/**
 * The assignees, labels and claim comment GitHub should show for `record` (pure). Assignments
 * are asserted or removed only as the record names them (by node id) and only when the App made
 * them; a `completed` claim keeps its assignee (the issue was closed with it).
 */
export function desiredWrite(
  record: ClaimRecord,
  labels: WriteFence["labels"],
  subjectNodeId: string,
): TransitionWrite {
  const write: TransitionWrite = { subjectNodeId };
  const held = heldStates.includes(record.state);
  if (record.state === "active") {
    const shown = record.staleMarkedAt !== undefined ? labels.stale : labels.claimed;
    write.addLabels = [shown];
    write.removeLabels = [shown === labels.claimed ? labels.stale : labels.claimed];
  } else {
    write.removeLabels = [labels.claimed, labels.stale];
  }
  const appMade = record.appAssigned && record.assigneeNodeId ? [record.assigneeNodeId] : [];
  if (held && appMade.length) write.assign = appMade;
  // An ended agent claim's own App-made assignment goes (by node id; a completion by closing the
  // issue keeps it). Nobody else is unassigned: the people a `/reclaim release` removed were removed
  // by its own write, and whoever is assigned by now may have come after (invariant 5).
  const keepsAssignee = record.state === "completed" && record.endedBy?.kind !== "agent";
  if (!held && !keepsAssignee && record.actor.kind === "agent" && appMade.length) write.unassign = appMade;
  if (record.commentNodeId) {
    write.editComments = [
      { nodeId: record.commentNodeId, body: renderClaimComment(record, markerStateOfRecord(record)) },
    ];
  }
  return write;
}

/**
 * The label changes that make GitHub show `record` (invariant 13's last clause), or null when its
 * labels already agree. Assignments are not judged here: a missing App-made assignment may be a
 * person's unassignment, which revokes the claim (the janitor's phantom rule).
 */
export function labelRepair(
  record: ClaimRecord,
  labels: WriteFence["labels"],
  shown: readonly string[],
): Pick<TransitionWrite, "addLabels" | "removeLabels"> | null {
  const desired = desiredWrite(record, labels, "");
  // The needs-human label stands exactly while an active claim's holder asks for a person, or the App
  // asks on its stall's behalf.
  if (labels.needsHuman) {
    const asks = asksForPerson(record);
    if (asks) desired.addLabels = [...(desired.addLabels ?? []), labels.needsHuman];
    else desired.removeLabels = [...(desired.removeLabels ?? []), labels.needsHuman];
  }
  const has = new Set(shown.map((l) => l.toLowerCase()));
  const addLabels = (desired.addLabels ?? []).filter((l) => !has.has(l.toLowerCase()));
  const removeLabels = (desired.removeLabels ?? []).filter((l) => has.has(l.toLowerCase()));
  if (addLabels.length === 0 && removeLabels.length === 0) return null;
  return { ...(addLabels.length ? { addLabels } : {}), ...(removeLabels.length ? { removeLabels } : {}) };
}

/**
 * A write decided for an older state, re-aimed at the current record: its own comment changes of
 * other incarnations stay (they finish that incarnation's story); assignees, labels and the current
 * incarnation's comment become what the current record wants.
 */
export function rebaseWrite(
  write: TransitionWrite,
  current: ClaimRecord,
  fence: WriteFence,
): TransitionWrite {
  const desired = desiredWrite(current, fence.labels, write.subjectNodeId);
  const otherEdits = (write.editComments ?? []).filter((e) => e.nodeId !== current.commentNodeId);
  const {
    assign: _a,
    unassign: _u,
    addLabels: _al,
    removeLabels: _rl,
    editComments: _e,
    fence: _f,
    ...rest
  } = write;
  const editComments = [...otherEdits, ...(desired.editComments ?? [])];
  return {
    ...rest,
    ...desired,
    ...(editComments.length ? { editComments } : {}),
  };
}

/**
 * The claim comment a late write created for generation g, which the store never learned of: it
 * shows the record when that is still g, else g's end (revoked or reaped by the transition that
 * bumped it, superseded by any newer claim).
 */
function lateClaimComment(
  created: string | undefined,
  applied: AppliedWrite,
  current: ClaimRecord,
  fence: WriteFence,
): { nodeId: string; body: string } | null {
  if (!created || !applied.claimComment) return null;
  const { nodeId } = applied.claimComment;
  if (current.generation === fence.generation) {
    return { nodeId, body: renderClaimComment(current, markerStateOfRecord(current)) };
  }
  const state =
    (current.state === "revoked" || current.state === "reaped") && current.supersedes === fence.generation
      ? current.state
      : "superseded";
  const body = restateClaimComment(created, state, current.generation);
  return body ? { nodeId, body } : null;
}

/** How long a subject's write lock holds unless renewed (renewed every third of it while the write runs). */
export const writeLockHoldMs = 6_000;

/** A fresh owner for one write's lock. */
export function writeLockOwner(): string {
  return randomBytes(12).toString("base64url");
}

export interface FencedAssignmentsOptions {
  inner: AssignmentProvider;
  stores: { claims: Pick<ClaimStore, "get">; writeLocks: SubjectWriteLocks };
  log: Logger;
  /** Longest wait for another replica's write on the same subject (then the write goes ahead, corrected after). */
  waitMs?: number;
  /**
   * How long the lock lives unless renewed; it is renewed while the write runs, so a replica that
   * dies mid-write frees the subject within this time.
   */
  holdMs?: number;
}

/** The subject's write lock as one write holds it: the record read when it was taken, and its end. */
interface HeldLock {
  /** The record when the lock was taken (null: none, or the store could not say). */
  before: ClaimRecord | null;
  /** Ends the write (see `SubjectWriteLocks.finishWrite`): the record after it, "unknown" when the store cannot say. */
  finish(sentFor: WriteFence, commit: FinishWriteInput["commit"]): Promise<ClaimRecord | null | "unknown">;
  /** Gives the lock up (after a correction; a no-op when it was never held). */
  release(): Promise<void>;
}

/**
 * The AssignmentProvider every transition writes through. A write tagged with a `fence` takes the
 * subject's write lock (Redis, across replicas), is re-aimed at the current record if a newer
 * transition got there first, and after it lands is corrected if the record moved on meanwhile.
 * The store is asked twice: the lock with the record before, and the record after with the claim
 * comment's commit (when the fence asks for it) and the lock given up.
 */
export class FencedAssignments implements AssignmentProvider {
  readonly #inner: AssignmentProvider;
  readonly #options: FencedAssignmentsOptions;

  constructor(options: FencedAssignmentsOptions) {
    this.#inner = options.inner;
    this.#options = options;
  }

  status: AssignmentProvider["status"] = (ref, options) => this.#inner.status(ref, options);
  listOpenIssues: AssignmentProvider["listOpenIssues"] = (ref, options) =>
    this.#inner.listOpenIssues(ref, options);
  listRepositories: AssignmentProvider["listRepositories"] = (id) => this.#inner.listRepositories(id);
  repositoryName: AssignmentProvider["repositoryName"] = (id, repoId) =>
    this.#inner.repositoryName(id, repoId);
  lastEvidenceChange: AssignmentProvider["lastEvidenceChange"] = (ref, evidence) =>
    this.#inner.lastEvidenceChange(ref, evidence);
  ensureLabels: AssignmentProvider["ensureLabels"] = (ref, labels) => this.#inner.ensureLabels(ref, labels);

  async apply(ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite> {
    const { fence } = write;
    if (!fence) return this.#inner.apply(ref, write);
    const lock = fence.lockedBy ? this.#heldAlready(fence.key, fence.lockedBy) : await this.#lock(fence.key);
    let ended = false;
    try {
      const { before } = lock;
      const rebased = before !== null && movedOn(before, fence);
      const send = rebased ? rebaseWrite(write, before, fence) : write;
      const sentFor = rebased ? fenceOf(before, fence.labels) : fence;
      const applied = await this.#inner.apply(ref, { ...send, fence: undefined });
      const commit = commitOf(fence, applied);
      const after = await lock.finish(sentFor, commit);
      // The store could not say: nothing committed, and reconcile repairs what this misses.
      if (after === "unknown") return applied;
      // A newer transition was decided while this write was on its way: make GitHub show that one.
      if (after && movedOn(after, sentFor)) {
        const correction = desiredWrite(after, fence.labels, after.issueNodeId ?? write.subjectNodeId);
        // What the late write assigned (always an App-made assignment) and the current record does not want goes.
        const undo = (send.assign ?? []).filter((id) => !(correction.assign ?? []).includes(id));
        if (undo.length) correction.unassign = [...new Set([...(correction.unassign ?? []), ...undo])];
        const late = lateClaimComment(send.createClaimComment, applied, after, fence);
        if (late) correction.editComments = [...(correction.editComments ?? []), late];
        await this.#correct(ref, after, correction);
      } else {
        // finishWrite gave the lock up.
        ended = true;
      }
      return commit ? { ...applied, committed: true } : applied;
    } finally {
      if (!ended) await lock.release().catch(() => undefined);
    }
  }

  /** The store's record, or null when the store cannot say (then reconcile repairs what this misses). */
  async #read(key: SubjectKey): Promise<ClaimRecord | null> {
    try {
      return await this.#options.stores.claims.get(key);
    } catch (error) {
      this.#options.log.warn({ err: error }, "write fence: the store is unavailable, writing unfenced");
      return null;
    }
  }

  async #correct(ref: SubjectRef, current: ClaimRecord, correction: TransitionWrite) {
    try {
      await this.#inner.apply(ref, correction);
      this.#options.log.info(
        { subject: `${ref.repo}#${ref.issue}`, generation: current.generation },
        "a late write was corrected to the current claim",
      );
    } catch (error) {
      this.#options.log.warn(
        { subject: `${ref.repo}#${ref.issue}`, err: error },
        "could not correct a late write; reconcile will",
      );
    }
  }

  /** Takes the subject's write lock, waiting a bounded time. */
  async #lock(key: SubjectKey): Promise<HeldLock> {
    const { stores, log } = this.#options;
    const waitMs = this.#options.waitMs ?? 8_000;
    const holdMs = this.#options.holdMs ?? writeLockHoldMs;
    const owner = writeLockOwner();
    const deadline = Date.now() + waitMs;
    try {
      for (let pause = 5; ; pause = Math.min(100, pause * 2)) {
        const taken = await stores.writeLocks.lockWrite(key, owner, holdMs);
        if (taken.locked) return this.#held(key, owner, taken.record, true);
        if (Date.now() >= deadline) break;
        await sleep(pause);
      }
    } catch (error) {
      // No store, no lock: the write still goes out (GitHub is the durable side); reconcile repairs.
      log.warn(
        { lock: lockName(key), err: error },
        "write fence: the store is unavailable, writing unfenced",
      );
      return this.#held(key, owner, null, false);
    }
    log.warn(
      { lock: lockName(key) },
      "another write on this subject is still in flight; writing anyway, corrected after",
    );
    return this.#held(key, owner, await this.#read(key), false);
  }

  /**
   * The lock a claim took with the new generation, renewed from now on. Nothing can have moved the
   * record before the lock was taken: the record the write was decided for is the one it locked.
   */
  #heldAlready(key: SubjectKey, owner: string): HeldLock {
    return this.#held(key, owner, null, true);
  }

  /** Renews the lock while the write runs (GitHub may take seconds); the answer stops it. Dropped with the process. */
  #renewing(key: SubjectKey, owner: string): () => void {
    const { stores } = this.#options;
    const holdMs = this.#options.holdMs ?? writeLockHoldMs;
    const renew = setInterval(() => {
      stores.writeLocks.lockWrite(key, owner, holdMs).catch(() => undefined);
    }, holdMs / 3);
    renew.unref();
    return () => clearInterval(renew);
  }

  /**
   * The lock as one write holds it (a lock never taken ends the same way: the lock's owner is not this
   * write). A held lock is renewed until it is given up: finishWrite keeps it when the record moved on,
   * and renewal starts again for the correction, which may take longer than the hold (a renewal racing
   * finishWrite's release would take the lock again, so none runs during that call).
   */
  #held(key: SubjectKey, owner: string, before: ClaimRecord | null, renews: boolean): HeldLock {
    const { stores, log } = this.#options;
    const renew = () => (renews ? this.#renewing(key, owner) : () => undefined);
    let stopRenewing = renew();
    return {
      before,
      async finish(sentFor, commit) {
        stopRenewing();
        let after: ClaimRecord | null;
        try {
          after = await stores.writeLocks.finishWrite({ key, owner, sentFor, ...(commit ? { commit } : {}) });
        } catch (error) {
          log.warn({ err: error }, "write fence: the store is unavailable, writing unfenced");
          return "unknown";
        }
        if (after && movedOn(after, sentFor)) stopRenewing = renew();
        return after;
      },
      async release() {
        stopRenewing();
        await stores.writeLocks.unlockWrite(key, owner);
      },
    };
  }
}

/** The claim comment a write created, to commit on the fence's generation when the fence asks for it. */
function commitOf(fence: WriteFence, applied: AppliedWrite): FinishWriteInput["commit"] {
  if (!fence.commitClaimComment || !applied.claimComment) return undefined;
  const { nodeId, databaseId } = applied.claimComment;
  return { generation: fence.generation, comment: { commentNodeId: nodeId, commentId: databaseId } };
}

function lockName(key: SubjectKey): string {
  return `write:${key.installationId}:${key.repoId}:${key.issue}`;
}
