// The real App in-process against the GitHub simulator and a dedicated Redis, with a fake wall and monotonic clock.
import { Writable } from "node:stream";
import { Probot, Server } from "probot";
import { type ClaimHoldServices, createClaimHoldApp } from "../../../src/app.js";
import { createSteadyClock } from "../../../src/lease/steady-clock.js";
import { createLogger } from "../../../src/logger.js";
import { createRedisClient } from "../../../src/providers/create-store.js";
import { createClaimHoldOctokit } from "../../../src/providers/github/claim-hold-octokit.js";
import type { LivenessStore } from "../../../src/providers/liveness-store.js";
import { RedisLivenessStore } from "../../../src/providers/redis/redis-store.js";
import {
  freePort,
  testAppPrivateKey,
  testTokenSecret,
  testWebhookSecret,
} from "../../support/app-harness.js";

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
  let services: ClaimHoldServices | undefined;
  const server = new Server({
    host: "127.0.0.1",
    port: await freePort(),
    log,
    Probot: Probot.defaults({
      appId: 1,
      privateKey: testAppPrivateKey(),
      secret: testWebhookSecret,
      log,
      baseUrl: options.githubBaseUrl,
      Octokit: createClaimHoldOctokit({
        timeoutMs: options.githubTimeoutMs ?? 400,
        retry: { enabled: false },
        throttle: options.throttle ?? { enabled: false },
      }),
    }),
  });
  await server.load(
    createClaimHoldApp({
      store,
      tokenSecret: testTokenSecret,
      githubBaseUrl: options.githubBaseUrl,
      log,
      now,
      adminToken: faultAdminToken,
      credentialsLoaded: true,
      disabledJobs: ["janitor"],
      sleep: async () => undefined,
      onReady: (wired) => {
        services = wired;
      },
    }),
  );
  const http = await server.start();
  const address = http.address();
  if (!address || typeof address === "string" || !services) throw new Error("the App did not start");
  const wired = services;
  return {
    url: `http://127.0.0.1:${address.port}`,
    logs,
    services: wired,
    store,
    now,
    async close() {
      await wired.jobs.stop();
      await server.stop();
      await store.close().catch(() => undefined);
    },
  };
}
