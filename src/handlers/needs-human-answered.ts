// issue_comment.created / issues.unlabeled: a person answered a holder's ask for a person (a reply, or the needs-human label removed) → its live stream hears it.
import type { Logger } from "pino";
import type { ClaimRecord } from "../domain/claim.js";
import {
  type LeaseEventPublisher,
  needsHumanAnsweredEvent,
  publishLeaseEvents,
} from "../lease/lease-events.js";
import type { SyncDeps } from "./sync-deps.js";
import { subjectKeyOf } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type AnswerPayload = WebhookPayload<"issue_comment.created" | "issues.unlabeled">;

export interface NeedsHumanAnswer {
  record: ClaimRecord;
  by: string;
  how: "replied" | "cleared";
  commentUrl?: string;
}

/**
 * decide: only while the live agent claim's ask stands, and only by someone other than the holder's
 * login (an agent's own comment answers nothing); a removal counts only for the needs-human label.
 */
export function decideAnswer(
  payload: AnswerPayload,
  record: ClaimRecord | null,
  needsHumanLabel: string,
): NeedsHumanAnswer | null {
  if (record?.state !== "active" || !record.needsHuman || !record.tokenDigest) return null;
  if ("comment" in payload) {
    const by = payload.comment.user?.login ?? payload.sender.login;
    if (by.toLowerCase() === record.actor.login.toLowerCase() || payload.issue.pull_request) return null;
    return { record, by, how: "replied", commentUrl: payload.comment.html_url };
  }
  if (payload.label?.name.toLowerCase() !== needsHumanLabel.toLowerCase()) return null;
  if (payload.sender.login.toLowerCase() === record.actor.login.toLowerCase()) return null;
  return { record, by: payload.sender.login, how: "cleared" };
}

export function needsHumanAnswered(
  deps: Pick<SyncDeps, "stores" | "configs" | "now"> & { leaseEvents?: LeaseEventPublisher },
): WebhookHandler<AnswerPayload, NeedsHumanAnswer> {
  return {
    async decide(payload) {
      // Nobody to tell: no store read for any comment.
      if (!deps.leaseEvents) return null;
      const key = subjectKeyOf(payload);
      if (!key) return null;
      const record = await deps.stores.claims.get(key);
      if (!record?.needsHuman) return null;
      const config = await deps.configs.load(key.installationId, payload.repository.full_name);
      return decideAnswer(payload, record, config.labels.needsHuman);
    },
    async apply(answer, log: Logger) {
      await publishLeaseEvents(deps.leaseEvents, log, [
        needsHumanAnsweredEvent(answer.record, {
          by: answer.by,
          how: answer.how,
          at: deps.now(),
          ...(answer.commentUrl ? { commentUrl: answer.commentUrl } : {}),
        }),
      ]);
    },
  };
}
