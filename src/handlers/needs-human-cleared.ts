// issues.unlabeled: a person took `agent:needs-human` off → the subject's failure breaker is reset, so the queue offers it again.
import type { Logger } from "pino";
import type { SubjectKey } from "../domain/claim.js";
import { countsAsPerson } from "../domain/trust.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import { type SyncDeps, subjectKeyOf } from "./sync-deps.js";
import { senderAccount, type WebhookHandler, type WebhookPayload } from "./webhook-guard.js";

type UnlabeledPayload = WebhookPayload<"issues.unlabeled">;

/**
 * decide: only the needs-human label, removed by a person. The guard drops bots (the App's own
 * removals); an agent account acting as a user (configured, learned, or the holder of a failed
 * attempt) cannot reset its own breaker either, as it cannot `/reclaim`.
 */
export function needsHumanCleared(
  deps: Pick<SyncDeps, "stores" | "configs"> & { fleet: Pick<FleetLogins, "actorKind"> },
): WebhookHandler<UnlabeledPayload, { key: SubjectKey; by: string }> {
  return {
    async decide(payload) {
      const key = subjectKeyOf(payload);
      const label = payload.label?.name;
      if (!key || !label) return null;
      // Nothing to reset: no config read (a GitHub request on a cold cache) for every label removed.
      const attempts = await deps.stores.claims.failures(key);
      if (attempts.length === 0) return null;
      const config = await deps.configs.load(key.installationId, payload.repository.full_name);
      if (label.toLowerCase() !== config.labels.needsHuman.toLowerCase()) return null;
      const holders = attempts.map((attempt) => ({ marker: { actor: attempt.actor } }));
      const kind = await deps.fleet.actorKind(key.installationId, senderAccount(payload), config, holders);
      if (!countsAsPerson(kind, "breaker-reset")) return null;
      return { key, by: payload.sender.login };
    },
    async apply(action, log: Logger) {
      await deps.stores.claims.clearFailures(action.key);
      log.info({ by: action.by }, "failure breaker reset: needs-human label removed");
    },
  };
}
