// Process entry: validate the environment, build the store and logger, and run the App under Probot.
import { randomBytes } from "node:crypto";
import { run } from "probot";
import { createClaimHoldApp } from "./app.js";
import { EnvError, parseEnv } from "./config/env.js";
import { createLogger } from "./logger.js";
import { createStores } from "./providers/create-store.js";

async function main(): Promise<void> {
  const env = parseEnv(process.env);
  const log = createLogger({ level: env.LOG_LEVEL ?? "info" });
  const { store, fences } = createStores({
    redisUrl: env.REDIS_URL,
    keyPrefix: env.CLAIM_HOLD_KEY_PREFIX,
    log,
  });
  let tokenSecret = env.CLAIM_HOLD_TOKEN_SECRET;
  if (!tokenSecret) {
    log.warn("CLAIM_HOLD_TOKEN_SECRET is not set: using a random one, so lease tokens die with this process");
    tokenSecret = randomBytes(32).toString("hex");
  }
  const githubBaseUrl = env.GHE_HOST
    ? `${env.GHE_PROTOCOL ?? "https"}://${env.GHE_HOST}/api/v3`
    : "https://api.github.com";
  const credentialsLoaded = Boolean(env.APP_ID && (env.PRIVATE_KEY || env.PRIVATE_KEY_PATH));
  if (!credentialsLoaded) {
    log.info("No GitHub App credentials: starting Probot's setup flow to register the App from app.yml");
  }
  const appFn = createClaimHoldApp({
    store,
    tokenSecret,
    githubBaseUrl,
    log,
    credentialsLoaded,
    fences,
    ...(env.APP_ID ? { appId: Number(env.APP_ID) } : {}),
    ...(env.CLAIM_HOLD_PUBLIC_URL ? { publicUrl: env.CLAIM_HOLD_PUBLIC_URL } : {}),
    ...(env.JANITOR_INTERVAL_SECONDS ? { janitorIntervalSeconds: env.JANITOR_INTERVAL_SECONDS } : {}),
    ...(env.JANITOR_RECONCILE_EVERY ? { reconcileEvery: env.JANITOR_RECONCILE_EVERY } : {}),
    ...(env.CLAIM_HOLD_DISABLE_JOBS
      ? { disabledJobs: env.CLAIM_HOLD_DISABLE_JOBS.split(",").map((j) => j.trim()) }
      : {}),
    ...(env.CLAIM_HOLD_ADMIN_TOKEN ? { adminToken: env.CLAIM_HOLD_ADMIN_TOKEN } : {}),
  });
  const server = await run(appFn, { log });
  const stop = async () => {
    await server.stop().catch(() => undefined);
    await store.close().catch(() => undefined);
    process.exit(0);
  };
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  if (error instanceof EnvError) {
    console.error(`claim-hold: ${error.message}`);
  } else {
    console.error(`claim-hold: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
