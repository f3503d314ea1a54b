// Writes to one Gitea instance one at a time, spaced: a self-hosted instance has no secondary rate limit to tell us to slow down.
import { setTimeout as sleepFor } from "node:timers/promises";

export interface WriteLimiter {
  /** Runs `call` after every write submitted before it has finished, and `spacingMs` after the last one. */
  run<T>(call: () => Promise<T>): Promise<T>;
}

export interface SerialWriteLimiterOptions {
  /** The least time between the end of one write and the start of the next. */
  spacingMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** One queue per instance (per process): a failed write does not stop the ones behind it. */
export function serialWriteLimiter(options: SerialWriteLimiterOptions): WriteLimiter {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms));
  let tail: Promise<unknown> = Promise.resolve();
  let lastFinishedAt = Number.NEGATIVE_INFINITY;
  return {
    run<T>(call: () => Promise<T>): Promise<T> {
      const result = tail.then(async () => {
        const wait = lastFinishedAt + options.spacingMs - now();
        if (wait > 0) await sleep(wait);
        try {
          return await call();
        } finally {
          lastFinishedAt = now();
        }
      });
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
