// The App's Octokit: Probot's, with bounded rate-limit retries, a timeout on every GitHub request, and a new
// installation token when GitHub refuses the cached one.
import { ProbotOctokit } from "probot";
import { createReadAwareRetryLimiter } from "./read-aware-retry-limiter.js";

/** One retry at most, and only when GitHub asks for a short enough wait (handlers must stay well inside 10 s). */
export const maxRateLimitRetries = 1;
export const maxRateLimitWaitSeconds = 5;
/** A GitHub request that has not answered in this long is abandoned (the transition fails and is repaired). */
export const githubRequestTimeoutMs = 8_000;

interface ThrottledRequest {
  method?: string;
  url?: string;
}
interface LoggingOctokit {
  log: { warn: (message: string) => void };
}

/**
 * What to do when GitHub answers with a (secondary) rate limit. Probot as shipped retries forever;
 * this waits out `Retry-After` once when it is short (GitHub's fallback with no header is 60 s: too
 * long for a request that an agent or a webhook delivery is waiting on) and otherwise gives up, so
 * the caller gets `502 github_failed` and the store is rolled back: retrying later is safe.
 */
export function shouldRetryRateLimit(retryAfterSeconds: number, retryCount: number): boolean {
  return retryCount < maxRateLimitRetries && retryAfterSeconds <= maxRateLimitWaitSeconds;
}

function rateLimitHandler(kind: string) {
  return (retryAfter: number, options: ThrottledRequest, octokit: LoggingOctokit, retryCount = 0) => {
    const retry = shouldRetryRateLimit(retryAfter, retryCount);
    octokit.log.warn(
      `${kind} hit with "${options.method} ${options.url}": ` +
        (retry
          ? `retrying once in ${retryAfter} s`
          : `giving up (retry-after ${retryAfter} s, attempt ${retryCount + 1})`),
    );
    return retry;
  };
}

/** `fetch` that aborts after `timeoutMs`, keeping any signal the caller passed. */
export function fetchWithTimeout(timeoutMs: number): typeof fetch {
  return (input, init = {}) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return fetch(input, { ...init, signal });
  };
}

/** Probot's token cache (a `toad-cache` Lru shared by every client of one Probot), as far as used here. */
interface AuthOptions {
  installationId?: number | string;
  cache?: { delete(key: string): void };
}
type OctokitPlugin = Parameters<typeof ProbotOctokit.plugin>[0];

/** True for GitHub's 401 to a request sent with an installation token (`token …`, not the App's `bearer` JWT). */
export function isRefusedInstallationToken(error: unknown): boolean {
  const { status, request } = error as { status?: unknown; request?: { headers?: Record<string, unknown> } };
  const authorization = request?.headers?.authorization;
  return status === 401 && typeof authorization === "string" && /^token /i.test(authorization);
}

/**
 * Octokit plugin for installation clients: when GitHub refuses the cached installation token (401
 * "Bad credentials": expired by GitHub's clock before `@octokit/auth-app`'s 59-minute cache let go of
 * it, or revoked), drop it from the cache and send the request once more, which fetches a new token.
 * `@octokit/auth-app` alone retries a 401 only within 5 s of creating a token (replication delay) and
 * otherwise keeps serving the refused token until its cache entry ages out. One retry, never a loop:
 * a second 401, or a failure to get a new token, reaches the caller.
 */
export const refreshRefusedInstallationToken: OctokitPlugin = (octokit, options) => {
  const { installationId, cache } = (options.auth ?? {}) as AuthOptions;
  if (installationId === undefined || !cache) return;
  octokit.hook.wrap("request", async (request, requestOptions) => {
    try {
      return await request(requestOptions);
    } catch (error) {
      if (!isRefusedInstallationToken(error)) throw error;
      octokit.log.warn(
        `GitHub refused the cached installation token of installation ${installationId} ` +
          `("${requestOptions.method} ${requestOptions.url}": 401): dropping it and retrying once with a new token`,
      );
      // auth-app's cache key for a token of the whole installation (no permissions or repositories
      // narrowed) is the installation id; `auth({ refresh: true })` would not do, as it ignores the
      // client's baseUrl (GHES, the simulator) and asks api.github.com.
      cache.delete(String(installationId));
      return request(requestOptions);
    }
  });
};

export interface ClaimHoldOctokitOptions {
  timeoutMs?: number;
  /** Extra throttle settings (tests turn the limiter off or shorten `retryAfterBaseValue`). */
  throttle?: Record<string, unknown>;
  retry?: Record<string, unknown>;
}

/**
 * Probot's Octokit with: bounded secondary/primary rate-limit retries (above); 429 left to the
 * throttling plugin alone (plugin-retry would otherwise retry it three more times); a request timeout;
 * one retry with a new installation token when GitHub refuses the cached one; GraphQL queries kept
 * out of the write limiter (one a second per installation), which mutations and REST writes still wait on.
 */
export function createClaimHoldOctokit(options: ClaimHoldOctokitOptions = {}): typeof ProbotOctokit {
  const timeoutMs = options.timeoutMs ?? githubRequestTimeoutMs;
  return ProbotOctokit.plugin(refreshRefusedInstallationToken).defaults(
    (instance: Record<string, unknown>) => {
      const throttle: Record<string, unknown> = {
        ...(instance.throttle as object),
        onSecondaryRateLimit: rateLimitHandler("Secondary rate limit"),
        onRateLimit: rateLimitHandler("Rate limit"),
        ...options.throttle,
      };
      // A new one for every client, never one inherited from the client it was derived from (Probot
      // builds each installation's client from the App's options): the plugin adds a listener to it.
      if (throttle.enabled !== false) throttle.retryLimiter = createReadAwareRetryLimiter();
      return {
        ...instance,
        request: {
          ...(instance.request as object),
          fetch:
            (instance.request as { fetch?: typeof fetch } | undefined)?.fetch ?? fetchWithTimeout(timeoutMs),
        },
        retry: {
          doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
          ...(instance.retry as object),
          ...options.retry,
        },
        throttle,
      };
    },
  );
}
