// Starts the real App in-process (Probot's Server on a free loopback port) for HTTP-level tests.
import { createHmac, generateKeyPairSync } from "node:crypto";
import { createServer } from "node:net";
import { Writable } from "node:stream";
import { Probot, ProbotOctokit, Server } from "probot";
import { type ClaimHoldServices, createClaimHoldApp } from "../../src/app.js";
import type { ClaimRecord } from "../../src/domain/claim.js";
import { type MarkerState, renderClaimComment, sealClaimComment } from "../../src/lease/claim-comment.js";
import { createMarkerSeal } from "../../src/lease/marker-seal.js";
import { createLogger } from "../../src/logger.js";
import type { FenceStore } from "../../src/providers/fence-store.js";
import type { LivenessStore } from "../../src/providers/liveness-store.js";

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

/** Probot's Server treats port 0 as "use 3000", so tests ask the kernel for a free port first. */
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

/** Retries and throttling off (each call is one request, no 1 s write spacing), whatever Probot merges in. */
export const TestOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...(options.throttle as object), enabled: false },
}));

export interface AppHarness {
  url: string;
  logs: string[];
  clock: { now: number };
  server: Server;
  services: ClaimHoldServices;
  /** Delays the janitor asked for between writes (it never really sleeps in tests). */
  sleeps: number[];
  /** POSTs a webhook signed like GitHub does. */
  deliver(event: string, payload: unknown, deliveryId?: string): Promise<Response>;
  close(): Promise<void>;
}

export async function startApp(options: {
  store: LivenessStore;
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
  /** False: the App starts as if its GitHub credentials were missing (readiness). */
  credentialsLoaded?: boolean;
  /** How long a write waits for another write on the same subject (default: the App's). */
  writeFenceWaitMs?: number;
  /** `CLAIM_HOLD_TOKEN_SECRET` and `…_PREVIOUS` (default: `testTokenSecret`, none). */
  tokenSecret?: string;
  previousTokenSecret?: string;
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
  let services: ClaimHoldServices | undefined;
  const server = new Server({
    host: "127.0.0.1",
    port: await freePort(),
    log,
    Probot: Probot.defaults({
      appId: 1,
      privateKey: privateKey(),
      secret: testWebhookSecret,
      log,
      baseUrl: githubBaseUrl,
      Octokit: TestOctokit,
    }),
  });
  await server.load(
    createClaimHoldApp({
      store: options.store,
      ...(options.fences ? { fences: options.fences } : {}),
      ...(options.appId ? { appId: options.appId } : {}),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      tokenSecret: options.tokenSecret ?? testTokenSecret,
      ...(options.previousTokenSecret ? { previousTokenSecret: options.previousTokenSecret } : {}),
      githubBaseUrl,
      log,
      now: () => clock.now,
      credentialsLoaded: options.credentialsLoaded ?? true,
      ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
      ...(options.trustProxyHops !== undefined ? { trustProxyHops: options.trustProxyHops } : {}),
      ...(options.readsPerMinute !== undefined ? { readsPerMinute: options.readsPerMinute } : {}),
      ...(options.writeFenceWaitMs !== undefined ? { writeFenceWaitMs: options.writeFenceWaitMs } : {}),
      disabledJobs: ["janitor"],
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      onReady: (wired) => {
        services = wired;
      },
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    }),
  );
  const http = await server.start();
  const address = http.address();
  if (!address || typeof address === "string") throw new Error("server did not bind a port");
  const url = `http://127.0.0.1:${address.port}`;
  let deliveries = 0;
  if (!services) throw new Error("the App did not report its services");
  const wiredServices = services;
  return {
    url,
    logs,
    clock,
    server,
    services: wiredServices,
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
    async close() {
      await wiredServices.jobs.stop();
      await server.stop();
    },
  };
}
