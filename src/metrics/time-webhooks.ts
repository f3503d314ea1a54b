// Times a webhook handler's run, by event (`name.action`), in the webhook-duration histogram.

import type { Histogram } from "prom-client";

/**
 * Runs `handler` for one delivery and observes its duration under `event` = `name.action` (Probot
 * runs an event's handlers concurrently, so each is timed alone).
 */
export async function timeWebhook<T>(
  histogram: Histogram<"event">,
  context: { name: string; payload: unknown },
  handler: () => Promise<T>,
): Promise<T> {
  const action = (context.payload as { action?: unknown } | null)?.action;
  const stop = histogram.startTimer({
    event: typeof action === "string" ? `${context.name}.${action}` : context.name,
  });
  try {
    return await handler();
  } finally {
    stop();
  }
}
