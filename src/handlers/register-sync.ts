// Registers the webhook handlers that keep GitHub and the store in step (one line per event → handler).

import type { Logger } from "pino";
import type { Probot } from "probot";
import { claimCommentRepair } from "./claim-comment-repair.js";
import { claimedLabelAdded } from "./claimed-label-added.js";
import { issueClosed } from "./issue-closed.js";
import { issueRemoved } from "./issue-removed.js";
import { pushEvidence } from "./push-evidence.js";
import { revokeOnRemoval } from "./revoke-on-removal.js";
import type { SyncDeps } from "./sync-deps.js";
import { runWebhook, type WebhookHandler } from "./webhook-guard.js";

export function registerSyncHandlers(app: Probot, deps: SyncDeps & { log: Logger }): void {
  // biome-ignore lint/suspicious/noExplicitAny: each handler narrows the payload it reads
  const on = (events: string[], handler: WebhookHandler<any, any>, options: { allowBots?: boolean } = {}) => {
    app.on(events as never, async (context: { id: string; name: string; payload: unknown }) => {
      await runWebhook(
        handler,
        { id: context.id, name: context.name, payload: context.payload as { sender?: { type?: string } } },
        { store: deps.store, log: deps.log, ...options },
      );
    });
  };
  on(["issues.unassigned", "issues.unlabeled"], revokeOnRemoval(deps));
  on(["issues.labeled"], claimedLabelAdded(deps));
  on(["issues.closed"], issueClosed(deps));
  on(["issues.transferred", "issues.deleted"], issueRemoved(deps));
  on(["issue_comment.edited", "issue_comment.deleted"], claimCommentRepair(deps));
  // Pushes made with an App's token still show the holder is working.
  on(["push"], pushEvidence(deps), { allowBots: true });
  app.on("installation.deleted", async (context) => {
    await deps.store.purgeInstallation(context.payload.installation.id);
    deps.log.info(
      { installationId: context.payload.installation.id },
      "installation removed: its keys were purged",
    );
  });
}
