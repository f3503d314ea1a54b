// Live lease events across replicas: one Redis pub/sub channel per key prefix and database, the lease id in each message.
import type { Cluster, Redis } from "ioredis";
import { type LeaseEvent, LeaseEventMessageSchema } from "../../contract/lease-events.js";
import type { LeaseEventBus, LeaseEventListener } from "../lease-event-bus.js";
import { LeaseListeners } from "../memory/lease-listeners.js";

export interface RedisLeaseEventBusOptions {
  /** The store's client: publishes (a subscribed connection can do nothing else, so listening gets its own). */
  redis: Redis | Cluster;
  keyPrefix: string;
  /** Told of a subscriber connection error or a message that does not parse (nothing else is lost by either). */
  onError?: (error: unknown) => void;
}

export class RedisLeaseEventBus implements LeaseEventBus {
  readonly #listeners = new LeaseListeners();
  readonly #channel: string;
  #subscriber: Redis | Cluster | undefined;
  #subscribed: Promise<void> | undefined;

  constructor(private readonly options: RedisLeaseEventBusOptions) {
    this.#channel = leaseEventChannel(options.keyPrefix, databaseOf(options.redis));
  }

  async publish(leaseId: string, event: LeaseEvent): Promise<void> {
    await this.options.redis.publish(this.#channel, JSON.stringify({ leaseId, event }));
  }

  subscribe(leaseId: string, listener: LeaseEventListener): () => void {
    this.#listen();
    return this.#listeners.add(leaseId, listener);
  }

  listening(): Promise<void> {
    this.#listen();
    return this.#subscribed ?? Promise.resolve();
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#subscribed = undefined;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  /** The subscriber connection, opened at the first listener and kept (ioredis re-subscribes after a reconnect). */
  #listen(): void {
    if (this.#subscriber) return;
    const subscriber = this.options.redis.duplicate();
    this.#subscriber = subscriber;
    const onError = (error: unknown) => this.options.onError?.(error);
    subscriber.on("error", onError);
    this.#subscribed = new Promise<void>((resolve, reject) => {
      subscriber.once("ready", () => {
        subscriber.subscribe(this.#channel).then(() => resolve(), reject);
      });
    });
    // A client made with `lazyConnect` hands its duplicate the same option.
    if (subscriber.status === "wait") subscriber.connect().catch(onError);
    // A failed subscription is told once here; a stream waiting on it is refused by its own await.
    this.#subscribed.catch(onError);
    subscriber.on("message", (channel: string, text: string) => {
      if (channel !== this.#channel || this.#listeners.size === 0) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        onError(error);
        return;
      }
      const message = LeaseEventMessageSchema.safeParse(parsed);
      if (!message.success) {
        onError(message.error);
        return;
      }
      this.#listeners.dispatch(message.data.leaseId, message.data.event);
    });
  }
}

/**
 * The channel of a deployment's events. Pub/sub ignores the database index, so two deployments on
 * one server with the same prefix but different databases would hear each other's leases: a database
 * other than 0 is part of the name. Database 0 keeps the name it always had, so replicas of a rolling
 * upgrade there still hear each other.
 */
export function leaseEventChannel(keyPrefix: string, database: number): string {
  return database === 0 ? `${keyPrefix}lease-events` : `${keyPrefix}lease-events:db${database}`;
}

/** The database a client selects (a cluster has only database 0). */
function databaseOf(redis: Redis | Cluster): number {
  return redis.isCluster ? 0 : ((redis as Redis).options.db ?? 0);
}
