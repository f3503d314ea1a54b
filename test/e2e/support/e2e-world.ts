// One end-to-end world: the GitHub simulator, the real App as an HTTP server on real Redis stores, and agents.
import type { Redis } from "ioredis";
import { afterEach, beforeEach } from "vitest";
import { type ClaimHoldClient, createClaimHoldClient } from "../../../src/agent/client/index.js";
import type { LivenessStore } from "../../../src/providers/liveness-store.js";
import { RedisFenceStore } from "../../../src/providers/redis/redis-fence-store.js";
import { RedisLivenessStore } from "../../../src/providers/redis/redis-store.js";
import { type GitHubSimulator, startGitHubSimulator } from "../../../tools/github-sim/index.js";
import { type PrivateRedis, startPrivateRedis } from "../../../tools/local-stack/start-private-redis.js";
import {
  type AppHarness,
  startApp,
  testAdminToken,
  testAppPrivateKey,
  testWebhookSecret,
} from "../../support/app-harness.js";
import { createTestRedis, deleteKeysWithPrefix, uniqueKeyPrefix } from "../../support/redis.js";

export const repo = "octo/widgets";
export const installationId = 42;
export const appId = 1;
/** One GitHub account shared by every agent session, as fleets usually run. */
export const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot00000000000000000000000000e2e" };
export const maintainer = { login: "alice", id: 601, token: "ghp_alice0000000000000000000000000000e2e" };
export const writer = { login: "bob", id: 602, token: "ghp_bob00000000000000000000000000000000e2e" };
export const reader = { login: "carol", id: 603, token: "ghp_carol000000000000000000000000000000e2e" };
/** Durations short enough to reason about in seconds: stale after 30 s, reclaimable after 60 s, grace 10 s. */
export const shortConfig = "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\n";

export interface E2eWorld {
  sim: GitHubSimulator;
  app: AppHarness;
  store: LivenessStore;
  fences: RedisFenceStore;
  redis: Redis;
  prefix: string;
  /** An agent session's client: the fleet account's GitHub token; takeover waits move the App's clock. */
  agent(githubToken?: string): ClaimHoldClient;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** A Redis client to use instead of a fresh one on the shared server (the world does not quit it). */
  redis?: Redis;
  /** Issues of octo/widgets (default #1–#5, open, unassigned). */
  issues?: { number: number; title: string; assignees?: string[] }[];
  config?: string;
  /** How long a write waits for another write on the same subject (default: the App's). */
  writeFenceWaitMs?: number;
}

/** Starts another App on the world's simulator and stores (a restart, a replica, a new secret). */
export async function restartApp(
  world: E2eWorld,
  options: { tokenSecret?: string; previousTokenSecret?: string } = {},
): Promise<AppHarness> {
  await world.app.close();
  const app = await startApp({
    store: world.store,
    fences: world.fences,
    githubBaseUrl: world.sim.baseUrl,
    appId,
    now: world.app.clock.now,
    adminToken: testAdminToken,
    ...options,
  });
  world.sim.configureWebhooks({ url: `${app.url}/api/github/webhooks` });
  world.app = app;
  return app;
}

/** Starts the simulator and the App, seeds octo/widgets and delivers `installation.created`. */
export async function startWorld(options: WorldOptions = {}): Promise<E2eWorld> {
  const ownsRedis = !options.redis;
  const redis = options.redis ?? (await createTestRedis());
  const prefix = uniqueKeyPrefix("e2e");
  const store = new RedisLivenessStore({ redis, keyPrefix: prefix });
  const fences = new RedisFenceStore({ redis, keyPrefix: prefix });
  const sim = await startGitHubSimulator({
    appKey: testAppPrivateKey(),
    webhookSecret: testWebhookSecret,
    appId,
  });
  const app = await startApp({
    store,
    fences,
    githubBaseUrl: sim.baseUrl,
    appId,
    now: Date.now(),
    adminToken: testAdminToken,
    ...(options.writeFenceWaitMs !== undefined ? { writeFenceWaitMs: options.writeFenceWaitMs } : {}),
  });
  sim.configureWebhooks({ url: `${app.url}/api/github/webhooks` });
  sim.seed({
    users: [fleet, maintainer, writer, reader].map(({ login, id, token }) => ({
      login,
      id,
      tokens: [token],
    })),
    repos: [
      {
        fullName: repo,
        id: 1296269,
        files: { ".github/claim-hold.yml": options.config ?? shortConfig },
        collaborators: {
          [fleet.login]: "write",
          [maintainer.login]: "maintain",
          [writer.login]: "write",
          [reader.login]: "read",
        },
        issues: (options.issues ?? [1, 2, 3, 4, 5].map((n) => ({ number: n, title: `Task ${n}` }))).map(
          (issue) => ({ ...issue, author: maintainer.login }),
        ),
      },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repo] }],
  });
  await sim.flush();
  // `world.app` may be replaced (restartApp): agents and close() always use the current one.
  const world: E2eWorld = {
    sim,
    app,
    store,
    fences,
    redis,
    prefix,
    agent(githubToken = fleet.token) {
      return createClaimHoldClient({
        baseUrl: world.app.url,
        githubToken,
        retries: 0,
        sleep: async (ms) => {
          world.app.clock.now += ms;
        },
      });
    },
    async close() {
      await world.app.close();
      await sim.close();
      await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
      if (ownsRedis) await redis.quit();
    },
  };
  return world;
}

/** The one `claim-hold` check run on a head, as GitHub shows it: conclusion and title. */
export function checkOf(
  sim: GitHubSimulator,
  sha: string,
): { conclusion: string | null; title: string | null } {
  const runs = sim.checkRuns(repo, sha).filter((run) => run.name === "claim-hold");
  if (runs.length !== 1) throw new Error(`expected one claim-hold check run on ${sha}, found ${runs.length}`);
  return { conclusion: runs[0]!.conclusion, title: runs[0]!.output.title };
}

/** The claim-hold markers on an issue's comments: generation and state, oldest first. */
export function claimMarkers(sim: GitHubSimulator, issue: number): { generation: number; state: string }[] {
  return sim.issue(repo, issue).comments.flatMap((comment) => {
    const match = /<!-- claim-hold:v1 (\{.*\}) -->/.exec(comment.body);
    if (!match) return [];
    const marker = JSON.parse(match[1]!) as { generation: number; state: string };
    return [{ generation: marker.generation, state: marker.state }];
  });
}

/**
 * Each test of the calling `describe` gets a world on a redis-server of its own, so it may flush or
 * restart Redis; read the world through the returned handle.
 */
export function worldsOnPrivateRedis(options: Omit<WorldOptions, "redis"> = {}): {
  readonly world: E2eWorld;
} {
  let world: E2eWorld | undefined;
  let redis: PrivateRedis | undefined;
  beforeEach(async () => {
    redis = await startPrivateRedis();
    world = await startWorld({ ...options, redis: redis.client() });
  });
  afterEach(async () => {
    await world?.close();
    await redis?.stop();
  });
  return {
    get world() {
      if (!world) throw new Error("the world is read outside a test");
      return world;
    },
  };
}
