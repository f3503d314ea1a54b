// The demo's and the playground's start-up: the GitHub simulator, the App on it as `npm start` runs it, and a store.
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import type { GiteaConfig } from "../../src/config/gitea-config.js";
import { NotifySinksText } from "../../src/config/notify-sinks.js";
import { createLogger, type LogFormat } from "../../src/logger.js";
import { connectSharedRedis, type StackRedisChoice } from "../../tools/local-stack/stack-stores.js";
import {
  type DefaultStackApp,
  type LocalStack,
  type StartApp,
  startLocalStack,
} from "../../tools/local-stack/start-local-stack.js";
import { startStackApp, UnthrottledOctokit } from "../../tools/local-stack/start-stack-app.js";

export interface DemoAppOptions {
  /** `CLAIM_HOLD_NOTIFY` as text, read through the environment's own schema. */
  notify?: string;
  logLevel: string;
  logFormat?: LogFormat;
  janitorIntervalSeconds: number;
  /** Every how many janitor sweeps one reconciles with GitHub. */
  reconcileEvery: number;
  /** A Gitea instance the App serves beside GitHub (`npm run demo -- --forge gitea`: the Gitea simulator). */
  gitea?: GiteaConfig;
}

/**
 * The App as `npm start` would run it, its log lines on stderr (stdout is the script's own). Every
 * App call is one simulator request, sent at once, so what the script prints keeps its beat.
 */
function demoApp(options: DemoAppOptions): StartApp<DefaultStackApp> {
  const notifySinks = options.notify ? NotifySinksText.parse(options.notify) : undefined;
  return async (wiring) => {
    const adminToken = randomBytes(16).toString("hex");
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        process.stderr.write(chunk);
        callback();
      },
    });
    const log = createLogger({
      level: options.logLevel,
      destination,
      ...(options.logFormat ? { format: options.logFormat } : {}),
    });
    const app = await startStackApp({
      ...wiring,
      log,
      Octokit: UnthrottledOctokit,
      advertiseOwnUrl: true,
      app: {
        appId: wiring.credentials.appId,
        tokenSecret: randomBytes(32).toString("hex"),
        adminToken,
        credentialsLoaded: true,
        janitorIntervalSeconds: options.janitorIntervalSeconds,
        reconcileEvery: options.reconcileEvery,
        disabledJobs: [],
        ...(options.gitea ? { gitea: options.gitea } : {}),
        ...(notifySinks
          ? {
              notifySinks,
              // The sink is local: poll the outbox often so a notice prints right after its moment.
              notifySender: { pollMs: 200 },
            }
          : {}),
      },
    });
    return { ...app, adminToken, log };
  };
}

export interface DemoStore {
  choice: StackRedisChoice;
  /** What the script prints about it. */
  label: string;
  /** Set when `REDIS_URL` was given but did not answer. */
  warning?: string;
}

/** Redis at `REDIS_URL` when it answers (under a fresh key prefix, deleted on stop), else the embedded store. */
export async function chooseStore(redisUrl: string | undefined): Promise<DemoStore> {
  const memory = { kind: "memory" } as const;
  if (!redisUrl) return { choice: memory, label: "embedded memory store" };
  try {
    const client = await connectSharedRedis(redisUrl);
    client.disconnect();
    return { choice: { kind: "shared", url: redisUrl }, label: "Redis" };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      choice: memory,
      label: "embedded memory store",
      warning: `REDIS_URL did not answer (${reason}): using the embedded memory store`,
    };
  }
}

export async function startDemoStack(store: DemoStore, app: DemoAppOptions): Promise<LocalStack> {
  return startLocalStack({ redis: store.choice, startApp: demoApp(app) });
}

/** The dashboard's address when the App serves one (it needs the admin token), else null. */
export async function dashboardUrl(stack: LocalStack): Promise<string | null> {
  const response = await fetch(`${stack.app.url}/`, { redirect: "manual" }).catch(() => null);
  return response && response.status !== 404 && response.status < 500 ? `${stack.app.url}/` : null;
}
