// Notifications: the outbox, the notifier the transitions emit through, and this replica's sender, counted in the metrics.
import type { Logger } from "pino";
import type { ClaimHoldMetrics } from "../metrics/create-metrics.js";
import { NotificationSender } from "../notify/notification-sender.js";
import { OutboxNotifier } from "../notify/outbox-notifier.js";
import { MemoryOutboxStore } from "../providers/memory/memory-outbox-store.js";
import type { ClaimHoldOptions } from "./claim-hold-options.js";

export function createNotifications(
  options: Pick<ClaimHoldOptions, "notifySinks" | "outbox" | "notifySender">,
  deps: { metrics: ClaimHoldMetrics; now: () => number; log: Logger },
) {
  const { metrics, now } = deps;
  const log = deps.log.child({ component: "notify" });
  const sinks = options.notifySinks ?? [];
  const outbox = options.outbox ?? new MemoryOutboxStore();
  const notifier = new OutboxNotifier({
    outbox,
    sinks,
    now,
    log,
    onUnqueued: (event) => metrics.notificationDeliveries.inc({ result: "dropped", event }),
  });
  const sender = new NotificationSender({
    outbox,
    sinks,
    now,
    log,
    ...(options.notifySender ? { policy: options.notifySender } : {}),
    onDelivery: (result, event) => metrics.notificationDeliveries.inc({ result, event }),
    onDepth: (depth) => metrics.notificationOutboxDepth.set(depth),
  });
  return {
    notifier,
    sender,
    outbox,
    /** The dashboard's retry-now and drop; a drop is counted as a dropped delivery. */
    operator: {
      retryNow: (id: string) => outbox.retryNow(id, now()),
      drop: async (id: string) => {
        const result = await outbox.drop(id, now());
        if (result.kind === "done") {
          metrics.notificationDeliveries.inc({
            result: "dropped",
            event: result.delivery?.event ?? "unknown",
          });
          log.warn(
            { delivery: id, event: result.delivery?.event, sink: result.delivery?.sinkId },
            "notification dropped by an operator",
          );
        }
        return result;
      },
    },
    /** The sender runs in every replica (claims are atomic), only when a sink is configured. */
    start: () => {
      if (sinks.length > 0) sender.start();
    },
    /** Waits for the emits still reaching the outbox, then stops the sender. */
    stop: async () => {
      await notifier.flush();
      await sender.stop();
    },
  };
}
