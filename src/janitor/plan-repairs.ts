// The janitor's repair decisions as pure functions: which GitHub write (or store restore) a record and a snapshot call for.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import { branchCode, renderClaimComment } from "../domain/claim-marker.js";
import { describeActor } from "../domain/inert-text.js";
import { claimStateUnknown, latestMarker, markerHolds } from "../lease/recovery/restore-from-comments.js";
import { spanOf } from "../lease/transitions/ended-write.js";
import { fenceOf, labelRepair } from "../lease/transitions/fenced-writes.js";
import type {
  ClaimCommentEvidence,
  SubjectSnapshot,
  TransitionWrite,
} from "../providers/assignment-provider.js";
import { subjectName } from "./sweep-types.js";

/** The audit comment of a claim marked stale. */
export function staleNote(record: ClaimRecord, now: number): string {
  return (
    `⏸️ No heartbeat from ${describeActor(record.actor)} for ${spanOf(now - record.lastHeartbeatAt)} ` +
    `(stale after ${spanOf(record.durations.ttlMs)}). The claim is kept; ` +
    `it is reaped after ${spanOf(record.durations.reclaimAfterMs)} without a heartbeat.`
  );
}

/** The audit comment of a reaped claim. */
export function reapNote(record: ClaimRecord, now: number): string {
  return (
    `🧹 Reaped generation ${record.generation} of ${describeActor(record.actor)}: last heartbeat ` +
    `${new Date(record.lastHeartbeatAt).toISOString()} (${spanOf(now - record.lastHeartbeatAt)} ago), ` +
    "no open pull request and no recent push." +
    (record.branch
      ? ` Its branch ${branchCode(record.branch)} is kept: claim the issue again to resume from it.`
      : "")
  );
}

/** The audit comment of a claim revoked because its App-made assignment is gone. */
export function revokedNote(generation: number): string {
  return `⛔ The assignment of generation ${generation} is gone from GitHub; the claim is revoked.`;
}

/** The write marking a claim stale on GitHub, once the store marked `marked` (the stale record). */
export function staleWrite(
  record: ClaimRecord,
  marked: ClaimRecord,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
  now: number,
): TransitionWrite {
  return {
    subjectNodeId: snapshot.nodeId,
    fence: fenceOf(marked, config.labels),
    removeLabels: [config.labels.claimed],
    addLabels: [config.labels.stale],
    ...(record.commentNodeId
      ? { editComments: [{ nodeId: record.commentNodeId, body: renderClaimComment(marked, "stale") }] }
      : {}),
    addComments: [staleNote(record, now)],
  };
}

export type PhantomRepair = { kind: "revoke" } | { kind: "rewrite"; write: TransitionWrite };

/**
 * A phantom left by a failed or missed write: revoke it when the App-made assignment is gone from
 * GitHub, otherwise re-apply what the record says (label, and the claim comment if missing).
 */
export function planPhantomRepair(
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
): PhantomRepair {
  const assigned = snapshot.assignees.some((a) => a.login === record.actor.login);
  if (record.appAssigned && !assigned) return { kind: "revoke" };
  const hasComment = snapshot.claimComments.some((c) => c.marker.generation === record.generation);
  const label = record.staleMarkedAt !== undefined ? config.labels.stale : config.labels.claimed;
  return {
    kind: "rewrite",
    write: {
      subjectNodeId: snapshot.nodeId,
      fence: fenceOf(record, config.labels),
      ...(snapshot.labels.includes(label) ? {} : { addLabels: [label] }),
      ...(hasComment
        ? {}
        : { createClaimComment: renderClaimComment(record, record.staleMarkedAt ? "stale" : "active") }),
    },
  };
}

/**
 * App-made agent assignments a trusted claim comment still shows in force, of another account than
 * the record's holder: left by a claim whose write landed after it was rolled back (invariant 13).
 * Only what a signed marker says the App assigned is named, never a person's assignment.
 */
