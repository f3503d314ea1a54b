// issue_comment.created / issues.unlabeled: a person answered a holder's ask for a person, or the App's on a stall's behalf (a reply, or the needs-human label removed) → its live stream hears it, and the App's ask is withdrawn.
import type { Logger } from "pino";
import type { ClaimRecord } from "../domain/claim.js";
import { countsAsPerson } from "../domain/trust.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import {
  type LeaseEventPublisher,
  needsHumanAnsweredEvent,
  publishLeaseEvents,
} from "../lease/lease-events.js";
import type { NeedsHumanShower } from "../lease/ports.js";
import { logFleetIgnored } from "./fleet-ignored.js";
import type { SyncDeps } from "./sync-deps.js";
import { subjectKeyOf } from "./sync-deps.js";
import { isFromBot, type WebhookHandler, type WebhookPayload } from "./webhook-guard.js";

type AnswerPayload = WebhookPayload<"issue_comment.created" | "issues.unlabeled">;

export interface NeedsHumanAnswer {
  record: ClaimRecord;
  by: string;
  how: "replied" | "cleared";
  commentUrl?: string;
}

/**
 * decide: only while the live agent claim's ask stands (the holder's, or the App's on its stall's
 * behalf), and only by someone other than the holder's login (an agent's own comment answers
 * nothing); a removal counts only for the needs-human label. The handler then asks who it was:
 * only a person's answer counts (`countsAsPerson`), never a fleet login's.
 */
export function decideAnswer(
  payload: AnswerPayload,
  record: ClaimRecord | null,
  needsHumanLabel: string,
): NeedsHumanAnswer | null {
  if (record?.state !== "active" || !(record.needsHuman || record.stallAsk) || !record.tokenDigest)
    return null;
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
  deps: Pick<SyncDeps, "stores" | "configs" | "now"> & {
    fleet: Pick<FleetLogins, "actorKind">;
    leaseEvents?: LeaseEventPublisher;
    needsHuman?: NeedsHumanShower;
  },
): WebhookHandler<AnswerPayload, NeedsHumanAnswer> {
  return {
    async decide(payload, log) {
      const key = subjectKeyOf(payload);
      if (!key) return null;
      const record = await deps.stores.claims.get(key);
      // Nobody to tell and no ask of the App's to withdraw: no config read for any comment.
      if (!record?.stallAsk && !(record?.needsHuman && deps.leaseEvents)) return null;
      const config = await deps.configs.load(key.installationId, payload.repository.full_name);
      const answer = decideAnswer(payload, record, config.labels.needsHuman);
      if (!answer) return null;
      // Only a person answers: not the App, not an account that runs agents (`countsAsPerson`).
      const author = "comment" in payload ? (payload.comment.user ?? payload.sender) : payload.sender;
      const account = { login: answer.by, bot: isFromBot({ sender: author }), ownApp: false };
      const holder = [{ marker: { actor: answer.record.actor } }];
      const kind = await deps.fleet.actorKind(key.installationId, account, config, holder);
      if (kind === "fleet") logFleetIgnored(log, "needs-human answer", answer.by);
      return countsAsPerson(kind, "needs-human-answer") ? answer : null;
    },
    async apply(answer, log: Logger) {
      const { record } = answer;
      if (record.stallAsk && (await deps.stores.claims.withdrawStallAsk(record, record.generation))) {
        // A reply leaves the label to take off; a removal already took it.
        const unasked = { ...record, stallAsk: false };
        if (deps.needsHuman) {
          const config = await deps.configs.load(record.installationId, record.repo);
          if (answer.how === "cleared") await deps.needsHuman.removedByPerson(unasked, config);
          else await deps.needsHuman.settle(unasked, config);
        }
        log.info({ by: answer.by, how: answer.how }, "a person answered the ask on the stall's behalf");
      }
      await publishLeaseEvents(deps.leaseEvents, log, [
        needsHumanAnsweredEvent(record, {
          by: answer.by,
          how: answer.how,
          at: deps.now(),
          ...(answer.commentUrl ? { commentUrl: answer.commentUrl } : {}),
        }),
      ]);
    },
  };
}
