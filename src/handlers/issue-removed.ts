// issues.transferred / issues.deleted: the subject left this repository → forget its record (the holder gets 410, and its live stream `revoked`).
import type { Logger } from "pino";
import type { SubjectKey } from "../domain/claim.js";
import { type LeaseEventPublisher, leaseEventsOf, publishLeaseEvents } from "../lease/lease-events.js";
import { type SyncDeps, subjectKeyOf } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type RemovedPayload = WebhookPayload<"issues.transferred" | "issues.deleted">;

export function issueRemoved(
  deps: SyncDeps & { leaseEvents?: LeaseEventPublisher },
): WebhookHandler<RemovedPayload, SubjectKey> {
  return {
    async decide(payload) {
      const key = subjectKeyOf(payload);
      if (!key) return null;
      const record = await deps.stores.claims.get(key);
      return record && record.state !== "revoked" ? key : null;
    },
    async apply(key: SubjectKey, log: Logger) {
      const at = deps.now();
      const previous = await deps.stores.claims.forget(key, at);
      log.info(
        { repoId: key.repoId, issue: key.issue },
        "claim record dropped: issue transferred or deleted",
      );
      // Only a lease this call ended: an ended generation's stream has already heard its end.
      if (previous?.state !== "active") return;
      const change = {
        cause: "revoked" as const,
        at,
        record: { ...previous, state: "revoked" as const },
        previous,
      };
      await publishLeaseEvents(deps.leaseEvents, log, leaseEventsOf(change));
    },
  };
}
