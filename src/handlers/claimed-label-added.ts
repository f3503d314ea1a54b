// issues.labeled: a human put a managed label (`agent:claimed`, `agent:stale`) on an unclaimed issue → take it off, say why once.
import type { Logger } from "pino";
import type { ClaimRecord } from "../domain/claim.js";
import { type SyncDeps, subjectKeyOf } from "./sync-deps.js";
import type { WebhookHandler, WebhookPayload } from "./webhook-guard.js";

type LabeledPayload = WebhookPayload<"issues.labeled">;

export interface UnlabelAction {
  installationId: number;
  repo: string;
  issue: number;
  issueNodeId: string;
  label: string;
  explain: boolean;
  noteKey: string;
}

/** decide: the claimed label without an active (or human) claim is not a claim. */
export function labelIsOrphan(record: ClaimRecord | null): boolean {
  return !record || (record.state !== "active" && record.state !== "human");
}

export const explanationTtlMs = 365 * 24 * 3_600_000;

export function claimedLabelAdded(deps: SyncDeps): WebhookHandler<LabeledPayload, UnlabelAction> {
  return {
    async decide(payload) {
      const key = subjectKeyOf(payload);
      if (!key || !payload.label) return null;
      const config = await deps.configs.load(key.installationId, payload.repository.full_name);
      // Either managed label: a hand-set `agent:stale` without a claim would leave the issue
      // "claim state unknown" (invariant 12) as surely as a hand-set `agent:claimed`.
      if (payload.label.name !== config.labels.claimed && payload.label.name !== config.labels.stale)
        return null;
      if (!labelIsOrphan(await deps.stores.claims.get(key))) return null;
      const noteKey = `label-note:${key.installationId}:${key.repoId}:${key.issue}`;
      return {
        installationId: key.installationId,
        repo: payload.repository.full_name,
        issue: key.issue,
        issueNodeId: payload.issue.node_id,
        label: payload.label.name,
        explain: (await deps.stores.documents.getDocument(noteKey)) === null,
        noteKey,
      };
    },
    async apply(action: UnlabelAction, log: Logger) {
      await deps.assignments.apply(
        { installationId: action.installationId, repo: action.repo, issue: action.issue },
        {
          subjectNodeId: action.issueNodeId,
          removeLabels: [action.label],
          ...(action.explain
            ? {
                addComments: [
                  `🏷️ \`${action.label}\` is managed by claim-hold: it marks a live claim made through the API ` +
                    "(`claim-hold claim owner/repo#n`), so it was taken off. Assign yourself to work on this issue.",
                ],
              }
            : {}),
        },
      );
      if (action.explain)
        await deps.stores.documents.putDocument(action.noteKey, { at: deps.now() }, explanationTtlMs);
      log.info({ subject: `${action.repo}#${action.issue}` }, "removed a hand-set claimed label");
    },
  };
}
