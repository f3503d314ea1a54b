// Failed authentications per client address in a sliding window; past the limit, invalid credentials get 429.
import { createHash } from "node:crypto";
import type { DocumentStore } from "../providers/app-stores.js";
import { UserError } from "./user-error.js";

export interface FailedAuthLimiter {
  fail(address: string): void;
  /** Seconds the address must wait, or 0 when it may try. */
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
   * (it costs the token's own quota): at most `verificationsPerMinute` per address.
   */
  takeVerification(address: string): boolean;
}

const digestOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** A token GitHub accepted is written to the store again at most this often by one process. */
const storeRefreshMs = 60 * 60_000;

export function createFailedAuthLimiter(options: {
  now: () => number;
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
  const verificationsPerMinute = options.verificationsPerMinute ?? 30;
  const failures = new Map<string, number[]>();
  /** Token digest → when it stops being known; insertion order is age order, so the oldest goes first. */
  const good = new Map<string, number>();
  /** Token digest → when this process last wrote it to the store. */
  const stored = new Map<string, number>();
  /** Address → when its verifications of unseen tokens happened (within the last minute). */
  const verifications = new Map<string, number[]>();
  const storeError = (error: unknown) => options.onStoreError?.(error);
  const documentOf = (digest: string) => `known-token:${digest}`;
  const recent = (address: string) => {
    const cutoff = options.now() - windowMs;
    const list = (failures.get(address) ?? []).filter((at) => at > cutoff);
    if (list.length === 0) failures.delete(address);
    else failures.set(address, list);
    return list;
  };
  return {
    fail(address) {
      const list = recent(address);
      list.push(options.now());
      failures.set(address, list);
      if (failures.size > maxEntries) failures.delete(failures.keys().next().value as string);
    },
    blockedFor(address) {
      const list = recent(address);
      if (list.length < maxFailures) return 0;
      return Math.max(1, Math.ceil((list[0]! + windowMs - options.now()) / 1000));
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
    takeVerification(address) {
      const cutoff = options.now() - 60_000;
      const list = (verifications.get(address) ?? []).filter((at) => at > cutoff);
      if (list.length >= verificationsPerMinute) {
        verifications.set(address, list);
        return false;
      }
      list.push(options.now());
      verifications.delete(address);
      verifications.set(address, list);
      if (verifications.size > maxEntries) verifications.delete(verifications.keys().next().value as string);
      return true;
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
 * limit (not counted again, so a flood cannot grow the window), else the failure is counted and
 * `error` stands. A valid credential never comes here, so it is never refused for others' failures.
 */
export function invalidCredential<E extends Error>(
  limiter: FailedAuthLimiter,
  address: string,
  error: E,
): E | UserError {
  const retryAfter = limiter.blockedFor(address);
  if (retryAfter > 0) return rateLimited(retryAfter);
  limiter.fail(address);
  return error;
}
