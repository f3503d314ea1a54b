// Process entry: validate the environment, build the store and logger, and run the App under Probot (or, with a Gitea instance and no GitHub App credentials, on the Gitea instance alone).
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import { resolve as resolvePath } from "node:path";
import { parseEnv as parseEnvText } from "node:util";
import type { Logger } from "pino";
import { createProbot } from "probot";
import {
  type ClaimHoldOptions,
  type ClaimHoldServices,
  createClaimHoldApp,
  createGiteaOnlyApp,
} from "./app.js";
import { type Env, EnvError, parseEnv } from "./config/env.js";
import { giteaConfigsOf } from "./config/gitea-config.js";
import { createLogger, logFormatOf } from "./logger.js";
import { createRedisClient, createStores } from "./providers/create-store.js";
import { createClaimHoldOctokit } from "./providers/github/claim-hold-octokit.js";
import { createSharedThrottle, withSharedThrottle } from "./providers/github/shared-throttle.js";
import { startSetupServer } from "./setup/start-setup-server.js";
import { startWebhookForwarding } from "./setup/start-webhook-forwarding.js";
import { httpServerLimits, startAppServer, startPlainAppServer } from "./start-app-server.js";

/** Connections still open this long after SIGTERM are cut, so the process always ends. */
const shutdownGraceMs = 10_000;

/** Stops accepting connections, closes idle ones, and resolves once the rest end (cut after the grace). */
function closeServer(server: Server): Promise<void> {
  const cut = setTimeout(() => server.closeAllConnections(), shutdownGraceMs).unref();
  return new Promise<void>((resolve) => server.close(() => resolve())).finally(() => clearTimeout(cut));
}

/** The lease tokens' secret: required with Redis; without, a random one for this process alone. */
function tokenSecretOf(env: Env, log: Logger): string {
  if (env.CLAIM_HOLD_TOKEN_SECRET) return env.CLAIM_HOLD_TOKEN_SECRET;
  if (env.REDIS_URL) {
    // Replicas sharing Redis must agree on the digests, and tokens must survive a restart.
    throw new EnvError(
      "invalid environment variable CLAIM_HOLD_TOKEN_SECRET: required when REDIS_URL is set",
    );
  }
  log.warn("CLAIM_HOLD_TOKEN_SECRET is not set: using a random one, so lease tokens die with this process");
  return randomBytes(32).toString("hex");
}

/**
 * The App's options that come straight from the environment. `githubCredentials`: a GitHub App's id
 * and key are set, so the App serves GitHub (and the Gitea instance too, if one is configured).
 */
function appOptionsOf(env: Env): Omit<
  ClaimHoldOptions,
  "stores" | "fences" | "outbox" | "tokenSecret" | "log" | "onReady"
> & {
  credentialsLoaded: boolean;
  githubCredentials: boolean;
} {
  // The numbered instances' variables (`GITEA_URL_2` …) are read from the process environment itself.
  const [firstGitea, ...moreGitea] = giteaConfigsOf(env, process.env);
  const gitea = firstGitea ? ([firstGitea, ...moreGitea] as const) : null;
  const githubCredentials = Boolean(env.APP_ID && (env.PRIVATE_KEY || env.PRIVATE_KEY_PATH));
  return {
    ...(env.CLAIM_HOLD_TOKEN_SECRET_PREVIOUS
      ? { previousTokenSecret: env.CLAIM_HOLD_TOKEN_SECRET_PREVIOUS }
      : {}),
    githubBaseUrl: env.GHE_HOST
      ? `${env.GHE_PROTOCOL ?? "https"}://${env.GHE_HOST}/api/v3`
      : "https://api.github.com",
    githubCredentials,
    // Readiness: the credentials of every forge served are there (a Gitea instance's are checked at parse).
    credentialsLoaded: githubCredentials || gitea !== null,
    // The production client's write limiter serializes an installation's writes: batching them is free.
    coalesceWrites: true,
    ...(env.APP_ID ? { appId: Number(env.APP_ID) } : {}),
    ...(env.CLAIM_HOLD_PUBLIC_URL ? { publicUrl: env.CLAIM_HOLD_PUBLIC_URL } : {}),
    ...(env.JANITOR_INTERVAL_SECONDS ? { janitorIntervalSeconds: env.JANITOR_INTERVAL_SECONDS } : {}),
    ...(env.JANITOR_RECONCILE_EVERY ? { reconcileEvery: env.JANITOR_RECONCILE_EVERY } : {}),
    ...(env.CLAIM_HOLD_DISABLE_JOBS
      ? { disabledJobs: env.CLAIM_HOLD_DISABLE_JOBS.split(",").map((j) => j.trim()) }
      : {}),
    ...(env.CLAIM_HOLD_ADMIN_TOKEN ? { adminToken: env.CLAIM_HOLD_ADMIN_TOKEN } : {}),
    ...(env.METRICS_TOKEN ? { metricsToken: env.METRICS_TOKEN } : {}),
    ...(env.CLAIM_HOLD_TRUST_PROXY !== undefined ? { trustProxyHops: env.CLAIM_HOLD_TRUST_PROXY } : {}),
    ...(env.CLAIM_HOLD_NOTIFY ? { notifySinks: env.CLAIM_HOLD_NOTIFY } : {}),
    ...(env.CLAIM_HOLD_READS_PER_MINUTE !== undefined
      ? { readsPerMinute: env.CLAIM_HOLD_READS_PER_MINUTE }
      : {}),
    ...(gitea ? { gitea } : {}),
  };
}

