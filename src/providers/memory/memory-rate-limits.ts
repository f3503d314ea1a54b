// The embedded store's rate limits: rate-limiter-flexible's RateLimiterMemory, counted in this process only.
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimitStore, Taken, WindowCounter } from "../rate-limits.js";

/** Consumes one point of `limiter` for `key`; a refusal is an answer, any other rejection is rethrown. */
export async function takeOne(limiter: RateLimiterAbstract, key: string): Promise<Taken> {
  try {
    const res = await limiter.consume(key);
    return { allowed: true, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext };
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    return { allowed: false, remaining: 0, msBeforeNext: error.msBeforeNext };
  }
}

/** Counters in this process; a key goes when its window ends (the library's timers). */
export function createMemoryRateLimits(): RateLimitStore {
  return {
    counter({ name, points, durationSeconds }): WindowCounter {
      const limiter = new RateLimiterMemory({ keyPrefix: name, points, duration: durationSeconds });
      return { take: (key) => takeOne(limiter, key) };
    },
  };
}
