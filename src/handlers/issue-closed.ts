// issues.closed: the claimed work is done → the claim ends as `completed`; the assignee stays as the record.
import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord } from "../domain/claim.js";
import { endByPerson, type SyncDeps, subjectKeyOf } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type ClosedPayload = WebhookPayload<"issues.closed">;

export interface CompleteAction {
  record: ClaimRecord;
  config: RepoConfig;
  by: string;
}

export function issueClosed(deps: SyncDeps): WebhookHandler<ClosedPayload, CompleteAction> {
  return {
    async decide(payload) {
      const key = subjectKeyOf(payload);
      if (!key) return null;
      const record = await deps.stores.claims.get(key);
      if (record?.state !== "active") return null;
      const config = await deps.configs.load(key.installationId, payload.repository.full_name);
      return { record, config, by: payload.sender.login };
    },
    async apply(action: CompleteAction, log: Logger) {
      const { record } = action;
      const outcome = await endByPerson(deps, log, action, {
        to: "completed",
        bump: false,
        keepAssignee: true,
      });
      if (outcome.kind !== "ended") return;
      log.info({ subject: `${record.repo}#${record.issue}` }, "claim completed by closing the issue");
    },
  };
}
