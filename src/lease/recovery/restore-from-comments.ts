// Invariant 7: claim records rebuilt from the App's claim comments when the store lost them (pure functions).
import type { ClaimRecord, SubjectKey } from "../../domain/claim.js";
import type { ClaimMarker } from "../../domain/claim-marker.js";
import type { ClaimCommentEvidence, SubjectSnapshot } from "../../providers/assignment-provider.js";

/** The subject's newest claim comment (highest generation); markers naming another subject are ignored. */
export function latestMarker(snapshot: SubjectSnapshot): ClaimCommentEvidence | undefined {
  const subject = `${snapshot.repo}#${snapshot.issue}`;
  let latest: ClaimCommentEvidence | undefined;
  for (const comment of snapshot.claimComments) {
    if (comment.marker.subject !== subject) continue;
    if (!latest || comment.marker.generation > latest.marker.generation) latest = comment;
  }
  return latest;
}

/** The highest generation GitHub shows, counting the generation an ended claim was bumped to. */
export function highestGeneration(snapshot: SubjectSnapshot): number {
  let highest = 0;
  for (const { marker } of snapshot.claimComments) {
    highest = Math.max(highest, marker.generation, marker.nextGeneration ?? 0);
  }
  return highest;
}

/**
 * Invariant 12: the subject shows signs of a claim — a managed label, or a marker of the App's that
 * does not verify — or its thread was not read back far enough, yet no trusted claim comment was
 * found. Then nothing may be decided from GitHub's side: never "never claimed".
 */
export function claimStateUnknown(snapshot: SubjectSnapshot, managedLabels: readonly string[]): boolean {
  // A newer claim comment of the App's that does not verify (edited by hand, or signed with a secret
  // no longer known) hides what came last, whatever the older trusted ones say.
  if (snapshot.rejectedAfterTrusted > 0) return true;
  const managed = new Set(managedLabels.map((l) => l.toLowerCase()));
  const labelled = snapshot.labels.some((l) => managed.has(l.toLowerCase()));
  // An ended latest claim under a managed label: a newer claim comment is missing (deleted), or
  // the label came back — either way the latest claim is not what the comments say.
  const latest = latestMarker(snapshot);
  if (latest) return labelled && !markerHolds(latest.marker);
  return (
    snapshot.markerSearch === "truncated" ||
    snapshot.rejectedMarkers > 0 ||
    snapshot.auditComments > 0 ||
    labelled
  );
}

/** A marker in force holds the subject: an agent's live (or stale) claim, or a human's. */
export function markerHolds(marker: ClaimMarker): boolean {
  return marker.state === "active" || marker.state === "stale";
}

function restoredState(
  marker: ClaimMarker,
): Pick<ClaimRecord, "state"> & Partial<Pick<ClaimRecord, "outcome">> {
  switch (marker.state) {
    case "active":
    case "stale":
      return { state: marker.actor.kind === "human" ? "human" : "active" };
    case "released":
      return { state: "released", outcome: "handoff" };
    case "completed":
      return { state: "completed", outcome: "completed" };
    case "reaped":
      return { state: "reaped" };
    default:
      // `superseded` (a newer incarnation exists, maybe beyond the comments read) and `revoked` never revive.
      return { state: "revoked" };
  }
}

/**
 * The record a claim comment stands for. Liveness is unknown: the record counts as heartbeated just
 * before it was restored or at the store's epoch, whichever is later, so the janitor gives the holder
 * a full `reclaimAfter` from there (and reports `unknown` while the epoch is younger than that).
 */
export function recordFromMarker(
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  comment: { nodeId: string; databaseId: number; marker: ClaimMarker },
  storeEpoch: number,
  restoredAt: number,
  /** The configured needs-human label: shown on a live claim's issue, the restored holder asks for a person. */
  needsHumanLabel = "agent:needs-human",
): ClaimRecord {
  const { marker } = comment;
  const asks =
    markerHolds(marker) && snapshot.labels.some((l) => l.toLowerCase() === needsHumanLabel.toLowerCase());
  const ttlMs = marker.ttlSeconds * 1000;
  const assignee = snapshot.assignees.find((a) => a.login === marker.actor.login);
  return {
    ...key,
    repo: snapshot.repo,
    generation: marker.generation,
    ...restoredState(marker),
    actor: marker.actor,
    taskClass: marker.taskClass,
    ...(marker.branch ? { branch: marker.branch } : {}),
    durations: {
      ttlMs,
      reclaimAfterMs: (marker.reclaimAfterSeconds ?? marker.ttlSeconds * 2) * 1000,
      heartbeatMs: (marker.heartbeatSeconds ?? Math.max(1, Math.floor(marker.ttlSeconds / 6))) * 1000,
    },
    claimedAt: Date.parse(marker.claimedAt),
    lastHeartbeatAt: Math.max(storeEpoch, restoredAt) - 1,
    ...(marker.state === "stale" ? { staleMarkedAt: Math.max(storeEpoch, restoredAt) - 1 } : {}),
    ...(marker.tokenDigest ? { tokenDigest: marker.tokenDigest } : {}),
    appAssigned: marker.appAssigned ?? false,
    ...(assignee ? { assigneeNodeId: assignee.nodeId } : {}),
    sync: "done",
    issueNodeId: snapshot.nodeId,
    commentNodeId: comment.nodeId,
    commentId: comment.databaseId,
    ...(marker.supersedes ? { supersedes: marker.supersedes } : {}),
    ...(marker.artifacts ? { artifacts: marker.artifacts } : {}),
    ...(asks ? { needsHuman: true } : {}),
  };
}
