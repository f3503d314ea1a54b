// issues.transferred / issues.deleted: the subject left this repository → forget its record (the holder gets 410).
import type { Logger } from "pino";
import type { SubjectKey } from "../domain/claim.js";
import { type SyncDeps, subjectKeyOf } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type RemovedPayload = WebhookPayload<"issues.transferred" | "issues.deleted">;

export function issueRemoved(deps: SyncDeps): WebhookHandler<RemovedPayload, SubjectKey> {
  return {
    async decide(payload) {
      const key = subjectKeyOf(payload);
      if (!key) return null;
      const record = await deps.stores.claims.get(key);
      return record && record.state !== "revoked" ? key : null;
    },
    async apply(key: SubjectKey, log: Logger) {
      await deps.stores.claims.forget(key, deps.now());
      log.info(
        { repoId: key.repoId, issue: key.issue },
        "claim record dropped: issue transferred or deleted",
      );
    },
  };
}
