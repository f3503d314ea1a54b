// The notification sinks of `CLAIM_HOLD_NOTIFY` (docs/deploy.md#sinks-claim_hold_notify): where events go; URLs are secrets, so only env holds them.
import { createHash } from "node:crypto";
import { z } from "zod";
import { NotifyEvent } from "./repo-config.js";

export const NotifySink = z.strictObject({
  /** Where deliveries are POSTed. A secret (Slack-style webhook URLs are credentials): never logged or stored. */
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  /**
   * `json`: the event body (docs/deploy.md#what-a-sink-receives); `slack`: `{ "text": … }`, as
   * Slack-compatible incoming webhooks take.
   */
  format: z.enum(["json", "slack"]).default("json"),
  /** The events this sink receives (a repository's `notify.events` filters them further). */
  events: z.array(NotifyEvent).min(1).max(NotifyEvent.options.length),
  /** Key of the `X-Claim-Hold-Signature-256` HMAC over the raw body; absent: deliveries are unsigned. */
  secret: z.string().min(16, "must be at least 16 characters").optional(),
});
export type NotifySink = z.infer<typeof NotifySink>;

export const NotifySinks = z.array(NotifySink).max(20);

/**
 * `CLAIM_HOLD_NOTIFY` as text: a JSON list of sinks. Never quotes the value back (JSON.parse's own
 * message would, and the value holds the URLs).
 */
export const NotifySinksText = z
  .string()
  .transform((text, ctx): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: "custom", message: 'must be a JSON list of sinks like [{"url":…,"events":[…]}]' });
      return z.NEVER;
    }
  })
  .pipe(NotifySinks);

/**
 * A sink's name in the outbox, the logs and the metrics: a digest of its URL, so a delivery finds
 * its sink again after a restart without the URL ever being written anywhere.
 */
export function sinkIdOf(sink: Pick<NotifySink, "url">): string {
  return createHash("sha256").update(sink.url).digest("hex").slice(0, 12);
}
