// The real App in-process on the local stack's simulator and private Redis, with a fake wall and monotonic clock.
import { Writable } from "node:stream";
import type { ClaimHoldServices } from "../../../src/app.js";
import type { GiteaConfig } from "../../../src/config/gitea-config.js";
import { createSteadyClock } from "../../../src/lease/steady-clock.js";
import { createLogger } from "../../../src/logger.js";
import { createRedisClient } from "../../../src/providers/create-store.js";
import { createClaimHoldOctokit } from "../../../src/providers/github/claim-hold-octokit.js";
import { createRedisStores } from "../../../src/providers/redis/redis-store.js";
import type { Stores } from "../../../src/providers/stores.js";
import type { StackWiring, StartApp } from "../../../tools/local-stack/start-local-stack.js";
import { startStackApp } from "../../../tools/local-stack/start-stack-app.js";
import { testTokenSecret } from "../../support/app-harness.js";

export const faultAdminToken = "fault-admin-token-0123456789abcdef";

/** Simulated time: `wall` is what the host's clock says, `monotonic` what really elapsed. */
export interface FakeTime {
  wall: number;
  monotonic: number;
}

export function advance(time: FakeTime, ms: number): void {
  time.wall += ms;
  time.monotonic += ms;
}

export interface FaultApp {
  url: string;
  logs: string[];
  services: ClaimHoldServices;
  stores: Stores;
  /** The App's own reading of the time (the steady clock over the fake wall clock). */
  now: () => number;
  close(): Promise<void>;
}

/**
 * The fault App for `startLocalStack`: on a Redis connection of its own, with the App's own client
 * settings (command timeout, fail-fast), to the stack's Redis or to `redisUrl` (a proxy in front of it).
 * It keeps the App's default in-memory fence: one on the stack's client would bypass the proxy and the timeout.
 */
export interface FaultAppOptions {
  time: FakeTime;
  redisUrl?: string;
  /** GitHub requests are abandoned after this long (real milliseconds). */
  githubTimeoutMs?: number;
  /** The real throttling plugin (rate-limit tests); off elsewhere so writes are not spaced 1 s apart. */
  throttle?: Record<string, unknown>;
  /** A Gitea instance the App serves too (its simulator). */
  gitea?: GiteaConfig;
}

export function faultApp(options: FaultAppOptions): StartApp<FaultApp> {
  return (wiring) => startFaultApp(wiring, options);
}

async function startFaultApp(wiring: StackWiring, options: FaultAppOptions): Promise<FaultApp> {
  if (!wiring.redis) throw new Error("the fault App needs the stack's Redis (not the memory store)");
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const log = createLogger({ level: "debug", destination });
  const redis = createRedisClient(options.redisUrl ?? wiring.redis.url);
  redis.on("error", () => undefined);
  const stores = createRedisStores({ redis, keyPrefix: wiring.redis.keyPrefix, ownsClient: true });
  const now = createSteadyClock({ wall: () => options.time.wall, monotonic: () => options.time.monotonic });
  const app = await startStackApp({
    githubBaseUrl: wiring.githubBaseUrl,
    credentials: wiring.credentials,
    stores,
    log,
    Octokit: createClaimHoldOctokit({
      timeoutMs: options.githubTimeoutMs ?? 400,
      retry: { enabled: false },
      throttle: options.throttle ?? { enabled: false },
    }),
    app: {
      tokenSecret: testTokenSecret,
      now,
      adminToken: faultAdminToken,
      credentialsLoaded: true,
      disabledJobs: ["janitor"],
      sleep: async () => undefined,
      ...(options.gitea ? { gitea: options.gitea } : {}),
    },
  });
  return {
    url: app.url,
    logs,
    services: app.services,
    stores,
    now,
    async close() {
      await app.close();
      await stores.connection.close().catch(() => undefined);
    },
  };
}
