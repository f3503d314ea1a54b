// The sender loop every replica runs: claims due deliveries from the outbox, POSTs them, settles each (sent, retry, dropped).
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type NotifySink, sinkIdOf } from "../config/notify-sinks.js";
import type { ClaimedDelivery, DeliveryOutcome, OutboxStore } from "../providers/outbox-store.js";
import { deliveryRequestOf } from "./delivery-request.js";
import { type PostToSink, postWithFetch } from "./post-to-sink.js";
import { defaultRetryPolicy, type RetryPolicy, retryDelayMs } from "./retry-delay.js";

export interface SenderPolicy extends RetryPolicy {
  /** Pause between claims while the outbox has nothing due. */
  pollMs: number;
  /** Deliveries claimed (and sent concurrently) per claim. */
  batch: number;
  /** Longest wait for a sink's answer. */
  timeoutMs: number;
  /**
   * How long a claimed delivery stays hidden from the other replicas: past it, a sender that died
   * mid-send loses it to the next claim. Longer than `timeoutMs`, so a living sender settles first.
   */
  leaseMs: number;
}

export const defaultSenderPolicy: SenderPolicy = {
  ...defaultRetryPolicy,
  pollMs: 1_000,
  batch: 20,
  timeoutMs: 10_000,
  leaseMs: 60_000,
};

export type DeliveryResult = "sent" | "failed" | "dropped";

export interface SenderDeps {
  outbox: OutboxStore;
  sinks: readonly NotifySink[];
  now: () => number;
  log: Logger;
  policy?: Partial<SenderPolicy>;
  post?: PostToSink;
  /** Counts each try's result (a failed try that is retried is `failed`; one given up, `dropped`). */
  onDelivery?: (result: DeliveryResult, event: string) => void;
  /** The outbox depth, as the last claim found it. */
  onDepth?: (depth: number) => void;
}

export class NotificationSender {
  readonly #policy: SenderPolicy;
  readonly #sinks: Map<string, NotifySink>;
  readonly #post: PostToSink;
  /** Aborts every POST in flight on stop(); a new one is made at start(). */
  #stopping = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | null = null;
  #started = false;

  constructor(private readonly deps: SenderDeps) {
    this.#policy = { ...defaultSenderPolicy, ...deps.policy };
    if (this.#policy.leaseMs <= this.#policy.timeoutMs) {
      throw new Error("the notification lease must outlast a sink's timeout");
    }
    this.#sinks = new Map(deps.sinks.map((sink) => [sinkIdOf(sink), sink]));
    this.#post = deps.post ?? postWithFetch;
  }

  /**
   * One round: claim what is due (one store call), send it all at once, settle each. Resolves with
   * how many deliveries it claimed; one round at a time (a second call shares the first).
   */
  tick(): Promise<number> {
    this.#running ??= this.#round().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #round(): Promise<number> {
    const { outbox, now, log } = this.deps;
    const claimant = randomUUID();
    const claimed = await outbox.claimDue({
      now: now(),
      leaseMs: this.#policy.leaseMs,
      limit: this.#policy.batch,
      claimant,
    });
    if (claimed.discarded > 0) {
      log.error(
        { discarded: claimed.discarded },
        "dropped notification deliveries that could not be read back",
      );
      for (let i = 0; i < claimed.discarded; i++) this.deps.onDelivery?.("dropped", "unknown");
    }
    const left = await Promise.all(claimed.deliveries.map((delivery) => this.#deliver(delivery, claimant)));
    // The depth the claim counted, less what this round settled out of the outbox (no extra store call).
    this.deps.onDepth?.(claimed.depth - left.filter(Boolean).length);
    return claimed.deliveries.length;
  }

  /** True when the delivery left the outbox (sent or dropped). */
  async #deliver(delivery: ClaimedDelivery, claimant: string): Promise<boolean> {
    const { outbox, now, log } = this.deps;
    const { notification } = delivery;
    const fields = { notification: notification.id, event: notification.event, sink: delivery.sinkId };
    const sink = this.#sinks.get(delivery.sinkId);
    let outcome: DeliveryOutcome;
    let result: DeliveryResult;
    let reason: string | undefined;
    if (!sink) {
      // The sink left CLAIM_HOLD_NOTIFY since the event was queued: nowhere to send it.
      outcome = { kind: "dropped", reason: "sink no longer configured" };
      result = "dropped";
      reason = outcome.reason;
    } else {
      const signal = AbortSignal.any([this.#stopping.signal, AbortSignal.timeout(this.#policy.timeoutMs)]);
      const posted = await this.#post(sink.url, deliveryRequestOf(sink, notification), signal);
      if (posted.ok) {
        outcome = { kind: "sent" };
        result = "sent";
      } else if (this.#stopping.signal.aborted) {
        // Cut short by shutdown, not the sink's fault: due again at once, for whichever replica is up.
        outcome = { kind: "retry", at: now() };
        result = "failed";
        reason = posted.reason;
      } else {
        reason = posted.reason;
        const delay = retryDelayMs(delivery.attempt, this.#policy);
        outcome =
          delay === null
            ? { kind: "dropped", reason: `gave up after ${delivery.attempt} tries (${reason})` }
            : { kind: "retry", at: now() + delay };
        result = delay === null ? "dropped" : "failed";
      }
    }
    let settled = false;
    try {
      settled = await outbox.settle(delivery, claimant, outcome, now());
    } catch (error) {
      // The lease runs out and the delivery is due again: a sent one may be sent twice (same Idempotency-Key).
      log.warn(
        { ...fields, err: { message: (error as Error).message } },
        "could not settle a notification delivery",
      );
    }
    if (!settled) return false;
    this.deps.onDelivery?.(result, notification.event);
    if (result === "sent") log.info({ ...fields, attempt: delivery.attempt }, "notification delivered");
    else if (result === "failed")
      log.warn({ ...fields, attempt: delivery.attempt, reason }, "notification delivery failed; will retry");
    else log.error({ ...fields, attempt: delivery.attempt, reason }, "notification dropped");
    return result !== "failed";
  }

  /** Claims every `pollMs` (at once again while a round comes back full); a failed round is logged. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#stopping = new AbortController();
    const next = (delayMs: number) => {
      if (!this.#started) return;
      this.#timer = setTimeout(async () => {
        let full = false;
        try {
          full = (await this.tick()) >= this.#policy.batch;
        } catch (error) {
          this.deps.log.warn(
            { err: { message: (error as Error).message } },
            "the notification sender could not claim from the outbox",
          );
        }
        next(full ? 0 : this.#policy.pollMs);
      }, delayMs);
      this.#timer.unref();
    };
    next(this.#policy.pollMs);
  }

  /** Stops claiming; POSTs in flight are cut short and their deliveries made due again. */
  async stop(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#stopping.abort();
    await this.#running?.catch(() => undefined);
  }
}
