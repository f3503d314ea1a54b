// Webhook deliveries as GitHub sends them: signed, one at a time in order, recorded; holdable for fault tests.
import { createHmac, randomUUID } from "node:crypto";

export type DeliveryStatus = "queued" | "in-flight" | "delivered" | "failed" | "dropped" | "recorded";

export interface Delivery {
  /** Order of creation (redeliveries get a new one). */
  seq: number;
  /** The `X-GitHub-Delivery` GUID; a redelivery keeps the original's, as GitHub's does. */
  guid: string;
  event: string;
  action: string | undefined;
  payload: Record<string, unknown>;
  body: string;
  status: DeliveryStatus;
  /** HTTP status of the last attempt, or undefined when it never got an answer. */
  responseStatus?: number;
  error?: string;
  redeliveryOf?: number;
}

export interface DeliveryMatch {
  event?: string;
  action?: string;
  /** Any further test on the delivery. */
  where?: (delivery: Delivery) => boolean;
}

export interface WebhookQueueOptions {
  url?: string;
  secret: string;
  appId: number;
  /** Events the App subscribes to; others are never sent (installation events always are). */
  events: string[];
  /** GitHub gives up after 10 s. */
  timeoutMs?: number;
}

export function signWebhook(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

function matches(delivery: Delivery, match: DeliveryMatch): boolean {
  return (
    (match.event === undefined || match.event === delivery.event) &&
    (match.action === undefined || match.action === delivery.action) &&
    (match.where === undefined || match.where(delivery))
  );
}

export class WebhookQueue {
  readonly deliveries: Delivery[] = [];
  #pending: Delivery[] = [];
  #held = false;
  #pumping: Promise<void> | null = null;
  #seq = 0;
  #dropRules: { match: DeliveryMatch; remaining: number }[] = [];

  constructor(private options: WebhookQueueOptions) {}

  configure(change: { url?: string | undefined; secret?: string; events?: string[] }): void {
    this.options = { ...this.options, ...change };
  }

  get url(): string | undefined {
    return this.options.url;
  }

  /** Queues one event; starts sending unless held. */
  enqueue(event: string, payload: Record<string, unknown>): Delivery | undefined {
    const subscribed =
      event === "installation" ||
      event === "installation_repositories" ||
      this.options.events.includes(event);
    if (!subscribed) return undefined;
    const delivery: Delivery = {
      seq: ++this.#seq,
      guid: randomUUID(),
      event,
      action: typeof payload.action === "string" ? payload.action : undefined,
      payload,
      body: JSON.stringify(payload),
      status: "queued",
    };
    this.deliveries.push(delivery);
    const rule = this.#dropRules.find((r) => r.remaining > 0 && matches(delivery, r.match));
    if (rule) {
      rule.remaining--;
      delivery.status = "dropped";
      return delivery;
    }
    this.#pending.push(delivery);
    this.#pump();
    return delivery;
  }

  /** Stops sending: new deliveries wait in `pending()` until `release()` (or are sent one by one). */
  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
    this.#pump();
  }

  pending(): Delivery[] {
    return [...this.#pending];
  }

  /** Reorders the waiting deliveries: the given seqs first, in that order, then the rest. */
  reorder(seqs: number[]): void {
    const chosen = seqs.flatMap((seq) => this.#pending.filter((d) => d.seq === seq));
    this.#pending = [...chosen, ...this.#pending.filter((d) => !chosen.includes(d))];
  }

  /** Drops waiting deliveries that match; answers how many. */
  drop(match: DeliveryMatch = {}): number {
    const dropped = this.#pending.filter((d) => matches(d, match));
    for (const d of dropped) d.status = "dropped";
    this.#pending = this.#pending.filter((d) => !dropped.includes(d));
    return dropped.length;
  }

  /** The next `count` deliveries that match are recorded as dropped and never sent. */
  dropNext(count: number, match: DeliveryMatch = {}): void {
    this.#dropRules.push({ match, remaining: count });
  }

  /** Sends one waiting delivery now, out of order, even while held. */
  async deliverNow(seq: number): Promise<Delivery> {
    const delivery = this.#pending.find((d) => d.seq === seq);
    if (!delivery) throw new Error(`delivery ${seq} is not waiting`);
    this.#pending = this.#pending.filter((d) => d !== delivery);
    await this.#send(delivery);
    return delivery;
  }

  /** Sends an earlier delivery again with the same GUID (GitHub's "Redeliver"); it joins the queue. */
  redeliver(seq: number): Delivery {
    const original = this.deliveries.find((d) => d.seq === seq);
    if (!original) throw new Error(`no delivery ${seq}`);
    const copy: Delivery = {
      ...original,
      seq: ++this.#seq,
      status: "queued",
      redeliveryOf: original.seq,
      responseStatus: undefined,
      error: undefined,
    };
    delete copy.responseStatus;
    delete copy.error;
    this.deliveries.push(copy);
    this.#pending.push(copy);
    this.#pump();
    return copy;
  }

  /** Nothing in flight and nothing waiting (held deliveries excepted). */
  get idle(): boolean {
    return !this.#pumping && (this.#held || this.#pending.length === 0);
  }

  /** Resolves once nothing is in flight and nothing waits (held deliveries excepted), cascades included. */
  async flush(): Promise<void> {
    while (this.#pumping || (!this.#held && this.#pending.length > 0)) {
      this.#pump();
      await this.#pumping;
    }
  }

  list(match: DeliveryMatch = {}): Delivery[] {
    return this.deliveries.filter((d) => matches(d, match));
  }

  reset(): void {
    this.deliveries.length = 0;
    this.#pending = [];
    this.#dropRules = [];
    this.#held = false;
  }

  #pump(): void {
    if (this.#pumping || this.#held || this.#pending.length === 0) return;
    this.#pumping = (async () => {
      // A microtask boundary so that every change of one request is queued before the first send.
      await Promise.resolve();
      while (!this.#held && this.#pending.length > 0) {
        const next = this.#pending.shift()!;
        await this.#send(next);
      }
    })().finally(() => {
      this.#pumping = null;
    });
  }

  async #send(delivery: Delivery): Promise<void> {
    const url = this.options.url;
    if (!url) {
      delivery.status = "recorded";
      return;
    }
    delivery.status = "in-flight";
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "GitHub-Hookshot/claim-hold-sim",
          "x-github-event": delivery.event,
          "x-github-delivery": delivery.guid,
          "x-github-hook-id": "1",
          "x-github-hook-installation-target-id": String(this.options.appId),
          "x-github-hook-installation-target-type": "integration",
          "x-hub-signature-256": signWebhook(this.options.secret, delivery.body),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      delivery.responseStatus = response.status;
      delivery.status = response.ok ? "delivered" : "failed";
    } catch (error) {
      delivery.status = "failed";
      delivery.error = error instanceof Error ? error.message : String(error);
    }
  }
}
