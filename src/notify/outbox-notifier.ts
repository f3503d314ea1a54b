// The Notifier over the outbox: builds the event, picks the sinks that take it, and queues it in one store call, unawaited.
import { createHash, randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type NotifySink, sinkIdOf } from "../config/notify-sinks.js";
import type { OutboxStore } from "../providers/outbox-store.js";
import type { Notification, NotificationInput, Notifier } from "./notifier.js";

/** An event id from its occurrence key: the same occurrence, whoever emits it, is one event. */
export function eventIdOf(key: string): string {
  return `evt_${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}

export class OutboxNotifier implements Notifier {
  readonly #sinks: { id: string; sink: NotifySink }[];
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      outbox: OutboxStore;
      sinks: readonly NotifySink[];
      now: () => number;
      log: Logger;
      /** An event that could not be queued (the store did not answer): lost, and counted. */
      onUnqueued?: (event: string) => void;
    },
  ) {
    // A URL listed twice is one sink.
    const byId = new Map(deps.sinks.map((sink) => [sinkIdOf(sink), sink]));
    this.#sinks = [...byId].map(([id, sink]) => ({ id, sink }));
  }

  emit(input: NotificationInput): void {
    if (input.repoEvents && !input.repoEvents.includes(input.event)) return;
    const sinks = this.#sinks.filter(({ sink }) => sink.events.includes(input.event));
    if (sinks.length === 0) return;
    const now = this.deps.now();
    const notification: Notification = {
      event: input.event,
      id: input.key ? eventIdOf(input.key) : `evt_${randomUUID().replace(/-/g, "")}`,
      at: new Date(now).toISOString(),
      subject: input.subject,
      installationId: input.installationId,
      data: input.data,
    };
    const deliveries = sinks.map(({ id }) => ({ id: `${notification.id}.${id}`, sinkId: id, notification }));
    const queued = this.deps.outbox.enqueue(notification.id, deliveries, now).then(
      () => undefined,
      (error: unknown) => {
        this.deps.onUnqueued?.(input.event);
        this.deps.log.error(
          { event: input.event, subject: input.subject, err: { message: (error as Error).message } },
          "could not queue a notification; it is lost",
        );
      },
    );
    this.#pending.add(queued);
    void queued.finally(() => this.#pending.delete(queued));
  }

  /** Resolves once every emit so far reached the outbox (or failed to): shutdown, and tests. */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }
}
