// Test access to the shared Redis server: clients, a unique key prefix per run, and cleanup of only our keys.
import type { Cluster, Redis, RedisOptions } from "ioredis";
import { createRedisClient } from "../../src/providers/create-store.js";
import { scanNodes } from "../../tools/local-stack/redis-keys.js";
import { connectSharedRedis, sharedRedisUrl } from "../../tools/local-stack/stack-stores.js";

export { deleteKeysWithPrefix, uniqueKeyPrefix } from "../../tools/local-stack/redis-keys.js";

export const redisUrl = sharedRedisUrl;
/** `redis-cluster://h1:p1,…` of a running cluster (scripts/redis-cluster.sh); unset: the cluster cases are skipped. */
export const redisClusterUrl = process.env.REDIS_CLUSTER_URL;

/** A cluster client made the way the App makes it (createRedisClient), once its slots are known. */
export async function createTestCluster(): Promise<Cluster> {
  if (!redisClusterUrl) throw new Error("REDIS_CLUSTER_URL is not set");
  const cluster = createRedisClient(redisClusterUrl) as Cluster;
  cluster.on("error", () => {});
  if (cluster.status !== "ready") {
    await new Promise<void>((resolve, reject) => {
      cluster.once("ready", resolve);
      setTimeout(() => reject(new Error(`the cluster at ${redisClusterUrl} did not become ready`)), 5_000);
    });
  }
  return cluster;
}

/** A connected client; fails fast (one retry, no offline queue) as the store recommends. */
export function createTestRedis(options: RedisOptions = {}): Promise<Redis> {
  return connectSharedRedis(redisUrl, options);
}

/**
 * Whether Redis answers at `redisUrl`. In CI an unreachable Redis is a failure, never a skip:
 * the contract suite exists to prove the Redis store.
 */
export async function probeRedis(): Promise<{ available: true } | { available: false; reason: string }> {
  let client: Redis | undefined;
  try {
    client = await createTestRedis();
    await client.ping();
    return { available: true };
  } catch (error) {
    const reason = `Redis is unreachable at ${redisUrl} (${(error as Error).message})`;
    if (process.env.CI === "true") {
      throw new Error(`${reason}. CI must run the store contract suite against a real Redis server.`);
    }
    return { available: false, reason };
  } finally {
    client?.disconnect();
  }
}

/**
 * Lets `ms` pass for the expiring keys under `prefix` without sleeping: each key with a time to live
 * gets that much less of it (and goes when none is left), as if the server's clock had moved on.
 */
export async function elapseKeysWithPrefix(
  client: Redis | Cluster,
  prefix: string,
  ms: number,
): Promise<void> {
  if (!prefix.startsWith("claimhold-test:"))
    throw new Error(`refusing to touch keys outside the test prefix: ${prefix}`);
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  for (const node of scanNodes(client)) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      for (const key of keys) {
        const left = await node.pttl(key);
        if (left < 0) continue; // no time to live (or already gone)
        if (left <= ms) await node.unlink(key);
        else await node.pexpire(key, left - ms);
      }
    } while (cursor !== "0");
  }
}
