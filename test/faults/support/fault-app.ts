// The real App in-process against the GitHub simulator and a dedicated Redis, with a fake wall and monotonic clock.
import { Writable } from "node:stream";
import type { ClaimHoldServices } from "../../../src/app.js";
import { createSteadyClock } from "../../../src/lease/steady-clock.js";
import { createLogger } from "../../../src/logger.js";
import { createRedisClient } from "../../../src/providers/create-store.js";
import { createClaimHoldOctokit } from "../../../src/providers/github/claim-hold-octokit.js";
import type { LivenessStore } from "../../../src/providers/liveness-store.js";
import { RedisLivenessStore } from "../../../src/providers/redis/redis-store.js";
import { startStackApp } from "../../../tools/local-stack/start-stack-app.js";
import { testCredentials, testTokenSecret } from "../../support/app-harness.js";

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
  store: LivenessStore;
  /** The App's own reading of the time (the steady clock over the fake wall clock). */
  now: () => number;
  close(): Promise<void>;
}

export async function startFaultApp(options: {
  githubBaseUrl: string;
  redisUrl: string;
  keyPrefix: string;
  time: FakeTime;
  /** GitHub requests are abandoned after this long (real milliseconds). */
  githubTimeoutMs?: number;
  /** The real throttling plugin (rate-limit tests); off elsewhere so writes are not spaced 1 s apart. */
  throttle?: Record<string, unknown>;
}): Promise<FaultApp> {
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const log = createLogger({ level: "debug", destination });
  const redis = createRedisClient(options.redisUrl);
  redis.on("error", () => undefined);
  const store = new RedisLivenessStore({ redis, keyPrefix: options.keyPrefix, ownsClient: true });
  const now = createSteadyClock({ wall: () => options.time.wall, monotonic: () => options.time.monotonic });
  const app = await startStackApp({
    githubBaseUrl: options.githubBaseUrl,
    credentials: testCredentials(),
    store,
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
    },
  });
  return {
    url: app.url,
    logs,
    services: app.services,
    store,
    now,
    async close() {
      await app.close();
      await store.close().catch(() => undefined);
    },
  };
}
