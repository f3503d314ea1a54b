// The failed-auth limiter's memory of accepted GitHub tokens outlives the process (the store), and unseen tokens are verified at a bounded rate.
import { describe, expect, it } from "vitest";
import { createFailedAuthLimiter } from "../../src/http/failed-auth-limiter.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { createRedisStores } from "../../src/providers/redis/redis-store.js";
import { connectSharedRedis } from "../../tools/local-stack/stack-stores.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";

const redisProbe = await probeRedis();
const token = "ghp_valid000000000000000000000000000001";

describe.each([
  { name: "memory store", redis: false },
  ...(redisProbe.available ? [{ name: "Redis", redis: true }] : []),
])("known GitHub tokens on the $name", ({ redis }) => {
  async function storeOf() {
    if (!redis) {
      const stores = createMemoryStores({ now: () => 0 });
      return { stores, close: async () => undefined };
    }
    const client = await connectSharedRedis();
    const stores = createRedisStores({
      redis: client,
      keyPrefix: uniqueKeyPrefix("known-tokens"),
      ownsClient: true,
    });
    return { stores, close: () => stores.connection.close() };
  }

  it("a restarted process (or a replica) knows a token another accepted; a rejected one is forgotten by both", async () => {
    const { stores, close } = await storeOf();
    try {
      let now = 1_000;
      const first = createFailedAuthLimiter({ now: () => now, store: stores.documents });
      const second = createFailedAuthLimiter({ now: () => now, store: stores.documents });
      expect(await second.knownGood(token)).toBe(false);
      await first.accepted(token);
      expect(await second.knownGood(token)).toBe(true);
      now += 10_000;
      await second.rejected(token);
      const third = createFailedAuthLimiter({ now: () => now, store: stores.documents });
      expect(await third.knownGood(token)).toBe(false);
    } finally {
      await close();
    }
  });
});

describe("verifying unseen tokens from a limited address", () => {
  it("allows the configured number a minute per address, then none until the minute has passed", () => {
    let now = 0;
    const limiter = createFailedAuthLimiter({ now: () => now, verificationsPerMinute: 3 });
    expect([1, 2, 3, 4].map(() => limiter.takeVerification("10.0.0.1"))).toEqual([true, true, true, false]);
    expect(limiter.takeVerification("10.0.0.2")).toBe(true);
    now += 60_001;
    expect(limiter.takeVerification("10.0.0.1")).toBe(true);
  });

  it("costs no store call for a token the process knows", async () => {
    const calls: string[] = [];
    const store = {
      putDocument: async (name: string) => {
        calls.push(`put ${name.slice(0, 11)}`);
      },
      getDocument: async (name: string) => {
        calls.push(`get ${name.slice(0, 11)}`);
        return null;
      },
    };
    const limiter = createFailedAuthLimiter({ now: () => 0, store });
    await limiter.accepted(token);
    await limiter.accepted(token);
    expect(await limiter.knownGood(token)).toBe(true);
    expect(calls).toEqual(["put known-token"]);
  });
});
