// The GitHub writes of a claim: a new incarnation's full transition, and a re-claim's comment update.
import type { RepoConfig } from "../../config/repo-config.js";
import { type ClaimRecord, subjectName } from "../../domain/claim.js";
import { branchCode, renderClaimComment } from "../../domain/claim-marker.js";
import { describeActor } from "../../domain/inert-text.js";
import type { GitHubUser, SubjectSnapshot, TransitionWrite } from "../../providers/assignment-provider.js";
import { latestMarker, markerHolds } from "../recovery/restore-from-comments.js";
import { spanOf } from "../transitions/ended-write.js";
import { fenceOf } from "../transitions/fenced-writes.js";

/** The write of a new incarnation `record` that replaces `previous` (see `decideClaim` for `ghost`). */
export function claimWrite(
  snapshot: SubjectSnapshot,
  record: ClaimRecord,
  previous: ClaimRecord | null,
  config: RepoConfig,
  user: GitHubUser,
  now: number,
  ghost: boolean,
): TransitionWrite {
  const write: TransitionWrite = {
    subjectNodeId: snapshot.nodeId,
    createClaimComment: renderClaimComment(record, "active"),
  };
  // Also when the previous claim ended but its own write never landed (`sync: pending`): its
  // App-made assignment is still on GitHub, and nothing else would remove it once this claim is active.
  const unassign =
    (previous?.state === "active" || (previous?.sync === "pending" && previous.actor.kind === "agent")) &&
    previous.appAssigned &&
    previous.actor.login !== user.login;
  if (unassign && previous.assigneeNodeId) write.unassign = [previous.assigneeNodeId];
  // The newest trusted claim comment may name an App-made assignment the store no longer knows of
  // (a claim rolled back after its write landed anyway): superseded now, so it goes too.
  const latest = latestMarker(snapshot)?.marker;
  const markedAppMade =
    !ghost && latest && markerHolds(latest) && latest.appAssigned && latest.actor.login !== user.login
      ? snapshot.assignees.find((a) => a.login === latest.actor.login)?.nodeId
      : undefined;
  if (markedAppMade) write.unassign = [...new Set([...(write.unassign ?? []), markedAppMade])];
  // The full desired state (invariant 13): a late release or reap of the previous incarnation
  // that lands first is undone; one that lands after is corrected by the write fence.
  if (record.appAssigned) write.assign = [user.nodeId];
  write.addLabels = [config.labels.claimed];
  write.fence = fenceOf(record, config.labels);
  // A new incarnation has asked nobody yet: an earlier holder's stale mark and ask for a person go.
  const leftOver = [config.labels.stale, config.labels.needsHuman].filter((l) => snapshot.labels.includes(l));
  if (leftOver.length > 0) write.removeLabels = leftOver;
  if (previous?.state === "active") {
    if (previous.commentNodeId) {
      write.editComments = [
        { nodeId: previous.commentNodeId, body: renderClaimComment(previous, "superseded") },
      ];
    }
    write.addComments = [
      `↪️ Superseded ${describeActor(previous.actor)} (generation ${previous.generation}, last seen ${spanOf(now - previous.lastHeartbeatAt)} ago)` +
        `; resuming on branch ${branchCode(record.branch ?? "")} as generation ${record.generation}.`,
    ];
  }
  return write;
}

/**
 * The write of a re-claim by the holding session (`record` already carries the new token's digest).
 * A claim whose own write never landed (the process died mid-claim, or GitHub answered late) is
 * completed now: comment, assignment and label; otherwise only the comment is edited. `own` is the
 * generation's claim comment GitHub shows, if any.
 */
export function reclaimWrite(
  snapshot: SubjectSnapshot,
  record: ClaimRecord,
  config: RepoConfig,
  user: GitHubUser,
): { write: TransitionWrite; own: SubjectSnapshot["claimComments"][number] | undefined } {
  const subject = subjectName(snapshot.repo, snapshot.issue);
  const own = snapshot.claimComments.find(
    (c) => c.marker.subject === subject && c.marker.generation === record.generation,
  );
  const commentNodeId = record.commentNodeId ?? own?.nodeId;
  const write: TransitionWrite = { subjectNodeId: snapshot.nodeId };
  if (commentNodeId) {
    write.editComments = [{ nodeId: commentNodeId, body: renderClaimComment(record, "active") }];
  } else {
    write.createClaimComment = renderClaimComment(record, "active");
  }
  // The full desired state (invariant 13): adds are idempotent, and a late write of an older
  // transition that stripped them is undone by this one.
  if (record.appAssigned) write.assign = [user.nodeId];
  write.addLabels = [config.labels.claimed];
  if (snapshot.labels.includes(config.labels.stale)) write.removeLabels = [config.labels.stale];
  return { write, own };
}
