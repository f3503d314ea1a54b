// A few seconds of each read route's joined answer, shared by all callers, so N readers cost one GitHub read.
import { LeaseRefused } from "../lease/refusals.js";
import { UserError } from "./user-error.js";

/**
 * How long an answer is served again (5 s: docs/reference/http-api.md#reads), counted from when it arrived.
 */
export const readCacheTtlMs = 5_000;

export interface ReadCache {
  /**
   * The answer cached under `key`, else `load()`'s, kept for the window. Concurrent misses of one
   * key share one `load()`. A refusal (`LeaseRefused` or `UserError`, e.g. 404 not an issue) is an
   * answer too and is cached; any other failure (GitHub or the store failed) is not, so a retry
   * asks again.
   */
  answer<T>(key: readonly (string | number)[], load: () => Promise<T>): Promise<T>;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: UserError | LeaseRefused };

interface Entry {
  outcome: Promise<Outcome>;
  /** Infinite while the answer is in flight. */
  expiresAt: number;
}

/**
 * In this process, least recently used first out past `maxEntries`. Writes (claims, releases,
 * heartbeats, webhooks) do not invalidate it: an answer is at most `ttlMs` old, which is the
 * staleness docs/reference/http-api.md#reads allows, and dropping entries on every write would let a
 * writer reopen the GitHub cost the cache exists to cap.
 */
export function createReadCache(options: {
  now: () => number;
  ttlMs?: number;
  maxEntries?: number;
}): ReadCache {
  const ttlMs = options.ttlMs ?? readCacheTtlMs;
  const maxEntries = options.maxEntries ?? 1_000;
  const entries = new Map<string, Entry>();
  return {
    async answer<T>(parts: readonly (string | number)[], load: () => Promise<T>): Promise<T> {
      const key = JSON.stringify(parts);
      let entry = entries.get(key);
      if (entry && entry.expiresAt <= options.now()) entry = undefined;
      entries.delete(key);
      if (!entry) {
        const created: Entry = { outcome: settle(load), expiresAt: Number.POSITIVE_INFINITY };
        created.outcome.then(
          () => {
            created.expiresAt = options.now() + ttlMs;
          },
          () => {
            if (entries.get(key) === created) entries.delete(key);
          },
        );
        entry = created;
      }
      entries.set(key, entry);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      const outcome = await entry.outcome;
      if (!outcome.ok) throw outcome.error;
      return outcome.value as T;
    },
  };
}

async function settle(load: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await load() };
  } catch (error) {
    if (error instanceof UserError || error instanceof LeaseRefused) return { ok: false, error };
    throw error;
  }
}
