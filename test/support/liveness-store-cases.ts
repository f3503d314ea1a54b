// The stores a contract suite runs against: the memory store, a real Redis, and the Redis Cluster when CI provides one.
import type { Cluster, Redis } from "ioredis";
import { describe, it } from "vitest";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { createRedisStores } from "../../src/providers/redis/redis-store.js";
import type { Stores } from "../../src/providers/stores.js";
import {
  createTestCluster,
  createTestRedis,
  deleteKeysWithPrefix,
  probeRedis,
  redisClusterUrl,
  uniqueKeyPrefix,
} from "./redis.js";

export interface LivenessStoreCase {
  name: string;
  setup(): Promise<void>;
  /**
   * A fresh store (its own key prefix on Redis), stores over other connections sharing its data
   * (memory: the one store again), the Redis client for round-trip assertions (null on memory and on
   * a cluster, whose client routes the same EVALSHA), and the keys it wrote (Redis only).
   */
  create(clock?: () => number): {
    stores: Stores;
    others: Stores[];
    redis: Redis | null;
    keys?: () => Promise<string[]>;
  };
  teardown(): Promise<void>;
}

function memoryCase(others: number): LivenessStoreCase {
  return {
    name: "memory stores",
    setup: async () => {},
    create(clock) {
      const stores = createMemoryStores(clock ? { now: clock } : undefined);
      return { stores, others: Array.from({ length: others }, () => stores), redis: null };
    },
    teardown: async () => {},
  };
}

function redisCase(
  name: string,
  prefix: string,
  others: number,
  connect: () => Promise<Redis | Cluster>,
): LivenessStoreCase {
  const runPrefix = uniqueKeyPrefix(prefix);
  const clients: (Redis | Cluster)[] = [];
  let next = 0;
  return {
    name,
    async setup() {
      for (let i = 0; i <= others; i++) clients.push(await connect());
    },
    create() {
      const keyPrefix = `${runPrefix}${++next}:`;
      const [main, ...rest] = clients;
      return {
        stores: createRedisStores({ redis: main!, keyPrefix }),
        others: rest.map((redis) => createRedisStores({ redis, keyPrefix })),
        redis: main!.isCluster ? null : (main as Redis),
        async keys() {
          const nodes = main!.isCluster ? (main as Cluster).nodes("master") : [main as Redis];
          return (await Promise.all(nodes.map((node) => node.keys(`${keyPrefix}*`)))).flat().sort();
        },
      };
    },
    async teardown() {
      if (clients[0]) await deleteKeysWithPrefix(clients[0], runPrefix);
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
}

/**
 * The cases of one contract (`contract` names it in the skip line when no Redis answers); `others`
 * stores share each case's data over connections of their own.
 */
export async function livenessStoreCases(options: {
  contract: string;
  prefix: string;
  others: number;
}): Promise<LivenessStoreCase[]> {
  const { contract, prefix, others } = options;
  const cases = [memoryCase(others)];
  const probe = await probeRedis();
  if (probe.available) cases.push(redisCase("Redis stores", prefix, others, createTestRedis));
  else {
    describe.skip(`Redis stores (${probe.reason})`, () => {
      it(`passes the ${contract}`, () => {});
    });
  }
  // Redis Cluster (.ci/run sets REDIS_CLUSTER_URL): every script of an installation stays in one slot.
  if (redisClusterUrl) {
    cases.push(redisCase("Redis stores on Redis Cluster", prefix, others, createTestCluster));
  }
  return cases;
}
