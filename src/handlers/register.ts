// The one place webhooks are registered: each event → one handler, every one run through the shared guard.

import type { EmitterWebhookEventName } from "@octokit/webhooks";
import type { Logger } from "pino";
import type { Probot } from "probot";
import type { Histogram } from "prom-client";
import type { MergeFence } from "../fence/merge-fence.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { LeaseEventPublisher } from "../lease/lease-events.js";
import type { NeedsHumanShower } from "../lease/ports.js";
import { timeWebhook } from "../metrics/time-webhooks.js";
import type { IdentityProvider } from "../providers/assignment-provider.js";
import type { CommentReactions } from "../providers/comment-reactions.js";
import type { FenceStore } from "../providers/fence-store.js";
import type { QueueRefresh } from "../providers/queue-store.js";
import { budgetCommand } from "./budget.js";
import { claimCommentRepair } from "./claim-comment-repair.js";
import { claimedLabelAdded } from "./claimed-label-added.js";
import { installationAdded, installationDeleted } from "./installation.js";
import { issueClosed } from "./issue-closed.js";
import { issueRemoved } from "./issue-removed.js";
import { mergeGroupChecks } from "./merge-group-checks.js";
import { needsHumanAnswered } from "./needs-human-answered.js";
import { needsHumanCleared } from "./needs-human-cleared.js";
import { checkRerequests, pullRequestCheckEvents, pullRequestChecks } from "./pull-request-checks.js";
import { pullRequestProgress, pullRequestProgressEvents, pushEvidence } from "./push-evidence.js";
import {
  decideDependencyEvent,
  decideIssueEvent,
  decidePullRequestEvent,
  decideSubIssueEvent,
  dependencyFeedEvents,
  feedHandler,
  feedOptions,
  issueFeedEvents,
  pullRequestFeedEvents,
  type QueueFeedDeps,
  subIssueFeedEvents,
} from "./queue-feed.js";
import { reclaimCommand } from "./reclaim.js";
import { revokeOnRemoval } from "./revoke-on-removal.js";
import type { SyncDeps } from "./sync-deps.js";
import { type GuardOptions, runWebhook, type WebhookHandler, type WebhookPayload } from "./webhook-guard.js";

export interface WebhookDeps extends SyncDeps {
  fence: MergeFence;
  fences: FenceStore;
  fleet: FleetLogins;
  identity: Pick<IdentityProvider, "permission">;
  reactions: CommentReactions;
  log: Logger;
  /** Every handler's run is timed here, by event. */
  webhookDuration: Histogram<"event">;
  /** The candidate index's feed (`claims/next`); absent: the index is not fed by webhooks. */
  queueFeed?: QueueFeedDeps;
  refreshQueue?: QueueRefresh;
  /** Where `/reclaim`, `/budget` and a person's answer tell the holder's live stream; absent: nowhere. */
  leaseEvents?: LeaseEventPublisher;
  /** Shows the needs-human label when progress or a person withdraws the App's ask on a stall; absent: reconcile repairs it. */
  needsHuman?: NeedsHumanShower;
}

/**
 * The merge fence's events run for bots too (a bot's PR gets its check) and on every delivery: a
 * redelivered PR event re-reads its check, and writes only when the verdict changed.
 */
const fenceEvent: GuardOptions = { allowBots: true, dedupe: false };

export function registerWebhooks(app: Probot, deps: WebhookDeps): void {
  const { stores, log } = deps;
  const on = <E extends EmitterWebhookEventName, A>(
    events: readonly E[],
    handler: WebhookHandler<WebhookPayload<E>, A>,
    options: GuardOptions = {},
  ) => {
    app.on([...events], async (context) => {
      const event = { id: context.id, name: context.name, payload: context.payload };
      await timeWebhook(deps.webhookDuration, context, () =>
        runWebhook(handler, event, { store: stores.deliveries, log, ...options }),
      );
    });
  };
  on(["issues.unassigned", "issues.unlabeled"], revokeOnRemoval(deps));
  on(["issues.unlabeled"], needsHumanCleared(deps));
  on(["issues.labeled"], claimedLabelAdded(deps));
  on(["issues.closed"], issueClosed(deps));
  on(["issues.transferred", "issues.deleted"], issueRemoved(deps));
  on(["issue_comment.edited", "issue_comment.deleted"], claimCommentRepair(deps));
  // A comment's first line is one command at most: only one of these two acts on it.
  on(["issue_comment.created"], reclaimCommand(deps));
  on(["issue_comment.created"], budgetCommand(deps));
  // Only tells the holder's live stream: a redelivery tells it again, which costs nothing.
  on(["issue_comment.created", "issues.unlabeled"], needsHumanAnswered(deps), { dedupe: false });
  // Pushes made with an App's token still show the holder is working.
  on(["push"], pushEvidence(deps), { allowBots: true });
  // The fence's handler dedupes these deliveries; noting progress again on a redelivery is harmless.
  on(pullRequestProgressEvents, pullRequestProgress(deps), { allowBots: true, dedupe: false });
  on(pullRequestCheckEvents, pullRequestChecks(deps.fence), fenceEvent);
  on(["check_run.rerequested", "check_suite.rerequested"], checkRerequests(deps.fence), fenceEvent);
  on(["merge_group.checks_requested"], mergeGroupChecks(deps.fence), fenceEvent);
  // Ensuring labels and purging keys repeat safely: a redelivery (an operator's retry) runs again.
  on(["installation.created", "installation_repositories.added"], installationAdded(deps), {
    allowBots: true,
    dedupe: false,
  });
  on(["installation.deleted"], installationDeleted(deps), { allowBots: true, dedupe: false });
  // The candidate index's feed (`claims/next`), when wired.
  const feed = deps.queueFeed;
  if (feed) {
    on(issueFeedEvents, feedHandler(decideIssueEvent, feed), feedOptions);
    on(dependencyFeedEvents, feedHandler(decideDependencyEvent, feed), feedOptions);
    on(subIssueFeedEvents, feedHandler(decideSubIssueEvent, feed), feedOptions);
    on(pullRequestFeedEvents, feedHandler(decidePullRequestEvent, feed), feedOptions);
  }
}
