// App + GitHub simulator + a Redis in one process, wired to each other: what the tests, benchmarks, demo and transcripts start.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import type { Logger } from "pino";
import { createLogger } from "../../src/logger.js";
import type { FenceStore } from "../../src/providers/fence-store.js";
import type { LivenessStore } from "../../src/providers/liveness-store.js";
import {
  type GitHubSimulator,
  type GitHubSimulatorOptions,
  startGitHubSimulator,
} from "../github-sim/index.js";
import { openStackStores, type StackRedis, type StackRedisChoice } from "./stack-stores.js";
import {
  type AppCredentials,
  type RunningApp,
  type StackApp,
  type StackAppOptions,
  startStackApp,
  UnthrottledOctokit,
} from "./start-stack-app.js";

/** What an App of the stack is started with: the simulator's URL, the credentials it knows, the stores. */
export interface StackWiring {
  githubBaseUrl: string;
  credentials: AppCredentials;
  store: LivenessStore;
  fences: FenceStore;
}

export type StartApp<A extends RunningApp> = (wiring: StackWiring) => Promise<A>;

export interface LocalStackOptions<A extends RunningApp = DefaultStackApp> {
  /** Default: the embedded memory store. */
  redis?: StackRedisChoice;
  /** Wraps the claim store before the App gets it (the benchmarks time Redis this way). */
  wrapStore?: (store: LivenessStore) => LivenessStore;
  /** Default: a fresh RSA key, webhook secret and App id 4242. */
  credentials?: AppCredentials;
  /** The simulator's own options (its clock). */
  simulator?: Pick<GitHubSimulatorOptions, "now">;
  /** How the App is started (tests layer their harness here); default `defaultApp()`. */
  startApp?: StartApp<A>;
}

/** The App `defaultApp()` starts: its admin token and logger beside the server. */
export type DefaultStackApp = StackApp & { adminToken: string; log: Logger };

export interface LocalStack<A extends RunningApp = DefaultStackApp> {
  sim: GitHubSimulator;
  /** The App now receiving the simulator's webhooks (`restartApp` replaces it). */
  readonly app: A;
  /** What another App on this stack is started with (a replica beside `app`). */
  wiring: StackWiring;
  store: LivenessStore;
  fences: FenceStore;
  /** Absent with the memory store. */
  redis?: StackRedis;
  /** Stops the App and starts another on the same simulator and stores; webhooks go to the new one. */
  restartApp(start?: StartApp<A>): Promise<A>;
  /** Stops the App, the simulator and the Redis (a private server is killed, a shared prefix's keys deleted). */
  stop(): Promise<void>;
}

export interface DefaultAppOptions {
  adminToken?: string;
  janitorIntervalSeconds?: number;
  reconcileEvery?: number;
  /** Scheduled jobs left off (the benchmarks run the janitor by hand). */
  disabledJobs?: string[];
  /** Probot's retries and write throttling; off makes every App call exactly one simulator request. */
  throttle?: boolean;
  /** The janitor's pause between writes (default: a real sleep). */
  sleep?: (ms: number) => Promise<void>;
  /** The App's clock (default: its steady clock). */
  now?: () => number;
  logLevel?: string;
  handlers?: StackAppOptions["handlers"];
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

export function generateCredentials(appId = 4242): AppCredentials {
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
    type: "pkcs1",
    format: "pem",
  }) as string;
  return { appId, privateKey, webhookSecret: randomBytes(16).toString("hex") };
}

/** The App as the demo and benchmarks run it: a random admin token and token secret, logs to stderr. */
export function defaultApp(options: DefaultAppOptions = {}): StartApp<DefaultStackApp> {
  return async (wiring) => {
    const adminToken = options.adminToken ?? randomBytes(16).toString("hex");
    const log = stackLogger(options.logLevel ?? "warn");
    const app = await startStackApp({
      ...wiring,
      log,
      ...(options.throttle === false ? { Octokit: UnthrottledOctokit } : {}),
      advertiseOwnUrl: true,
      ...(options.handlers ? { handlers: options.handlers } : {}),
      app: {
        appId: wiring.credentials.appId,
        tokenSecret: randomBytes(32).toString("hex"),
        adminToken,
        credentialsLoaded: true,
        janitorIntervalSeconds: options.janitorIntervalSeconds ?? 300,
        reconcileEvery: options.reconcileEvery ?? 12,
        disabledJobs: options.disabledJobs ?? [],
        ...(options.sleep ? { sleep: options.sleep } : {}),
        ...(options.now ? { now: options.now } : {}),
      },
    });
    return { ...app, adminToken, log };
  };
}

/**
 * Starts a simulator that knows the App's credentials, the stores, and the App against the simulator
 * (webhooks signed by the simulator, delivered to the App's `/api/github/webhooks`).
 */
export async function startLocalStack<A extends RunningApp = DefaultStackApp>(
  options: LocalStackOptions<A> = {},
): Promise<LocalStack<A>> {
  const startApp = options.startApp ?? (defaultApp() as unknown as StartApp<A>);
  const credentials = options.credentials ?? generateCredentials();
  const stores = await openStackStores(options.redis ?? { kind: "memory" });
  const store = options.wrapStore ? options.wrapStore(stores.store) : stores.store;
  const sim = await startGitHubSimulator({
    appKey: credentials.privateKey,
    webhookSecret: credentials.webhookSecret,
    appId: credentials.appId,
    ...options.simulator,
  });
  const wiring: StackWiring = { githubBaseUrl: sim.baseUrl, credentials, store, fences: stores.fences };
  const start = async (starter: StartApp<A>) => {
    const started = await starter(wiring);
    sim.configureWebhooks({ url: `${started.url}/api/github/webhooks` });
    return started;
  };
  let app = await start(startApp);
  return {
    sim,
    get app() {
      return app;
    },
    wiring,
    store,
    fences: stores.fences,
    ...(stores.redis ? { redis: stores.redis } : {}),
    async restartApp(starter = startApp) {
      await app.close();
      app = await start(starter);
      return app;
    },
    async stop() {
      await app.close();
      await sim.close();
      await stores.close();
    },
  };
}
