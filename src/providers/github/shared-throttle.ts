// Shares GitHub's write limiter (Probot's Bottleneck throttling) across replicas through Redis, and survives its loss.
//
// Probot would do this itself when given REDIS_URL, but it fetches ioredis with a package runner at
// start-up, cannot speak `redis-cluster://`, and on Redis 7 never recovers once its keys are gone:
// Bottleneck rebuilds on the error "SETTINGS_KEY_NOT_FOUND", Redis 7 answers "ERR SETTINGS_KEY_NOT_FOUND".
import Bottleneck from "bottleneck";
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "pino";
import type { ProbotOctokit } from "probot";

/**
 * Every limiter key carries this hash tag: on a cluster each Bottleneck script stays in one slot,
 * and the keys sit outside the claim store's prefix, so a flush of the claim store never reaches them.
 */
export const throttleKeyTag = "{claim-hold-throttle}";

type ScriptCallback = (error: Error | null, reply?: unknown) => void;

/** Bottleneck's own recovery codes, as Redis 7 prefixes them. */
const prefixedRecoverable = /^ERR (SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT)\b/;

/**
 * Bottleneck's ioredis connection, with script errors of Redis 7 ("ERR SETTINGS_KEY_NOT_FOUND")
 * given the message Bottleneck recognises, so it re-initialises its settings and retries the call
 * (after a FLUSHALL, an empty restart, or eviction of its keys) instead of failing every request.
 */
class RecoveringIORedisConnection extends Bottleneck.IORedisConnection {
  __scriptFn__(name: string): (...args: unknown[]) => unknown {
    // biome-ignore lint/suspicious/noExplicitAny: Bottleneck's internal hook is untyped
    const run = (Bottleneck.IORedisConnection.prototype as any).__scriptFn__.call(this, name) as (
      ...args: unknown[]
    ) => unknown;
    return (...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback !== "function") return run(...args);
      const recovering: ScriptCallback = (error, reply) => {
        const match = error ? prefixedRecoverable.exec(error.message) : null;
        if (error && match) error.message = match[1]!;
        (callback as ScriptCallback)(error, reply);
      };
      return run(...args.slice(0, -1), recovering);
    };
  }
}

/** The limiter's Redis connection (Bottleneck duplicates the client for its pub/sub). */
export function createThrottleConnection(client: Redis | Cluster, log: Logger): Bottleneck.IORedisConnection {
  const connection = new RecoveringIORedisConnection({ client } as Bottleneck.IORedisConnectionOptions);
  connection.on("error", (error: Error) =>
    log.warn({ err: { message: error.message }, source: "bottleneck" }, "GitHub rate limiter: Redis error"),
  );
  return connection;
}

/**
 * The throttling plugin's limiters that are per process: every request's concurrency cap (`global`),
 * token requests (`auth`) and search. They keep no state worth sharing, and in Redis each request
 * would pay three script calls on them even when idle (docs/deploy.md#5-scale-out).
 */
function perProcessLimiters() {
  return {
    global: new Bottleneck.Group({ id: "octokit-global", maxConcurrent: 10 }),
    auth: new Bottleneck.Group({ id: "octokit-auth", maxConcurrent: 1 }),
    search: new Bottleneck.Group({ id: "octokit-search", maxConcurrent: 1, minTime: 2_000 }),
  };
}

/**
 * The App's Octokit with GitHub's write rules kept in Redis: the write limiter (one mutation or REST
 * write at a time, a second apart, per installation) and the notifications limiter get limiter ids
 * `claim-hold{claim-hold-throttle}:<installation>` so replicas share them; the other limiters stay in
 * this process.
 */
export function withSharedThrottle<T extends typeof ProbotOctokit>(
  Octokit: T,
  connection: Bottleneck.IORedisConnection,
): T {
  const local = perProcessLimiters();
  return Octokit.defaults((instance: Record<string, unknown>) => {
    const throttle = (instance.throttle ?? {}) as Record<string, unknown>;
    if (throttle.enabled === false) return instance;
    return {
      ...instance,
      throttle: {
        ...local,
        ...throttle,
        Bottleneck,
        connection,
        id: `claim-hold${throttleKeyTag}:${String(throttle.id ?? "app")}`,
      },
    };
  }) as T;
}
