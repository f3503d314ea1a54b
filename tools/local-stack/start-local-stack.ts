// App + GitHub simulator + a Redis in one process, wired to each other: what the tests, benchmarks, demo and transcripts start.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import type { Logger } from "pino";
import { createLogger } from "../../src/logger.js";
import type { FenceStore } from "../../src/providers/fence-store.js";
import { createClaimHoldOctokit } from "../../src/providers/github/claim-hold-octokit.js";
import { createSharedThrottle, withSharedThrottle } from "../../src/providers/github/shared-throttle.js";
import { createRedisRateLimits } from "../../src/providers/redis/redis-rate-limits.js";
import type { Stores } from "../../src/providers/stores.js";
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
  stores: Stores;
  fences: FenceStore;
  /** The Redis behind the stores, for an App that opens its own connection (absent: the memory store). */
  redis?: StackRedis;
}

export type StartApp<A extends RunningApp> = (wiring: StackWiring) => Promise<A>;

export interface LocalStackOptions<A extends RunningApp = DefaultStackApp> {
  /** Default: the embedded memory store. */
  redis?: StackRedisChoice;
  /** Wraps the store bundle before the App gets it (the benchmarks time Redis this way). */
  wrapStores?: (stores: Stores) => Stores;
  /** Default: a fresh RSA key, webhook secret and App id 4242. */
  credentials?: AppCredentials;
  /** The simulator's own options (its clock). */
  simulator?: Pick<GitHubSimulatorOptions, "now">;
  /** How the App is started (tests layer their harness here); default `defaultApp()`. */
  startApp?: StartApp<A>;
  /**
   * How many Apps to start on the one simulator and stores (default 1; replicas beside the first).
   * 0: the simulator and Redis only, for a caller that starts its Apps later with `addApp`.
   */
  apps?: number;
}

/** The App `defaultApp()` starts: its admin token and logger beside the server. */
export type DefaultStackApp = StackApp & { adminToken: string; log: Logger };

export interface LocalStack<A extends RunningApp = DefaultStackApp> {
  sim: GitHubSimulator;
  /** The App now receiving the simulator's webhooks, `apps[0]` (`restartApp` replaces it). */
  readonly app: A;
  /** Every App running on this stack, the one receiving webhooks first. */
  readonly apps: readonly A[];
  /** What another App on this stack is started with. */
  wiring: StackWiring;
  stores: Stores;
  fences: FenceStore;
  /** Absent with the memory store. */
  redis?: StackRedis;
  /** Stops `app` and starts another in its place on the same simulator and stores; webhooks go to the new one. */
  restartApp(start?: StartApp<A>): Promise<A>;
  /** Starts one more App (a replica); it receives the webhooks only if it is the stack's first. */
  addApp(start?: StartApp<A>): Promise<A>;
  /** Stops every App, the simulator and the Redis (a private server is killed, a shared prefix's keys deleted). */
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
  /**
   * The GitHub client and write coalescing of `src/main.ts` instead of stock Probot's: bounded
   * rate-limit retries, GraphQL reads outside the write limiter, writes one at a time about a second
   * apart per installation (the limiter kept in the stack's Redis when it has one, as with REDIS_URL).
   * Default off: most tests count exact requests sent at once.
   */
  productionThrottle?: boolean;
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
    // Its own connection: closing the throttle ends the client it was given.
    const throttle =
      options.productionThrottle && wiring.redis
        ? createSharedThrottle(wiring.redis.client.duplicate({ enableOfflineQueue: true }), log)
        : undefined;
    const Octokit = options.productionThrottle
      ? throttle
        ? withSharedThrottle(createClaimHoldOctokit(), throttle)
        : createClaimHoldOctokit()
      : options.throttle === false
        ? UnthrottledOctokit
        : undefined;
    const app = await startStackApp({
      ...wiring,
      log,
      ...(Octokit ? { Octokit } : {}),
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
        ...(options.productionThrottle ? { coalesceWrites: true } : {}),
        // The read and failed-auth limits in the stack's Redis, as with REDIS_URL.
        ...(wiring.redis
          ? {
              limits: createRedisRateLimits({
                redis: wiring.redis.client,
                keyPrefix: wiring.redis.keyPrefix,
              }),
            }
          : {}),
      },
    });
    return {
      ...app,
      adminToken,
      log,
      async close() {
        await app.close();
        await throttle?.close();
      },
    };
  };
}

/**
 * Starts a simulator that knows the App's credentials, the stores, and `options.apps` Apps against the
 * simulator (webhooks signed by the simulator, delivered to the first App's `/api/github/webhooks`).
 */
export async function startLocalStack<A extends RunningApp = DefaultStackApp>(
  options: LocalStackOptions<A> = {},
): Promise<LocalStack<A>> {
  const startApp = options.startApp ?? (defaultApp() as unknown as StartApp<A>);
  const credentials = options.credentials ?? generateCredentials();
  const opened = await openStackStores(options.redis ?? { kind: "memory" });
  const stores = options.wrapStores ? options.wrapStores(opened.stores) : opened.stores;
  const sim = await startGitHubSimulator({
    appKey: credentials.privateKey,
    webhookSecret: credentials.webhookSecret,
    appId: credentials.appId,
    ...options.simulator,
  });
  const wiring: StackWiring = {
    githubBaseUrl: sim.baseUrl,
    credentials,
    stores,
    fences: opened.fences,
    ...(opened.redis ? { redis: opened.redis } : {}),
  };
  const apps: A[] = [];
  // A flush of the simulator also waits for what the Apps run after their answers.
  sim.addSettler(async () => {
    for (const app of apps) await app.settled?.();
  });
  const receiveWebhooks = () => {
    if (apps[0]) sim.configureWebhooks({ url: `${apps[0].url}/api/github/webhooks` });
  };
  const addApp = async (starter = startApp) => {
    apps.push(await starter(wiring));
    if (apps.length === 1) receiveWebhooks();
    return apps[apps.length - 1]!;
  };
  const stop = async () => {
    for (const app of apps.splice(0)) await app.close();
    await sim.close();
    await opened.close();
  };
  try {
    for (let i = 0; i < (options.apps ?? 1); i++) await addApp();
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return {
    sim,
    get app() {
      if (!apps[0]) throw new Error("the local stack runs no App");
      return apps[0];
    },
    apps,
    wiring,
    stores,
    fences: opened.fences,
    ...(opened.redis ? { redis: opened.redis } : {}),
    async restartApp(starter = startApp) {
      await apps[0]?.close();
      apps[0] = await starter(wiring);
      receiveWebhooks();
      return apps[0];
    },
    addApp,
    stop,
  };
}
