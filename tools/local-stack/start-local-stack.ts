// The GitHub simulator and the real App in one process, wired to each other: what the demo and the benchmarks run.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { Writable } from "node:stream";
import type { Logger } from "pino";
import { Probot, ProbotOctokit, Server } from "probot";
import { type ClaimHoldServices, createClaimHoldApp } from "../../src/app.js";
import { createLogger } from "../../src/logger.js";
import { createStores } from "../../src/providers/create-store.js";
import type { FenceStore } from "../../src/providers/fence-store.js";
import type { LivenessStore } from "../../src/providers/liveness-store.js";
import { type GitHubSimulator, startGitHubSimulator } from "../github-sim/index.js";

export interface LocalStackOptions {
  /** Absent: the embedded memory store. */
  redisUrl?: string;
  keyPrefix?: string;
  /** Or bring the stores (the benchmarks wrap them to time Redis). */
  stores?: { store: LivenessStore; fences: FenceStore };
  janitorIntervalSeconds?: number;
  reconcileEvery?: number;
  /** Scheduled jobs left off (the benchmarks run the janitor by hand). */
  disabledJobs?: string[];
  /** Probot's retries and write throttling; off makes every App call exactly one simulator request. */
  throttle?: boolean;
  /** The janitor's pause between writes (default: a real sleep). */
  sleep?: (ms: number) => Promise<void>;
  logLevel?: string;
  /** The App's clock (default Date.now); the benchmarks move it to make claims due. */
  now?: () => number;
  /** Extra HTTP handlers mounted beside the App's (Probot's `addHandler`). */
  handlers?: ((
    req: import("node:http").IncomingMessage,
    res: import("node:http").ServerResponse,
  ) => boolean)[];
}

export interface LocalStack {
  sim: GitHubSimulator;
  /** The App's base URL (`http://127.0.0.1:<port>`). */
  url: string;
  adminToken: string;
  appId: number;
  services: ClaimHoldServices;
  store: LivenessStore;
  log: Logger;
  close(): Promise<void>;
}

/** Probot's Server treats port 0 as "use 3000", so ask the kernel for a free port first. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Quiet by default: warnings and errors of the App go to stderr, the rest nowhere. */
function stackLogger(level: string): Logger {
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      process.stderr.write(chunk);
      callback();
    },
  });
  return createLogger({ level, destination });
}

/**
 * Generates App credentials, registers them in a fresh simulator, and starts the App against it
 * (webhooks signed by the simulator, delivered to the App's `/api/github/webhooks`).
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const appId = 4242;
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
    type: "pkcs1",
    format: "pem",
  }) as string;
  const webhookSecret = randomBytes(16).toString("hex");
  const adminToken = randomBytes(16).toString("hex");
  const log = stackLogger(options.logLevel ?? "warn");
  const sim = await startGitHubSimulator({ appKey: privateKey, webhookSecret, appId });
  const { store, fences } =
    options.stores ??
    createStores({
      ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
      ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
      log,
    });
  const throttle = options.throttle ?? true;
  const Octokit = throttle
    ? ProbotOctokit
    : ProbotOctokit.defaults((octokitOptions: Record<string, unknown>) => ({
        ...octokitOptions,
        retry: { enabled: false },
        throttle: { ...(octokitOptions.throttle as object), enabled: false },
      }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let services: ClaimHoldServices | undefined;
  const server = new Server({
    host: "127.0.0.1",
    port,
    log,
    Probot: Probot.defaults({ appId, privateKey, secret: webhookSecret, log, baseUrl: sim.baseUrl, Octokit }),
  });
  const claimHold = createClaimHoldApp({
    store,
    fences,
    appId,
    publicUrl: url,
    tokenSecret: randomBytes(32).toString("hex"),
    githubBaseUrl: sim.baseUrl,
    log,
    adminToken,
    credentialsLoaded: true,
    janitorIntervalSeconds: options.janitorIntervalSeconds ?? 300,
    reconcileEvery: options.reconcileEvery ?? 12,
    disabledJobs: options.disabledJobs ?? [],
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.now ? { now: options.now } : {}),
    onReady: (wired) => {
      services = wired;
    },
  });
  await server.load((app, helpers) => {
    for (const handler of options.handlers ?? []) helpers.addHandler(handler);
    return claimHold(app, helpers);
  });
  await server.start();
  if (!services) throw new Error("the App did not report its services");
  const wired = services;
  sim.configureWebhooks({ url: `${url}/api/github/webhooks` });
  return {
    sim,
    url,
    adminToken,
    appId,
    services: wired,
    store,
    log,
    async close() {
      await wired.jobs.stop();
      await server.stop();
      await sim.close();
      await store.close().catch(() => undefined);
    },
  };
}
