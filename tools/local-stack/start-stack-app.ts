// The real App as Probot's HTTP server on a free loopback port, pointed at a GitHub base URL (the simulator or a nock'd api.github.com).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { Probot, ProbotOctokit, Server } from "probot";
import { type ClaimHoldOptions, type ClaimHoldServices, createClaimHoldApp } from "../../src/app.js";
import type { FenceStore } from "../../src/providers/fence-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { freePort } from "./free-port.js";

/** What the App authenticates with; the simulator is started with the same key and secret. */
export interface AppCredentials {
  appId: number;
  privateKey: string;
  webhookSecret: string;
}

export interface StackAppOptions {
  githubBaseUrl: string;
  credentials: AppCredentials;
  stores: Stores;
  fences?: FenceStore;
  log: Logger;
  /** The Octokit class Probot builds clients from (default: Probot's, retries and throttling as shipped). */
  Octokit?: typeof ProbotOctokit;
  /** The rest of the App's options (token secret, clock, jobs, limits). */
  app: Omit<ClaimHoldOptions, "stores" | "fences" | "githubBaseUrl" | "log" | "onReady">;
  /** True: the App's public URL is the address it bound (the check run's details link points at it). */
  advertiseOwnUrl?: boolean;
  /** Extra HTTP handlers mounted beside the App's (Probot's `addHandler`). */
  handlers?: ((req: IncomingMessage, res: ServerResponse) => boolean)[];
}

/** A running App: what every caller of the local stack gets back, or builds on. */
export interface RunningApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
  /** Resolves when the work the App runs after its answers (the fence's re-checks) has finished. */
  settled?(): Promise<void>;
}

export interface StackApp extends RunningApp {
  server: Server;
  services: ClaimHoldServices;
  settled(): Promise<void>;
}

/** Without retries and throttling every App call is exactly one GitHub request, sent at once. */
export const UnthrottledOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...(options.throttle as object), enabled: false },
}));

/** Starts the App; `close()` stops its jobs and its server (the stores are the caller's). */
export async function startStackApp(options: StackAppOptions): Promise<StackApp> {
  const { credentials, log } = options;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let services: ClaimHoldServices | undefined;
  const server = new Server({
    host: "127.0.0.1",
    port,
    log,
    Probot: Probot.defaults({
      appId: credentials.appId,
      privateKey: credentials.privateKey,
      secret: credentials.webhookSecret,
      log,
      baseUrl: options.githubBaseUrl,
      Octokit: options.Octokit ?? ProbotOctokit,
    }),
  });
  const claimHold = createClaimHoldApp({
    ...(options.advertiseOwnUrl ? { publicUrl: url } : {}),
    ...options.app,
    stores: options.stores,
    ...(options.fences ? { fences: options.fences } : {}),
    githubBaseUrl: options.githubBaseUrl,
    log,
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
  return {
    url,
    server,
    services: wired,
    settled: () => wired.settled(),
    async close() {
      await wired.stop();
      await server.stop();
    },
  };
}