/** `.env` in the working directory: where the setup flow writes the App's credentials. */
const envFile = resolvePath(".env");

/** GitHub's web and REST origins: github.com, or the GitHub Enterprise Server (or simulator) host. */
function githubUrlsOf(env: Env): { web: string; api: string } {
  if (!env.GHE_HOST) return { web: "https://github.com", api: "https://api.github.com" };
  const web = `${env.GHE_PROTOCOL ?? "https"}://${env.GHE_HOST}`;
  return { web, api: `${web}/api/v3` };
}

/** Setup mode: claim-hold's own page registers the App from app.yml; no store, no App, nothing else served. */
async function runSetupMode(env: Env, log: Logger): Promise<void> {
  const github = githubUrlsOf(env);
  const server = await startSetupServer({
    host: env.HOST ?? "localhost",
    port: env.PORT || 3000,
    ...(env.CLAIM_HOLD_PUBLIC_URL ? { publicUrl: env.CLAIM_HOLD_PUBLIC_URL } : {}),
    ...(env.WEBHOOK_PROXY_URL ? { webhookProxyUrl: env.WEBHOOK_PROXY_URL } : {}),
    ...(env.GH_ORG ? { org: env.GH_ORG } : {}),
    githubWebUrl: github.web,
    githubApiUrl: github.api,
    envFile,
    limits: httpServerLimits(env.CLAIM_HOLD_REQUEST_TIMEOUT_MS, env.CLAIM_HOLD_MAX_CONNECTIONS),
    log,
  });
  const stop = () => void closeServer(server).finally(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

type ServerOptions = Omit<Parameters<typeof startAppServer>[0], "probot" | "appFn">;

/** The App under Probot: GitHub (and the Gitea instance, if configured). */
async function startGitHubApp(
  env: Env,
  appOptions: ClaimHoldOptions,
  server: ServerOptions,
): Promise<{ http: Server; throttle?: ReturnType<typeof createSharedThrottle> }> {
  const { log } = appOptions;
  // Probot would read REDIS_URL too, fetch ioredis with a package runner at start-up, and keep its
  // rate limiters in Redis through Bottleneck, which never recovers from a flush on Redis 7. So Probot
  // never sees REDIS_URL; with Redis, the App spaces GitHub writes through its own connection (cluster
  // URLs included), so replicas share GitHub's write rules (docs/deploy.md#5-scale-out).
  const { REDIS_URL: _claimStoreOnly, ...probotEnv } = process.env;
  const throttle = env.REDIS_URL
    ? createSharedThrottle(createRedisClient(env.REDIS_URL, { offlineQueue: true }), log)
    : undefined;
  const Octokit = throttle
    ? withSharedThrottle(createClaimHoldOctokit(), throttle)
    : createClaimHoldOctokit();
  const appFn = createClaimHoldApp(appOptions);
  // Not `run()`: its Node server keeps the 300 s request and 60 s header timeouts, out of reach.
  const http = await startAppServer({
    probot: createProbot({ env: probotEnv, defaults: { log, Octokit } }),
    appFn,
    ...server,
  });
  return { http, ...(throttle ? { throttle } : {}) };
}

/**
 * The App on the Gitea instance alone (no GitHub App credentials): no Probot, no GitHub client, so
 * nothing asks GitHub; GitHub's webhook route and setup page are not served.
 */
async function startGiteaOnly(
  env: Env,
  appOptions: ClaimHoldOptions,
  server: ServerOptions,
): Promise<{ http: Server; throttle?: undefined }> {
  const { gitea, log } = appOptions;
  if (!gitea) throw new Error("no Gitea instance configured");
  const instances = "url" in gitea ? 1 : gitea.length;
  log.info(
    { forge: "gitea", instances },
    instances > 1
      ? "no GitHub App credentials (APP_ID, PRIVATE_KEY): serving the Gitea instances alone"
      : "no GitHub App credentials (APP_ID, PRIVATE_KEY): serving the Gitea instance alone",
  );
  // Half a GitHub App is more likely a mistake than a choice: said once, by name, never by value.
  if (env.APP_ID || env.PRIVATE_KEY || env.PRIVATE_KEY_PATH) {
    log.warn("APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) are not both set: GitHub is not served");
  }
  if (env.WEBHOOK_PROXY_URL)
    log.warn("WEBHOOK_PROXY_URL relays GitHub's deliveries: not used without GitHub");
  return {
    http: await startPlainAppServer({ handlers: createGiteaOnlyApp({ ...appOptions, gitea }), ...server }),
  };
}

async function main(): Promise<void> {
  // Values already in the environment win over the file's (Node's rule for env files); an empty one
  // (compose's `APP_ID: ${APP_ID}` with nothing set) does not hide the file's.
  if (existsSync(envFile)) {
    for (const [key, value] of Object.entries(parseEnvText(readFileSync(envFile, "utf8"))))
      if (!process.env[key]) process.env[key] = value;
  }
  const env = parseEnv(process.env);
  const log = createLogger({
    level: env.LOG_LEVEL ?? "info",
    format: logFormatOf(env.LOG_FORMAT, process.stdout.isTTY === true),
  });
  const { githubCredentials, ...options } = appOptionsOf(env);
  // Setup mode registers a GitHub App: only when there is neither one nor a Gitea instance to serve.
  if (!githubCredentials && !options.gitea) return runSetupMode(env, log);
  const { stores, fences, outbox, limits, leaseEvents } = createStores({
    redisUrl: env.REDIS_URL,
    keyPrefix: env.CLAIM_HOLD_KEY_PREFIX,
    log,
  });
  const tokenSecret = tokenSecretOf(env, log);
  let services: ClaimHoldServices | undefined;
  const appOptions: ClaimHoldOptions = {
    ...options,
    stores,
    fences,
    outbox,
    limits,
    leaseEvents,
    tokenSecret,
    log,
    onReady: (wired) => {
      services = wired;
    },
  };
  const server = {
    host: env.HOST ?? "localhost",
    port: env.PORT || 3000,
    limits: httpServerLimits(env.CLAIM_HOLD_REQUEST_TIMEOUT_MS, env.CLAIM_HOLD_MAX_CONNECTIONS),
    log,
  };
  const started = githubCredentials
    ? await startGitHubApp(env, appOptions, server)
    : await startGiteaOnly(env, appOptions, server);
  const { http, throttle } = started;
  const address = http.address();
  // The forwarding channel relays GitHub's deliveries: a Gitea-only App has none to relay.
  const forwarding =
    githubCredentials && env.WEBHOOK_PROXY_URL && typeof address === "object" && address
      ? startWebhookForwarding({
          source: env.WEBHOOK_PROXY_URL,
          host: address.address,
          port: address.port,
          log,
        })
      : undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await forwarding?.stop().catch(() => undefined);
    // An open live lease stream would hold the server's close until its grace ran out.
    services?.closeStreams();
    await closeServer(http).catch(() => undefined);
    // The merge fence's re-checks a claim's answer set off run after it: drained before the store closes.
    await services?.settled().catch(() => undefined);
    await services?.stop().catch(() => undefined);
    await leaseEvents.close().catch(() => undefined);
    await stores.connection.close().catch(() => undefined);
    await throttle?.close();
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  if (error instanceof EnvError) {
    console.error(`claim-hold: ${error.message}`);
  } else {
    console.error(`claim-hold: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
