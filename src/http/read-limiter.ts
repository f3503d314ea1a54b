// Per-caller token buckets on the read routes that cost GitHub requests (docs/reference/http-api.md#reads), kept in this process.
import { UserError } from "./user-error.js";

/** A route family: each has its own bucket per caller. */
export type ReadFamily = "inventory" | "subject" | "queue";

/** Requests per minute per login and family when `CLAIM_HOLD_READS_PER_MINUTE` is not set. */
export const defaultReadsPerMinute = 30;

export interface ReadLimiter {
  /**
   * Takes one request from `login`'s bucket for `family`: 0 when it was there, else the seconds
   * until one is (nothing is taken then, so retrying early does not push the wait further out).
   */
  take(family: ReadFamily, login: string): number;
}

/** One request in bucket units: a bucket refills `perMinute` units a millisecond, so sums stay whole numbers. */
const request = 60_000;

interface Bucket {
  units: number;
  at: number;
}

/**
 * A bucket holds `perMinute` requests (the burst) and refills at `perMinute` a minute. Every
 * request counts, a cache hit too: a caller cannot tell hits from misses, so its limit stays
 * predictable, and the limit is what bounds a caller that varies the query to miss the cache.
 * Per process: behind N replicas a caller gets up to N times the limit, still a bounded cost.
 * Past `maxEntries` callers the least recently seen bucket is dropped (it would refill anyway).
 */
export function createReadLimiter(options: {
  now: () => number;
  perMinute?: number;
  maxEntries?: number;
}): ReadLimiter {
  const perMinute = options.perMinute ?? defaultReadsPerMinute;
  const capacity = perMinute * request;
  const maxEntries = options.maxEntries ?? 10_000;
  const buckets = new Map<string, Bucket>();
  return {
    take(family, login) {
      const key = `${family}:${login.toLowerCase()}`;
      const now = options.now();
      const last = buckets.get(key) ?? { units: capacity, at: now };
      const bucket = {
        units: Math.min(capacity, last.units + Math.max(0, now - last.at) * perMinute),
        at: now,
      };
      buckets.delete(key);
      buckets.set(key, bucket);
      while (buckets.size > maxEntries) buckets.delete(buckets.keys().next().value as string);
      if (bucket.units >= request) {
        bucket.units -= request;
        return 0;
      }
      return Math.max(1, Math.ceil((request - bucket.units) / perMinute / 1000));
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
