// issue_comment.edited / .deleted: someone altered or removed the current claim comment → re-render it from the store.

import type { Logger } from "pino";
import { defaultRepoConfig } from "../config/repo-config.js";
import type { ClaimRecord } from "../domain/claim.js";
import { markerStateOfRecord, renderClaimComment } from "../domain/claim-marker.js";
import { fenceOf } from "../lease/transitions/fenced-writes.js";
import { subjectRefOf } from "../providers/assignment-provider.js";
import { type SyncDeps, subjectKeyOf } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type CommentPayload = WebhookPayload<"issue_comment.edited" | "issue_comment.deleted">;

export interface RepairAction {
  record: ClaimRecord;
  body: string;
  /** Deleted comments are posted anew; edited ones are edited back. */
  recreate: boolean;
  issueNodeId: string;
  commentNodeId: string;
}

export { markerStateOfRecord };

/** decide: only the current incarnation's own claim comment is repaired, and only when it differs. */
export function decideRepair(payload: CommentPayload, record: ClaimRecord | null): RepairAction | null {
  if (!record || record.commentId !== payload.comment.id) return null;
  const body = renderClaimComment(record, markerStateOfRecord(record));
  if (payload.action === "edited" && payload.comment.body === body) return null;
  return {
    record,
    body,
    recreate: payload.action === "deleted",
    issueNodeId: record.issueNodeId ?? payload.issue.node_id,
    commentNodeId: payload.comment.node_id,
  };
}

export function claimCommentRepair(deps: SyncDeps): WebhookHandler<CommentPayload, RepairAction> {
  return {
    async decide(payload) {
      const key = subjectKeyOf(payload);
      if (!key) return null;
      return decideRepair(payload, await deps.stores.claims.get(key));
    },
    async apply(action: RepairAction, log: Logger) {
      const { record } = action;
      const ref = subjectRefOf(record);
      // Rendered from the record as it was read: should the claim move on meanwhile (a release, a
      // takeover), the fence re-aims the edit at the current record (invariant 13).
      // The cached config's label names (a cosmetic repair spends no config reads), else the defaults.
      const config = deps.configs.peek(record.installationId, record.repo) ?? defaultRepoConfig;
      const fence = fenceOf(record, config.labels);
      if (action.recreate) {
        const applied = await deps.assignments.apply(ref, {
          subjectNodeId: action.issueNodeId,
          createClaimComment: action.body,
          fence,
        });
        if (applied.claimComment) {
          await deps.stores.claims.commitClaim(record, record.generation, {
            commentNodeId: applied.claimComment.nodeId,
            commentId: applied.claimComment.databaseId,
          });
        }
      } else {
        await deps.assignments.apply(ref, {
          subjectNodeId: action.issueNodeId,
          editComments: [{ nodeId: action.commentNodeId, body: action.body }],
          fence,
        });
      }
      log.info(
        { subject: `${record.repo}#${record.issue}`, recreate: action.recreate },
        "claim comment repaired",
      );
    },
  };
}
