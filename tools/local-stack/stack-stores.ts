// The local stack's Redis: the machine's under a fresh key prefix, a private redis-server, or the embedded memory store.
import { Redis, type RedisOptions } from "ioredis";
import type { FenceStore } from "../../src/providers/fence-store.js";
import { MemoryFenceStore } from "../../src/providers/memory/memory-fence-store.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { RedisFenceStore } from "../../src/providers/redis/redis-fence-store.js";
import { createRedisStores } from "../../src/providers/redis/redis-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { deleteKeysWithPrefix, uniqueKeyPrefix } from "./redis-keys.js";
import { type PrivateRedis, startPrivateRedis } from "./start-private-redis.js";

export type StackRedisChoice =
  /** The embedded store: one process, nothing survives it. */
  | { kind: "memory" }
  /** The machine's Redis (`REDIS_URL`, else 127.0.0.1:6379) under a fresh prefix, whose keys go on stop. */
  | { kind: "shared"; url?: string; keyPrefix?: string }
  /** A redis-server of the stack's own, which may be flushed, restarted or paused. */
  | { kind: "private"; keyPrefix?: string };

/** The Redis behind the stores (absent for the memory store). */
export interface StackRedis {
  /** For an App that connects on its own (a child process, a client with the App's own settings). */
  url: string;
  client: Redis;
  keyPrefix: string;
  /** The private server, when the stack started one. */
  server?: PrivateRedis;
}

export interface StackStores {
  stores: Stores;
  fences: FenceStore;
  redis?: StackRedis;
  close(): Promise<void>;
}

export const sharedRedisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A connected client that fails fast (one retry, no offline queue, no reconnect) as the store recommends. */
export async function connectSharedRedis(url = sharedRedisUrl, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    retryStrategy: () => null,
    ...options,
  });
  // Connection errors reach the caller through connect() and the commands; keep them off stderr.
  let lastError: Error | undefined;
  client.on("error", (error: Error) => {
    lastError = error;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw lastError ?? error;
  }
  return client;
}

function onRedis(redis: StackRedis): Omit<StackStores, "close"> {
  return {
    stores: createRedisStores({ redis: redis.client, keyPrefix: redis.keyPrefix }),
    fences: new RedisFenceStore({ redis: redis.client, keyPrefix: redis.keyPrefix }),
    redis,
  };
}

export async function openStackStores(choice: StackRedisChoice): Promise<StackStores> {
  if (choice.kind === "memory") {
    const stores = createMemoryStores();
    return { stores, fences: new MemoryFenceStore(), close: () => stores.connection.close() };
  }
  if (choice.kind === "private") {
    const server = await startPrivateRedis();
    const redis = {
      url: server.url,
      client: server.client(),
      keyPrefix: choice.keyPrefix ?? "claim-hold:",
      server,
    };
    return { ...onRedis(redis), close: () => server.stop() };
  }
  const url = choice.url ?? sharedRedisUrl;
  const client = await connectSharedRedis(url);
  const redis = { url, client, keyPrefix: choice.keyPrefix ?? uniqueKeyPrefix("stack") };
  return {
    ...onRedis(redis),
    async close() {
      await deleteKeysWithPrefix(client, redis.keyPrefix).catch(() => undefined);
      client.disconnect();
    },
  };
}
