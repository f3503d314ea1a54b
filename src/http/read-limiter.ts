// Per-caller limits on the read routes that cost GitHub requests (docs/reference/http-api.md#reads), fleet-wide with Redis.
import type { RateLimitStore } from "../providers/rate-limits.js";
import { UserError } from "./user-error.js";

/** A route family: each has its own count per caller. */
export type ReadFamily = "inventory" | "subject" | "queue";

/** Requests per minute per login and family when `CLAIM_HOLD_READS_PER_MINUTE` is not set. */
export const defaultReadsPerMinute = 30;

export interface ReadLimiter {
  /** Counts one request of `login` for `family`: 0 when it is within the limit, else the seconds until it is. */
  take(family: ReadFamily, login: string): Promise<number>;
}

/**
 * `perMinute` requests per login and family in a minute from the first (rate-limiter-flexible's fixed
 * window, counted in `limits`: with Redis one count for the whole fleet). Every request counts, a cache
 * hit too: a caller cannot tell hits from misses, so its limit stays predictable, and the limit is what
 * bounds a caller that varies the query to miss the cache. A refused request does not move the
 * window's end, so retrying early does not push the wait further out.
 */
export function createReadLimiter(options: { limits: RateLimitStore; perMinute?: number }): ReadLimiter {
  const counter = options.limits.counter({
    name: "read",
    points: options.perMinute ?? defaultReadsPerMinute,
    durationSeconds: 60,
  });
  return {
    async take(family, login) {
      const taken = await counter.take(`${family}:${login.toLowerCase()}`);
      return taken.allowed ? 0 : Math.max(1, Math.ceil(taken.msBeforeNext / 1000));
    },
  };
}

/** The 429 a caller over its read limit gets (`Retry-After` is set from `retryAfterSeconds`). */
export function readRateLimited(family: ReadFamily, retryAfterSeconds: number): UserError {
  return new UserError(
    429,
    "rate_limited",
    `Too many ${family} reads from your login; retry in ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );
}
