// Starts the real App in-process (Probot's Server on a free loopback port) for HTTP-level tests.
import { createHmac, generateKeyPairSync } from "node:crypto";
import { Writable } from "node:stream";
import type { ClaimHoldOptions } from "../../src/app.js";
import type { ClaimRecord } from "../../src/domain/claim.js";
import { type MarkerState, renderClaimComment, sealClaimComment } from "../../src/domain/claim-marker.js";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import { createLogger } from "../../src/logger.js";
import type { FenceStore } from "../../src/providers/fence-store.js";
import type { RateLimitStore } from "../../src/providers/rate-limits.js";
import type { Stores } from "../../src/providers/stores.js";
import {
  type AppCredentials,
  type StackApp,
  startStackApp,
  UnthrottledOctokit,
} from "../../tools/local-stack/start-stack-app.js";

export { freePort } from "../../tools/local-stack/free-port.js";

export const testWebhookSecret = "test-webhook-secret";
export const testTokenSecret = "t".repeat(48);
export const testAdminToken = "admin-token-for-tests-0123456789";
/** Signs and checks markers like an App started with `testTokenSecret`. */
export const testSeal = createMarkerSeal(testTokenSecret);

/** A claim comment exactly as the test App writes it: rendered, its marker signed. */
export function signedClaimComment(record: ClaimRecord, state: MarkerState, nextGeneration?: number): string {
  return sealClaimComment(renderClaimComment(record, state, nextGeneration), testSeal);
}

let cachedKey: string | undefined;
/** The App's private key (PEM), generated once per test process; the GitHub simulator can verify JWTs with it. */
export function testAppPrivateKey(): string {
  return privateKey();
}

function privateKey(): string {
  cachedKey ??= generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
    type: "pkcs1",
    format: "pem",
  }) as string;
  return cachedKey;
}

/** The test App's credentials: App id 1, the per-process key, the test webhook secret. */
export function testCredentials(appId = 1): AppCredentials {
  return { appId, privateKey: privateKey(), webhookSecret: testWebhookSecret };
}

/** The App of `startApp`: its log lines, a clock the test moves, and signed webhook delivery. */
export interface AppHarness extends StackApp {
  logs: string[];
  clock: { now: number };
  /** Delays the janitor asked for between writes (it never really sleeps in tests). */
  sleeps: number[];
  /** POSTs a webhook signed like GitHub does. */
  deliver(event: string, payload: unknown, deliveryId?: string): Promise<Response>;
}

export async function startApp(options: {
  stores: Stores;
  fences?: FenceStore;
  now?: number;
  githubBaseUrl?: string;
  adminToken?: string;
  appId?: number;
  publicUrl?: string;
  metricsToken?: string;
  /** `CLAIM_HOLD_TRUST_PROXY`: how many `X-Forwarded-For` hops name the client (absent: the socket's address). */
  trustProxyHops?: number;
  /** `CLAIM_HOLD_READS_PER_MINUTE`: inventory and subject reads per login per minute (absent: the App's 30). */
  readsPerMinute?: number;
  /** Where the read and failed-auth limits count (absent: in the App's memory). */
  limits?: RateLimitStore;
  /** False: the App starts as if its GitHub credentials were missing (readiness). */
  credentialsLoaded?: boolean;
  /** How long a write waits for another write on the same subject (default: the App's). */
  writeFenceWaitMs?: number;
  coalesceWrites?: boolean;
  /** `CLAIM_HOLD_TOKEN_SECRET` and `…_PREVIOUS` (default: `testTokenSecret`, none). */
  tokenSecret?: string;
  previousTokenSecret?: string;
  /** Notification sinks, outbox and sender timing (default: no sink). */
  notify?: Pick<ClaimHoldOptions, "notifySinks" | "outbox" | "notifySender">;
  /** The live lease events' bus (default: the App's own, in process). */
  leaseEvents?: ClaimHoldOptions["leaseEvents"];
  /** A Gitea instance to serve (default: none, no `/api/gitea/webhooks`). */
  gitea?: ClaimHoldOptions["gitea"];
}): Promise<AppHarness> {
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const log = createLogger({ level: "debug", destination });
  const clock = { now: options.now ?? Date.parse("2026-11-29T10:00:00Z") };
  const githubBaseUrl = options.githubBaseUrl ?? "https://api.github.com";
  const sleeps: number[] = [];
  const app = await startStackApp({
    githubBaseUrl,
    credentials: testCredentials(),
    stores: options.stores,
    ...(options.fences ? { fences: options.fences } : {}),
    log,
    // Each call is one request: no retries, no 1 s write spacing.
    Octokit: UnthrottledOctokit,
    app: {
      ...(options.appId ? { appId: options.appId } : {}),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      tokenSecret: options.tokenSecret ?? testTokenSecret,
      ...(options.previousTokenSecret ? { previousTokenSecret: options.previousTokenSecret } : {}),
      now: () => clock.now,
      credentialsLoaded: options.credentialsLoaded ?? true,
      ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
      ...(options.trustProxyHops !== undefined ? { trustProxyHops: options.trustProxyHops } : {}),
      ...(options.readsPerMinute !== undefined ? { readsPerMinute: options.readsPerMinute } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.writeFenceWaitMs !== undefined ? { writeFenceWaitMs: options.writeFenceWaitMs } : {}),
      ...(options.coalesceWrites !== undefined ? { coalesceWrites: options.coalesceWrites } : {}),
      ...options.notify,
      ...(options.leaseEvents ? { leaseEvents: options.leaseEvents } : {}),
      ...(options.gitea ? { gitea: options.gitea } : {}),
      disabledJobs: ["janitor"],
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    },
  });
  const { url } = app;
  let deliveries = 0;
  return {
    ...app,
    logs,
    clock,
    sleeps,
    async deliver(
      event,
      payload,
      deliveryId = `delivery-${++deliveries}-${Math.random().toString(16).slice(2)}`,
    ) {
      const body = JSON.stringify(payload);
      const signature = `sha256=${createHmac("sha256", testWebhookSecret).update(body).digest("hex")}`;
      return fetch(`${url}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": deliveryId,
          "x-hub-signature-256": signature,
        },
        body,
      });
    },
  };
}
