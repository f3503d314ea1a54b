// The GitHub side of a claim that ends without its holder (revoke, reap, completion, /reclaim).
import type { RepoConfig } from "../../config/repo-config.js";
import type { ClaimRecord } from "../../domain/claim.js";
import { type MarkerState, renderClaimComment } from "../../domain/claim-marker.js";
import type { TransitionWrite } from "../../providers/assignment-provider.js";
import { fenceOf } from "./fenced-writes.js";

const markerStateOf: Record<string, MarkerState> = {
  reaped: "reaped",
  revoked: "revoked",
  completed: "completed",
  released: "released",
  human: "superseded",
};

/**
 * Removes the managed labels, unassigns only what the App assigned (unless `keepAssignee`), turns
 * the holder's claim comment final and adds the audit note. `previous` is the record as it was
 * while active (its generation names the claim comment); `ended` the record now stored.
 */
export function endedClaimWrite(args: {
  previous: ClaimRecord;
  ended: ClaimRecord;
  config: RepoConfig;
  keepAssignee?: boolean;
  note?: string;
}): TransitionWrite {
  const { previous, ended, config } = args;
  const write: TransitionWrite = {
    subjectNodeId: previous.issueNodeId ?? ended.issueNodeId ?? "",
    // A standing ask for a person ends with the lease that made it (a record restored from its
    // comment asks when the issue showed the label).
    removeLabels: [
      config.labels.claimed,
      config.labels.stale,
      ...(previous.needsHuman || previous.stallAsk ? [config.labels.needsHuman] : []),
    ],
    fence: fenceOf(ended, config.labels),
  };
  if (!args.keepAssignee && previous.appAssigned && previous.assigneeNodeId) {
    write.unassign = [previous.assigneeNodeId];
  }
  if (previous.commentNodeId) {
    const state = markerStateOf[ended.state] ?? "revoked";
    write.editComments = [
      { nodeId: previous.commentNodeId, body: renderClaimComment(previous, state, ended.generation) },
    ];
  }
  if (args.note) write.addComments = [args.note];
  return write;
}

/** Minutes, rounded, for audit notes ("last heartbeat 41 min ago"). */
export function minutesAgo(now: number, at: number): number {
  return Math.max(0, Math.round((now - at) / 60_000));
}

/** A span for audit notes: "41 min", or "25 s" under a minute and a half (test and demo configs run in seconds). */
export function spanOf(ms: number): string {
  const clamped = Math.max(0, ms);
  return clamped < 90_000 ? `${Math.round(clamped / 1000)} s` : `${Math.round(clamped / 60_000)} min`;
}

/** The audit comment of a claim a person revoked by taking its assignment or label off. */
export function removalRevokedNote(by: string, what: "assignment" | "label", generation: number): string {
  return (
    `⛔ @${by} removed the claim's ${what}; generation ${generation} is revoked ` +
    `and its holder must stop working on this issue.`
  );
}
