// Shares GitHub's write spacing (the throttling plugin's write and notifications limiters) across replicas through Redis: one script call per write.
//
// Probot would share its limiters itself when given REDIS_URL, through Bottleneck: it fetches ioredis
// with a package runner at start-up, cannot speak `redis-cluster://`, never recovers on Redis 7 once
// its keys are gone, and costs three script calls per write even when idle (docs/deploy.md#5-scale-out).
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "pino";
import type { ProbotOctokit } from "probot";
import { defineScript, runScript, ScriptSet, value } from "../redis/script-runner.js";

/**
 * Every spacing key carries this hash tag: on a cluster they sit in one slot, and outside the claim
 * store's prefix, so a flush of the claim store never reaches them.
 */
export const throttleKeyTag = "{claim-hold-throttle}";

/**
 * The spacing `@octokit/plugin-throttling` (11.x) keeps per installation, as its `write` and
 * `notifications` groups do (`maxConcurrent: 1` over a no-op job, so only the spacing of starts counts).
 */
const writeSpacingMs = { write: 1_000, notifications: 3_000 } as const;
type SpacedGroup = keyof typeof writeSpacingMs;

const spaceWritesScript = defineScript({
  name: "spaceWrites",
  keys: ["next"],
  args: ["interval"],
  replies: value("wait"),
});

export const throttleScripts = new ScriptSet([spaceWritesScript]);

type Job = (...args: unknown[]) => Promise<unknown>;

/** What the plugin uses of a limiter group: `group.key(id).schedule(jobOptions, job)`. */
export interface SpacingGroup {
  key(id: string): { schedule(jobOptions: unknown, job: Job, ...args: unknown[]): Promise<unknown> };
}

export interface SharedThrottle {
  groups: Record<SpacedGroup, SpacingGroup>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The write spacing kept in Redis. When Redis does not answer (within the client's command timeout),
 * the spacing falls back to this process alone: writes keep going, one process at a time spaced,
 * until Redis answers again.
 */
export function createSharedThrottle(client: Redis | Cluster, log: Logger): SharedThrottle {
  throttleScripts.register(client);
  // Connection errors are the fallback's to report (once per outage), not ioredis' unhandled-error print.
  client.on("error", () => undefined);
  let degraded = false;
  /** When this process's next write may start, by key: the later of its own and the shared reservation. */
  const localNext = new Map<string, number>();
  /** Books a start `wait` ms from now, never before the one this process booked last, and answers its wait. */
  const book = (key: string, wait: number, interval: number) => {
    const now = Date.now();
    const start = Math.max(now + wait, localNext.get(key) ?? 0);
    localNext.set(key, start + interval);
    return start - now;
  };
  const reserve = async (key: string, interval: number): Promise<number> => {
    try {
      const { wait } = await runScript(client, spaceWritesScript, {
        keys: { next: key },
        args: { interval },
      });
      if (degraded) {
        degraded = false;
        log.info({ source: "github-throttle" }, "GitHub write spacing: shared through Redis again");
      }
      // Writes this process spaced alone during an outage still count once Redis answers again.
      return book(key, Number(wait), interval);
    } catch (error) {
      if (!degraded) {
        degraded = true;
        log.warn(
          { err: { message: (error as Error).message }, source: "github-throttle" },
          "GitHub write spacing: Redis did not answer, spacing this process's writes alone",
        );
      }
      return book(key, 0, interval);
    }
  };
  const group = (name: SpacedGroup): SpacingGroup => ({
    key: (id) => {
      const key = `claim-hold${throttleKeyTag}:${id}:${name}`;
      return {
        async schedule(_jobOptions, job, ...args) {
          const wait = await reserve(key, writeSpacingMs[name]);
          if (wait > 0) await sleep(wait);
          return job(...args);
        },
      };
    },
  });
  return {
    groups: { write: group("write"), notifications: group("notifications") },
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/**
 * The App's Octokit with GitHub's write spacing kept in Redis, per installation (the plugin's
 * `throttle.id`), so replicas share it; the other limiters (every request's concurrency cap, token
 * requests, search) stay in this process, as the plugin builds them without a connection.
 */
export function withSharedThrottle<T extends typeof ProbotOctokit>(Octokit: T, throttle: SharedThrottle): T {
  return Octokit.defaults((instance: Record<string, unknown>) => {
    const options = (instance.throttle ?? {}) as Record<string, unknown>;
    if (options.enabled === false) return instance;
    return { ...instance, throttle: { ...options, ...throttle.groups, id: String(options.id ?? "app") } };
  }) as T;
}
