// `WEBHOOK_PROXY_URL` (Probot's convention): GitHub delivers to a forwarding channel (e.g. smee.io) and
// this process relays each delivery to its own webhook route, for an App no public address reaches.
import type { Logger } from "pino";
import { SmeeClient } from "smee-client";
import { webhookPath } from "./setup-manifest.js";

export interface WebhookForwarding {
  stop(): Promise<void>;
}

/**
 * Starts relaying `source` to `http://<host>:<port>/api/github/webhooks`. Start-up does not wait for
 * the channel: the API works without webhooks, and the connection keeps retrying until it opens.
 */
export function startWebhookForwarding(options: {
  source: string;
  host: string;
  port: number;
  log: Logger;
}): WebhookForwarding {
  const log = options.log.child({ component: "webhook-forwarding" });
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const client = new SmeeClient({
    source: options.source,
    target: `http://${host}:${options.port}${webhookPath}`,
    // One line per relayed delivery (method, target, status) at debug; connection trouble as warnings.
    logger: {
      info: (...args: unknown[]) => log.debug(args.map(String).join(" ")),
      error: (...args: unknown[]) => log.warn(args.map(String).join(" ")),
    },
  });
  const channel = new URL(options.source).host;
  client.start().then(
    () => log.info(`Relaying webhooks from the forwarding channel at ${channel} to this process`),
    () =>
      log.warn(`The forwarding channel at ${channel} does not answer yet: no webhooks arrive until it does`),
  );
  return { stop: () => client.stop() };
}
