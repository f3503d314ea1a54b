// Picks the stores from REDIS_URL: Redis (single node or cluster) or the embedded memory stores.
import { Cluster, Redis } from "ioredis";
import type { Logger } from "pino";
import type { FenceStore } from "./fence-store.js";
import type { LeaseEventBus } from "./lease-event-bus.js";
import { MemoryFenceStore } from "./memory/memory-fence-store.js";
import { MemoryLeaseEventBus } from "./memory/memory-lease-event-bus.js";
import { MemoryOutboxStore } from "./memory/memory-outbox-store.js";
import { createMemoryRateLimits } from "./memory/memory-rate-limits.js";
import { createMemoryStores } from "./memory/memory-store.js";
import type { OutboxStore } from "./outbox-store.js";
import type { RateLimitStore } from "./rate-limits.js";
import { RedisFenceStore } from "./redis/redis-fence-store.js";
import { RedisLeaseEventBus } from "./redis/redis-lease-event-bus.js";
import { RedisOutboxStore } from "./redis/redis-outbox-store.js";
import { createRedisRateLimits } from "./redis/redis-rate-limits.js";
import { createRedisStores } from "./redis/redis-store.js";
import type { Stores } from "./stores.js";

export const defaultKeyPrefix = "claim-hold:";

/** `redis-cluster://h1:p1,h2:p2` lists cluster seed nodes; anything else is one ioredis URL. */
export function createRedisClient(url: string, options: { offlineQueue?: boolean } = {}): Redis | Cluster {
  // A Redis that stops answering (paused, partitioned) must cost a caller 2 s and a 503, never a hang.
  // (The GitHub rate limiter's client queues while it connects: it waits for "ready" before its first script.)
  const common = {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: options.offlineQueue ?? false,
    commandTimeout: 2_000,
    connectTimeout: 2_000,
  } as const;
  if (url.startsWith("redis-cluster://")) {
    const nodes = url
      .slice("redis-cluster://".length)
      .split(",")
      .map((hostPort) => {
        const [host, port] = hostPort.split(":");
        return { host: host ?? "127.0.0.1", port: Number(port ?? 6379) };
      });
    return new Cluster(nodes, { redisOptions: common, enableOfflineQueue: options.offlineQueue ?? false });
  }
  return new Redis(url, common);
}

/** A Redis outage is logged at most this often by the rate limits' fallback (each request would). */
const limitOutageLogMs = 60_000;

/** The claim store, the merge fence's store, the notification outbox and the HTTP rate limits, on one Redis client (or in memory without REDIS_URL). */
export function createStores(options: { redisUrl?: string; keyPrefix?: string; log: Logger }): {
  stores: Stores;
  fences: FenceStore;
  outbox: OutboxStore;
  limits: RateLimitStore;
  /** Live lease events: Redis pub/sub on a connection of its own, or within this process. */
  leaseEvents: LeaseEventBus;
} {
  if (!options.redisUrl) {
    options.log.warn(
      "REDIS_URL is not set: using the embedded in-memory store (single process, nothing survives a restart)",
    );
    return {
      stores: createMemoryStores(),
      fences: new MemoryFenceStore(),
      outbox: new MemoryOutboxStore(),
      limits: createMemoryRateLimits(),
      leaseEvents: new MemoryLeaseEventBus(),
    };
  }
  const redis = createRedisClient(options.redisUrl);
  redis.on("error", (err: Error) =>
    options.log.warn({ err: { message: err.message } }, "Redis connection error"),
  );
  const keyPrefix = options.keyPrefix ?? defaultKeyPrefix;
  const fences = new RedisFenceStore({ redis, keyPrefix });
  let lastOutageLog = Number.NEGATIVE_INFINITY;
  // Release 0.1.0 kept cross-repository links as documents (docs/deploy.md#12-upgrading): moved once Redis answers.
  redis.once("ready", () => {
    fences.adoptCrossLinkDocuments().then(
      (moved) => {
        if (moved > 0)
          options.log.info({ subjects: moved }, "cross-repository links moved into the fence store");
      },
      (error: unknown) =>
        options.log.warn(
          { err: { message: (error as Error).message } },
          "cross-repository link documents not moved; retried at the next start",
        ),
    );
  });
  return {
    stores: createRedisStores({ redis, keyPrefix, ownsClient: true }),
    fences,
    outbox: new RedisOutboxStore({ redis, keyPrefix }),
    limits: createRedisRateLimits({
      redis,
      keyPrefix,
      onOutage: () => {
        const at = Date.now();
        if (at - lastOutageLog < limitOutageLogMs) return;
        lastOutageLog = at;
        options.log.warn("rate limits not counted in Redis: each replica counts its own until it answers");
      },
    }),
    leaseEvents: new RedisLeaseEventBus({
      redis,
      keyPrefix,
      onError: (error) =>
        options.log.warn(
          { err: { message: (error as Error).message } },
          "live lease events: Redis subscriber error",
        ),
    }),
  };
}
