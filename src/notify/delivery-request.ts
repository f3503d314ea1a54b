// What one delivery sends (docs/deploy.md#what-a-sink-receives): the body in the sink's format, its headers, and the signature over the raw body.
import { createHmac } from "node:crypto";
import type { NotifySink } from "../config/notify-sinks.js";
import type { Notification } from "./notifier.js";
import { slackTextOf } from "./slack-text.js";

export interface DeliveryRequest {
  body: string;
  headers: Record<string, string>;
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, as GitHub signs its webhooks. */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** The same headers for every format; the idempotency key is the event's id, the same on every retry. */
export function deliveryRequestOf(
  sink: Pick<NotifySink, "format" | "secret">,
  notification: Notification,
): DeliveryRequest {
  const body =
    sink.format === "slack"
      ? JSON.stringify({ text: slackTextOf(notification) })
      : JSON.stringify(notification);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "claim-hold-notify",
      "x-claim-hold-event": notification.event,
      "idempotency-key": notification.id,
      ...(sink.secret ? { "x-claim-hold-signature-256": signatureOf(sink.secret, body) } : {}),
    },
  };
}