export function supersededAppAssignees(
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
): { nodeId: string; generation: number }[] {
  const subject = subjectName(snapshot.repo, snapshot.issue);
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

/** A live agent claim's App-made assignment that the subject no longer shows. */
export function lostAppAssignment(record: ClaimRecord, snapshot: SubjectSnapshot): boolean {
  return (
    record.state === "active" &&
    record.actor.kind === "agent" &&
    record.appAssigned === true &&
    record.assigneeNodeId !== undefined &&
    !snapshot.assignees.some((a) => a.login === record.actor.login)
  );
}

/**
 * Invariant 13 for a claim in force: its labels as the record says, a live agent claim's lost
 * App-made assignment back, and superseded App-made assignments (`leftovers`, rolled-back
 * generations already left out) off. Null when GitHub already shows the record.
 */
export function planLabelRepair(
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
  leftovers: readonly { nodeId: string }[],
  options: { reassign: boolean } = { reassign: true },
): { reason: string; write: TransitionWrite } | null {
  const repair = labelRepair(record, config.labels, snapshot.labels);
  // A live agent claim whose App-made assignment the forge lost to a late write of the App's gets it
  // back: invariant 13 repairs toward the current generation. The caller says whether the newest
  // removal was the App's (`reassign`): a person's stands (invariant 5), its webhook left undecided.
  const lostAssignment = options.reassign && lostAppAssignment(record, snapshot);
  if (!repair && !lostAssignment && leftovers.length === 0) return null;
  const reason = repair || lostAssignment ? "diverged-from-record" : "superseded-app-assignment-left";
  return {
    reason,
    write: {
      subjectNodeId: snapshot.nodeId,
      ...repair,
      ...(lostAssignment ? { assign: [record.assigneeNodeId!] } : {}),
      ...(leftovers.length ? { unassign: leftovers.map((left) => left.nodeId) } : {}),
      fence: fenceOf(record, config.labels),
    },
  };
}

/**
 * The record as it was in force before an ended claim, for re-sending the ended write: a reap or
 * revoke bumped the generation past the one GitHub shows.
 */
export function recordBeforeEnd(record: ClaimRecord): ClaimRecord {
  return {
    ...record,
    state: "active",
    generation:
      record.state === "reaped" || record.state === "revoked"
        ? (record.supersedes ?? record.generation)
        : record.generation,
  };
}

/** Labels off, the superseded agent's App-made assignment off, the human assigned and announced. */
export function finishReclaimWrite(
  record: ClaimRecord,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
): TransitionWrite {
  const subject = subjectName(snapshot.repo, snapshot.issue);
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
  return {
    subjectNodeId: snapshot.nodeId,
    fence: fenceOf(record, config.labels),
    removeLabels: managedLabelsShown(snapshot, config),
    ...(unassign.length ? { unassign } : {}),
    ...(record.appAssigned && record.assigneeNodeId && !assigned ? { assign: [record.assigneeNodeId] } : {}),
    ...(hasComment
      ? {}
      : { createClaimComment: renderClaimComment(record, record.state === "human" ? "active" : "released") }),
  };
}

/** What the reconcile pass does with one labelled issue, decided from its record and snapshot. */
export type ReconcileAction =
  | { kind: "finish-reclaim"; record: ClaimRecord }
  | { kind: "repair-labels"; record: ClaimRecord }
  /** An ended claim whose write failed: the pending retry finishes it from its record. */
  | { kind: "left-to-retry" }
  /** Invariant 12: what GitHub shows cannot be explained by a trusted claim comment. */
  | { kind: "state-unknown" }
  | { kind: "rebuild-record"; comment: ClaimCommentEvidence }
  | { kind: "remove-label"; write: Omit<TransitionWrite, "fence"> };

export function planReconcile(
  record: ClaimRecord | null,
  snapshot: SubjectSnapshot,
  config: RepoConfig,
): ReconcileAction {
  // A `/reclaim` whose one batched write failed after the store took the subject (invariant 10).
  if (record?.actor.kind === "human" && record.sync === "pending") return { kind: "finish-reclaim", record };
  if (record && (record.state === "active" || record.state === "human")) {
    return { kind: "repair-labels", record };
  }
  if (record?.sync === "pending") return { kind: "left-to-retry" };
  if (claimStateUnknown(snapshot, [config.labels.claimed, config.labels.stale])) {
    return { kind: "state-unknown" };
  }
  const latest = latestMarker(snapshot);
  const current = latest && (!record || latest.marker.generation > record.generation);
  if (current && markerHolds(latest.marker)) return { kind: "rebuild-record", comment: latest };
  // The claim ended (its comment says so) but its write never landed: the App-made assignment goes too.
  const marker = latest?.marker;
  const leftAssignee =
    marker?.appAssigned && marker.actor.kind === "agent"
      ? snapshot.assignees.find((a) => a.login === marker.actor.login)
      : undefined;
  return {
    kind: "remove-label",
    write: {
      subjectNodeId: snapshot.nodeId,
      removeLabels: managedLabelsShown(snapshot, config),
      ...(leftAssignee ? { unassign: [leftAssignee.nodeId] } : {}),
      addComments: ["🏷️ claim-hold found a claim label without a live claim behind it and removed it."],
    },
  };
}

/** The fence of a label removed for want of a live claim: a claim made since re-aims it (invariant 13). */
export function labelWithoutRecordFence(
  key: SubjectKey,
  record: ClaimRecord | null,
  config: RepoConfig,
): NonNullable<TransitionWrite["fence"]> {
  return {
    key,
    generation: record?.generation ?? 0,
    state: record?.state ?? "revoked",
    stale: false,
    labels: config.labels,
  };
}

function managedLabelsShown(snapshot: SubjectSnapshot, config: RepoConfig): string[] {
  return [config.labels.claimed, config.labels.stale, config.labels.needsHuman].filter((l) =>
    snapshot.labels.includes(l),
  );
}
