// Times every webhook handler the App registers, by event: a view of the Probot app whose `on` wraps each handler.

import type { Probot } from "probot";
import type { Histogram } from "prom-client";

type Handler = (context: { name: string; payload: unknown }) => Promise<unknown> | unknown;

/**
 * The same Probot app, except that handlers registered through it observe their duration under
 * `event` = `name.action` (Probot runs an event's handlers concurrently, so each is timed alone).
 */
export function timeWebhooks(app: Probot, histogram: Histogram<"event">): Probot {
  const on = (events: unknown, handler: Handler) =>
    app.on(
      events as never,
      (async (context: { name: string; payload: unknown }) => {
        const action = (context.payload as { action?: unknown } | null)?.action;
        const stop = histogram.startTimer({
          event: typeof action === "string" ? `${context.name}.${action}` : context.name,
        });
        try {
          return await handler(context);
        } finally {
          stop();
        }
      }) as never,
    );
  return new Proxy(app, {
    get(target, property) {
      if (property === "on") return on;
      const value = Reflect.get(target, property, target);
      // Probot keeps its state in private fields: its methods must run with the real app as `this`.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
