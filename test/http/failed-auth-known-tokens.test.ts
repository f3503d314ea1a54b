// The failed-auth limiter's memory of accepted GitHub tokens outlives the process (the store), and unseen tokens are verified at a bounded rate.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFailedAuthLimiter } from "../../src/http/failed-auth-limiter.js";
import { createMemoryRateLimits } from "../../src/providers/memory/memory-rate-limits.js";
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
      const limits = createMemoryRateLimits();
      const first = createFailedAuthLimiter({ now: () => now, limits, store: stores.documents });
      const second = createFailedAuthLimiter({ now: () => now, limits, store: stores.documents });
      expect(await second.knownGood(token)).toBe(false);
      await first.accepted(token);
      expect(await second.knownGood(token)).toBe(true);
      now += 10_000;
      await second.rejected(token);
      const third = createFailedAuthLimiter({ now: () => now, limits, store: stores.documents });
      expect(await third.knownGood(token)).toBe(false);
    } finally {
      await close();
    }
  });
});

describe("verifying unseen tokens from a limited address", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("allows the configured number a minute per address, then none until the minute has passed", async () => {
    // rate-limiter-flexible's memory counter reads the wall clock: only Date is faked.
    vi.useFakeTimers({ toFake: ["Date"] });
    const limiter = createFailedAuthLimiter({
      now: () => 0,
      limits: createMemoryRateLimits(),
      verificationsPerMinute: 3,
    });
    const taken = [];
    for (let n = 0; n < 4; n++) taken.push(await limiter.takeVerification("10.0.0.1"));
    expect(taken).toEqual([true, true, true, false]);
    expect(await limiter.takeVerification("10.0.0.2")).toBe(true);
    vi.setSystemTime(Date.now() + 59_999);
    expect(await limiter.takeVerification("10.0.0.1")).toBe(false);
    vi.setSystemTime(Date.now() + 1);
    expect(await limiter.takeVerification("10.0.0.1")).toBe(true);
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
    const limiter = createFailedAuthLimiter({ now: () => 0, limits: createMemoryRateLimits(), store });
    await limiter.accepted(token);
    await limiter.accepted(token);
    expect(await limiter.knownGood(token)).toBe(true);
    expect(calls).toEqual(["put known-token"]);
  });
});
