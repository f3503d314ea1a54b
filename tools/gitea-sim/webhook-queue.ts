// Webhook deliveries as a Gitea instance's repository hook sends them: queued in order, signed, recorded; holdable, droppable and redeliverable for fault tests.
import { randomUUID } from "node:crypto";

export type GiteaDeliveryStatus = "queued" | "in-flight" | "delivered" | "failed" | "dropped" | "recorded";

export interface GiteaDelivery {
  /** Order of creation (a redelivery gets a new one). */
  seq: number;
  /** `X-Gitea-Delivery`; a redelivery keeps the original's, as Gitea's "Test delivery" of a past one does. */
  guid: string;
  /** `X-Gitea-Event` (`issues`, `issue_comment`). */
  event: string;
  /** `X-Gitea-Event-Type` (`issue_assign`, `issue_label`, `issue_comment`, `issues`). */
  eventType: string;
  action: string | undefined;
  payload: Record<string, unknown>;
  status: GiteaDeliveryStatus;
  responseStatus?: number;
  redeliveryOf?: number;
}

export type GiteaSend = (delivery: GiteaDelivery, target: { url: string; secret: string }) => Promise<number>;

export class GiteaWebhookQueue {
  readonly deliveries: GiteaDelivery[] = [];
  #pending: GiteaDelivery[] = [];
  #held = false;
  #pumping: Promise<void> | null = null;
  #seq = 0;
  #dropNext = 0;
  /** Where the repository hook points; none: deliveries are only recorded. */
  target: { url: string; secret: string } | null = null;

  constructor(private readonly send: GiteaSend) {}

  /** Queues one event; starts sending unless held. */
  enqueue(event: string, eventType: string, payload: Record<string, unknown>): GiteaDelivery {
    const delivery: GiteaDelivery = {
      seq: ++this.#seq,
      guid: randomUUID(),
      event,
      eventType,
      action: typeof payload.action === "string" ? payload.action : undefined,
      payload,
      status: "queued",
    };
    this.deliveries.push(delivery);
    if (this.#dropNext > 0) {
      this.#dropNext--;
      delivery.status = "dropped";
      return delivery;
    }
    this.#pending.push(delivery);
    this.#pump();
    return delivery;
  }

  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
    this.#pump();
  }

  pending(): GiteaDelivery[] {
    return [...this.#pending];
  }

  /** The waiting deliveries: the given seqs first, in that order, then the rest. */
  reorder(seqs: number[]): void {
    const chosen = seqs.flatMap((seq) => this.#pending.filter((d) => d.seq === seq));
    this.#pending = [...chosen, ...this.#pending.filter((d) => !chosen.includes(d))];
  }

  /** The next `count` deliveries are recorded as dropped and never sent. */
  dropNext(count: number): void {
    this.#dropNext += count;
  }

  /** Sends one waiting delivery now, out of order, even while held. */
  async deliverNow(seq: number): Promise<GiteaDelivery> {
    const delivery = this.#pending.find((d) => d.seq === seq);
    if (!delivery) throw new Error(`delivery ${seq} is not waiting`);
    this.#pending = this.#pending.filter((d) => d !== delivery);
    await this.#deliver(delivery);
    return delivery;
  }

  /** Sends an earlier delivery again with the same id; it joins the queue. */
  redeliver(seq: number): GiteaDelivery {
    const original = this.deliveries.find((d) => d.seq === seq);
    if (!original) throw new Error(`no delivery ${seq}`);
    const copy: GiteaDelivery = {
      ...original,
      seq: ++this.#seq,
      status: "queued",
      redeliveryOf: original.seq,
    };
    delete copy.responseStatus;
    this.deliveries.push(copy);
    this.#pending.push(copy);
    this.#pump();
    return copy;
  }

  /** Resolves once nothing is in flight and nothing waits (held deliveries excepted). */
  async flush(): Promise<void> {
    while (this.#pumping || (!this.#held && this.#pending.length > 0)) {
      this.#pump();
      await this.#pumping;
    }
  }

  clear(): void {
    this.#pending = [];
    this.#dropNext = 0;
    this.#held = false;
  }

  #pump(): void {
    if (this.#pumping || this.#held || this.#pending.length === 0) return;
    this.#pumping = (async () => {
      // A microtask boundary so that every change of one request is queued before the first send.
      await Promise.resolve();
      while (!this.#held && this.#pending.length > 0) await this.#deliver(this.#pending.shift()!);
    })().finally(() => {
      this.#pumping = null;
    });
  }

  async #deliver(delivery: GiteaDelivery): Promise<void> {
    if (!this.target) {
      delivery.status = "recorded";
      return;
    }
    delivery.status = "in-flight";
    try {
      delivery.responseStatus = await this.send(delivery, this.target);
      delivery.status = delivery.responseStatus < 300 ? "delivered" : "failed";
    } catch {
      delivery.status = "failed";
    }
  }
}
