// Failed authentications per client address in a sliding window; past the limit, invalid credentials get 429.
import { createHash } from "node:crypto";
import { UserError } from "./user-error.js";

export interface FailedAuthLimiter {
  fail(address: string): void;
  /** Seconds the address must wait, or 0 when it may try. */
  blockedFor(address: string): number;
  /** Remembers a GitHub token GitHub accepted (by digest), so a limited address can still use it. */
  accepted(token: string): void;
  /** Forgets a GitHub token GitHub no longer accepts. */
  rejected(token: string): void;
  /** Whether GitHub accepted `token` lately: checking it again is no guess. */
  knownGood(token: string): boolean;
}

const digestOf = (token: string) => createHash("sha256").update(token).digest("hex");

export function createFailedAuthLimiter(options: {
  now: () => number;
  maxFailures?: number;
  windowMs?: number;
  /** How long a GitHub token GitHub accepted stays known (default 24 h). */
  knownGoodMs?: number;
  maxEntries?: number;
}): FailedAuthLimiter {
  const maxFailures = options.maxFailures ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const knownGoodMs = options.knownGoodMs ?? 24 * 60 * 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const failures = new Map<string, number[]>();
  /** Token digest → when it stops being known; insertion order is age order, so the oldest goes first. */
  const good = new Map<string, number>();
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
    accepted(token) {
      const digest = digestOf(token);
      good.delete(digest);
      good.set(digest, options.now() + knownGoodMs);
      if (good.size > maxEntries) good.delete(good.keys().next().value as string);
    },
    rejected(token) {
      good.delete(digestOf(token));
    },
    knownGood(token) {
      const digest = digestOf(token);
      const until = good.get(digest);
      if (until === undefined) return false;
      if (until > options.now()) return true;
      good.delete(digest);
      return false;
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
