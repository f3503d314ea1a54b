// issues.unassigned / issues.unlabeled: a human took away the App-made assignment or the claimed label → revoke.

import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord } from "../domain/claim.js";
import { countsAsPerson } from "../domain/trust.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import { removalRevokedNote } from "../lease/transitions/ended-write.js";
import { logFleetIgnored } from "./fleet-ignored.js";
import { endByPerson, type SyncDeps, subjectKeyOf } from "./sync-deps.js";
import { senderAccount, type WebhookHandler, type WebhookPayload } from "./webhook-guard.js";

type RemovalPayload = WebhookPayload<"issues.unassigned" | "issues.unlabeled">;

export interface RevokeAction {
  record: ClaimRecord;
  config: RepoConfig;
  by: string;
  what: "assignment" | "label";
}

/** decide: only the removal of this claim's own App-made assignment, or of the claimed label, revokes. */
export function decideRevoke(
  payload: RemovalPayload,
  record: ClaimRecord | null,
  config: RepoConfig,
): RevokeAction | null {
  if (record?.state !== "active" || record.actor.kind !== "agent") return null;
  if (payload.action === "unassigned") {
    if (!record.appAssigned || payload.assignee?.login !== record.actor.login) return null;
    return { record, config, by: payload.sender.login, what: "assignment" };
  }
  if (payload.action === "unlabeled" && payload.label?.name === config.labels.claimed) {
    return { record, config, by: payload.sender.login, what: "label" };
  }
  return null;
}

/**
 * decide: `decideRevoke`, then who removed it: only a person's removal revokes (`countsAsPerson`);
 * an account that runs agents (the holder's own among them) acts through the API. The fleet is
 * asked only for a removal that would revoke, so other label edits cost nothing more.
 */
export function revokeOnRemoval(
  deps: SyncDeps & { fleet: Pick<FleetLogins, "actorKind"> },
): WebhookHandler<RemovalPayload, RevokeAction> {
  return {
    async decide(payload, log) {
      const key = subjectKeyOf(payload);
      if (!key) return null;
      if (payload.action === "unlabeled" && !payload.label?.name) return null;
      const record = await deps.stores.claims.get(key);
      if (record?.state !== "active") return null;
      const config = await deps.configs.load(key.installationId, payload.repository.full_name);
      const action = decideRevoke(payload, record, config);
      if (!action) return null;
      const holder = [{ marker: { actor: record.actor } }];
      const kind = await deps.fleet.actorKind(key.installationId, senderAccount(payload), config, holder);
      if (kind === "fleet") logFleetIgnored(log, "removal", action.by);
      return countsAsPerson(kind, "claim-removal") ? action : null;
    },
    async apply(action: RevokeAction, log: Logger) {
      const { record } = action;
      const note = removalRevokedNote(action.by, action.what, record.generation);
      const outcome = await endByPerson(deps, log, action, { to: "revoked", bump: true, note });
      if (outcome.kind !== "ended") return;
      log.info({ subject: `${record.repo}#${record.issue}`, generation: record.generation }, "claim revoked");
    },
  };
}
