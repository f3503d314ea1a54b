// Which notifications a claim's transition makes (docs/deploy.md#9-notifications): one row per event; pure.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimChange } from "../domain/claim-change.js";
import {
  budgetNotification,
  reapedNotification,
  staleNotification,
  takeoverNotification,
} from "./notification-events.js";
import type { NotificationInput } from "./notifier.js";

type Rule = (change: ClaimChange, config: Pick<RepoConfig, "notify">) => NotificationInput | null;

/** Every notification a transition can make. A new event is a row here and its builder. */
const rules: readonly Rule[] = [
  // A new incarnation over an agent's live claim: the agent was taken over.
  (c, config) =>
    c.cause === "claimed" && c.previous?.state === "active" && c.previous.actor.kind === "agent"
      ? takeoverNotification(c.previous, c.record, config)
      : null,
  (c, config) =>
    c.cause === "stale" ? staleNotification(c.record, c.record.staleMarkedAt ?? c.at, config) : null,
  (c, config) => (c.cause === "reaped" && c.previous ? reapedNotification(c.previous, config) : null),
  (c, config) =>
    c.cause === "budget-exhausted" && c.previous && c.spend
      ? budgetNotification("budget-exhausted", c.previous, c.spend, config)
      : null,
];

/** The notifications `change` makes under `config` (the repository filter is the outbox's). */
export function notificationsFor(
  change: ClaimChange,
  config: Pick<RepoConfig, "notify">,
): NotificationInput[] {
  const made: NotificationInput[] = [];
  for (const rule of rules) {
    const notification = rule(change, config);
    if (notification) made.push(notification);
  }
  return made;
}
