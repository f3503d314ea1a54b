// One guard for every webhook handler: skip bots, dedupe redeliveries, log with the delivery id.
import type { EmitterWebhookEvent, EmitterWebhookEventName } from "@octokit/webhooks";
import type { Logger } from "pino";
import type { DeliveryLog } from "../providers/app-stores.js";

/** GitHub keeps redelivering for up to 3 days; remember delivery ids at least that long. */
export const deliveryMemoryMs = 3 * 24 * 3_600_000 + 3_600_000;

export function isFromBot(payload: { sender?: { type?: string; login?: string } | null }): boolean {
  return payload.sender?.type === "Bot" || (payload.sender?.login ?? "").endsWith("[bot]");
}

/**
 * The sender as `FleetLogins.actorKind` judges it. A Bot sender is the App's own account on Gitea
 * (the only Bot its intake names) and any App on GitHub; the guard skips both before a handler
 * decides, and `isFleetLogin` counts a Bot as no person either way.
 */
export function senderAccount(payload: { sender: { type?: string; login: string } }): {
  login: string;
  bot: boolean;
  ownApp: boolean;
} {
  const bot = isFromBot(payload);
  return { login: payload.sender.login, bot, ownApp: false };
}

/** The payload GitHub sends with an event, as `@octokit/webhooks` types it. */
export type WebhookPayload<E extends EmitterWebhookEventName> = EmitterWebhookEvent<E>["payload"];

export interface WebhookHandler<P, A> {
  /**
   * Pure-ish: what to do for this payload (reads allowed, no writes); null = nothing. `log` (the
   * delivery's) notes why an act an operator would expect did nothing.
   */
  decide(payload: P, log?: Logger): Promise<A | null> | A | null;
  /** Performs the action (store transition, then GitHub). */
  apply(action: A, log: Logger): Promise<void>;
}

export interface GuardOptions {
  /** Run for events a bot sent as well (default: skipped before anything else). */
  allowBots?: boolean;
  /** Skip a delivery id already handled (default). Off: every delivery of it runs the handler again. */
  dedupe?: boolean;
}

/**
 * Runs a handler for one delivery: bots are skipped before anything else; a delivery id already
 * handled is skipped only once the handler decided to act (unrelated events cost no Redis write).
 */
export async function runWebhook<P extends { sender?: { type?: string; login?: string } | null }, A>(
  handler: WebhookHandler<P, A>,
  event: { id: string; name: string; payload: P },
  deps: { store: DeliveryLog; log: Logger } & GuardOptions,
): Promise<void> {
  if (!deps.allowBots && isFromBot(event.payload)) return;
  const log = deps.log.child({ deliveryId: event.id, event: event.name });
  const action = await handler.decide(event.payload, log);
  if (action === null) return;
  const dedupe = deps.dedupe ?? true;
  if (dedupe && !(await deps.store.firstDelivery(`${event.name}:${event.id}`, deliveryMemoryMs))) {
    log.info("redelivery of a handled webhook: skipped");
    return;
  }
  await handler.apply(action, log);
}
