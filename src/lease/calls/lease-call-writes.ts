// What a holder's lease calls write to the forge: the release's labels and note, the claim comment's edits.
import type { ClaimRecord } from "../../domain/claim.js";
import { branchCode, type MarkerState, renderClaimComment } from "../../domain/claim-marker.js";
import { describeActor, inert } from "../../domain/inert-text.js";
import type { TransitionWrite } from "../../providers/assignment-provider.js";

/** The release's write: labels and App-made assignment off, the comment ended, a note if there is one. */
export function releaseWrite(
  record: ClaimRecord,
  labels: { claimed: string; stale: string; needsHuman: string },
  note?: string,
  stallAsked?: boolean,
): TransitionWrite {
  const write: TransitionWrite = {
    subjectNodeId: record.issueNodeId ?? "",
    // A standing ask for a person ends with the lease that made it (a record restored from its
    // comment asks when the issue showed the label).
    removeLabels: [
      labels.claimed,
      labels.stale,
      ...(record.needsHuman || stallAsked ? [labels.needsHuman] : []),
    ],
    ...commentEdit(record, record.state === "completed" ? "completed" : "released"),
  };
  if (record.appAssigned && record.assigneeNodeId) write.unassign = [record.assigneeNodeId];
  const trimmed = note?.trim();
  if (trimmed || record.outcome === "handoff" || record.outcome === "failed") {
    write.addComments = [
      `📝 ${describeActor(record.actor)} released generation ${record.generation} (${record.outcome})` +
        (record.branch ? ` · branch ${branchCode(record.branch)}` : "") +
        (trimmed ? `\n\n> ${inert(trimmed, { multiline: true, max: 4000 }).replace(/\n/g, "\n> ")}` : ""),
    ];
  }
  return write;
}

export function commentEdit(record: ClaimRecord, state: MarkerState): Pick<TransitionWrite, "editComments"> {
  return record.commentNodeId
    ? { editComments: [{ nodeId: record.commentNodeId, body: renderClaimComment(record, state) }] }
    : {};
}
