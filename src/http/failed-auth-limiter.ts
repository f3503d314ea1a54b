// Failed authentications per client address in a window, fleet-wide with Redis; past the limit, invalid credentials get 429.
import { createHash } from "node:crypto";
import type { DocumentStore } from "../providers/app-stores.js";
import type { RateLimitStore } from "../providers/rate-limits.js";
import { UserError } from "./user-error.js";

export interface FailedAuthLimiter {
  /**
   * Counts a failed authentication from `address` (one call to the limits' store): 0 when it was
   * within the limit (its error stands), else the seconds the address must wait.
   */
  fail(address: string): Promise<number>;
  /**
   * Seconds the address must wait, or 0 when it may try, from this process' memory of what its
   * failures' counts answered: no store call, so a valid credential's call costs none.
   */
  blockedFor(address: string): number;
  /**
   * Remembers a GitHub token GitHub accepted (by digest), so a limited address can still use it:
   * in memory, and in the store (once an hour per token per process) for a restart or a replica.
   */
  accepted(token: string): Promise<void>;
  /** Forgets a GitHub token GitHub no longer accepts. */
  rejected(token: string): Promise<void>;
  /** Whether GitHub accepted `token` lately (this process, or the store): checking it again is no guess. */
  knownGood(token: string): Promise<boolean>;
  /**
   * Whether a limited address may have one token the App has not seen verified with GitHub now
   * (it costs the token's own quota): at most `verificationsPerMinute` per address (fleet-wide with Redis).
   */
  takeVerification(address: string): Promise<boolean>;
}

const digestOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** A token GitHub accepted is written to the store again at most this often by one process. */
const storeRefreshMs = 60 * 60_000;

/**
 * `maxFailures` failed authentications per address in a window of `windowMs` from the first, counted
 * in `limits` (with Redis: one count for the fleet). Only a failure is counted, and only a failure
 * costs a store call: whether an address is limited is read from this process' memory, which each
 * failure's count refreshes. So a replica that has not seen the address fail yet learns it is
 * limited at its first failure there (answered 429), and until then may verify one unseen GitHub
 * token from it without the verification budget.
 */
export function createFailedAuthLimiter(options: {
  now: () => number;
  /** Where failures and verifications are counted (Redis for the fleet, or this process). */
  limits: RateLimitStore;
  maxFailures?: number;
  windowMs?: number;
  /** How long a GitHub token GitHub accepted stays known (default 24 h). */
  knownGoodMs?: number;
  maxEntries?: number;
  /** Verifications of unseen tokens a limited address may have per minute (default 30). */
  verificationsPerMinute?: number;
  /** Where accepted token digests outlive the process; absent: memory only. */
  store?: DocumentStore;
  /** Told when the store could not be read or written (the limiter goes on from memory). */
  onStoreError?: (error: unknown) => void;
}): FailedAuthLimiter {
  const maxFailures = options.maxFailures ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const knownGoodMs = options.knownGoodMs ?? 24 * 60 * 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const failures = options.limits.counter({
    name: "failed-auth",
    points: maxFailures,
    durationSeconds: Math.ceil(windowMs / 1000),
  });
  const verifications = options.limits.counter({
    name: "verify-token",
    points: options.verificationsPerMinute ?? 30,
    durationSeconds: 60,
  });
  /** Address → when its limit ends, as its last counted failure answered; insertion order is age order. */
  const blocked = new Map<string, number>();
  /** Token digest → when it stops being known; insertion order is age order, so the oldest goes first. */
  const good = new Map<string, number>();
  /** Token digest → when this process last wrote it to the store. */
  const stored = new Map<string, number>();
  const storeError = (error: unknown) => options.onStoreError?.(error);
  const documentOf = (digest: string) => `known-token:${digest}`;
  const secondsUntil = (at: number) => Math.max(1, Math.ceil((at - options.now()) / 1000));
  return {
    async fail(address) {
      const taken = await failures.take(address);
      if (taken.remaining > 0) return 0;
      // The failure that used the last point leaves the address limited, as does one past it.
      const until = options.now() + taken.msBeforeNext;
      blocked.delete(address);
      blocked.set(address, until);
      if (blocked.size > maxEntries) blocked.delete(blocked.keys().next().value as string);
      return taken.allowed ? 0 : secondsUntil(until);
    },
    blockedFor(address) {
      const until = blocked.get(address);
      if (until === undefined) return 0;
      if (until > options.now()) return secondsUntil(until);
      blocked.delete(address);
      return 0;
    },
    async accepted(token) {
      const digest = digestOf(token);
      const now = options.now();
      good.delete(digest);
      good.set(digest, now + knownGoodMs);
      if (good.size > maxEntries) good.delete(good.keys().next().value as string);
      const last = stored.get(digest);
      if (!options.store || (last !== undefined && now - last < storeRefreshMs)) return;
      stored.delete(digest);
      stored.set(digest, now);
      if (stored.size > maxEntries) stored.delete(stored.keys().next().value as string);
      await options.store.putDocument(documentOf(digest), { at: now }, knownGoodMs).catch(storeError);
    },
    async rejected(token) {
      const digest = digestOf(token);
      const known = good.delete(digest) || stored.delete(digest);
      // Only a token once known can be in the store: an unknown one's rejection costs no store call.
      if (known && options.store) {
        await options.store.putDocument(documentOf(digest), null, 1).catch(storeError);
      }
    },
    async knownGood(token) {
      const digest = digestOf(token);
      const until = good.get(digest);
      if (until !== undefined && until > options.now()) return true;
      good.delete(digest);
      if (!options.store) return false;
      const found = await options.store.getDocument(documentOf(digest)).catch((error: unknown) => {
        storeError(error);
        return null;
      });
      if (found === null) return false;
      good.set(digest, options.now() + knownGoodMs);
      return true;
    },
    async takeVerification(address) {
      return (await verifications.take(address)).allowed;
    },
  };
}

/** The 429 an address over the limit gets, with the seconds it must wait. */
export function rateLimited(retryAfterSeconds: number): UserError {
  return new UserError(429, "rate_limited", "Too many failed authentications; slow down.", {
    retryAfterSeconds,
  });
}

/**
 * The answer for a credential that turned out invalid: 429 when its address is already over the
 * limit (known here: not counted again), else the failure is counted and `error` stands unless the
 * count says the address was over the limit already (its failures came to other replicas). A valid credential never comes here, so it is never refused for others' failures.
 */
export async function invalidCredential<E extends Error>(
  limiter: FailedAuthLimiter,
  address: string,
  error: E,
): Promise<E | UserError> {
  const retryAfter = limiter.blockedFor(address) || (await limiter.fail(address));
  return retryAfter > 0 ? rateLimited(retryAfter) : error;
}
