// One end-to-end world: the GitHub simulator, the real App as an HTTP server on real Redis stores, and agents.
import type { Redis } from "ioredis";
import { afterEach, beforeEach } from "vitest";
import { type ClaimHoldClient, createClaimHoldClient } from "../../../src/agent/client/index.js";
import type { FenceStore } from "../../../src/providers/fence-store.js";
import type { Stores } from "../../../src/providers/stores.js";
import type { GitHubSimulator } from "../../../tools/github-sim/index.js";
import {
  type LocalStack,
  type StackWiring,
  startLocalStack,
} from "../../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testAdminToken, testCredentials } from "../../support/app-harness.js";
import { uniqueKeyPrefix } from "../../support/redis.js";

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
  stack: LocalStack<AppHarness>;
  sim: GitHubSimulator;
  /** The App now running (`restartApp` replaces it). */
  readonly app: AppHarness;
  stores: Stores;
  fences: FenceStore;
  redis: Redis;
  prefix: string;
  /** An agent session's client: the fleet account's GitHub token; takeover waits move the App's clock. */
  agent(githubToken?: string): ClaimHoldClient;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** A redis-server of the world's own (it may be flushed or restarted) instead of a fresh prefix on the shared one. */
  privateRedis?: boolean;
  /** Issues of octo/widgets (default #1–#5, open, unassigned). */
  issues?: { number: number; title: string; assignees?: string[]; labels?: string[] }[];
  config?: string;
  /** How long a write waits for another write on the same subject (default: the App's). */
  writeFenceWaitMs?: number;
  /** Concurrent transitions of the installation share a mutation request (as with the production client). */
  coalesceWrites?: boolean;
}

/** The e2e App on the stack's simulator and stores, its clock starting at `now`. */
function e2eApp(
  now: number,
  options: Pick<
    Parameters<typeof startApp>[0],
    "tokenSecret" | "previousTokenSecret" | "writeFenceWaitMs" | "coalesceWrites"
  >,
) {
  return (wiring: StackWiring) =>
    startApp({
      stores: wiring.stores,
      fences: wiring.fences,
      githubBaseUrl: wiring.githubBaseUrl,
      appId,
      now,
      adminToken: testAdminToken,
      ...options,
    });
}

/** Starts another App on the world's simulator and stores (a restart, a replica, a new secret). */
export async function restartApp(
  world: E2eWorld,
  options: { tokenSecret?: string; previousTokenSecret?: string } = {},
): Promise<AppHarness> {
  return world.stack.restartApp(e2eApp(world.app.clock.now, options));
}

/** Starts the simulator and the App, seeds octo/widgets and delivers `installation.created`. */
export async function startWorld(options: WorldOptions = {}): Promise<E2eWorld> {
  const stack = await startLocalStack({
    redis: options.privateRedis
      ? { kind: "private", keyPrefix: uniqueKeyPrefix("e2e") }
      : { kind: "shared", keyPrefix: uniqueKeyPrefix("e2e") },
    credentials: testCredentials(appId),
    startApp: e2eApp(Date.now(), {
      ...(options.writeFenceWaitMs !== undefined ? { writeFenceWaitMs: options.writeFenceWaitMs } : {}),
      ...(options.coalesceWrites !== undefined ? { coalesceWrites: options.coalesceWrites } : {}),
    }),
  });
  const { sim, redis } = stack;
  if (!redis) throw new Error("the e2e stack has no Redis");
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
  // `stack.app` may be replaced (restartApp): agents always use the current one.
  const world: E2eWorld = {
    stack,
    sim,
    get app() {
      return stack.app;
    },
    stores: stack.stores,
    fences: stack.fences,
    redis: redis.client,
    prefix: redis.keyPrefix,
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
    close: () => stack.stop(),
  };
  return world;
}

/** A second repository of the installation, `octo/tracker` with issue #1, the fleet account writing to it. */
export async function addTrackerRepo(world: E2eWorld): Promise<string> {
  const tracker = "octo/tracker";
  world.sim.addRepo({
    fullName: tracker,
    id: 1296270,
    collaborators: { [fleet.login]: "write", [maintainer.login]: "maintain" },
    issues: [{ number: 1, title: "Tracked work" }],
    files: { ".github/claim-hold.yml": shortConfig },
  });
  world.sim.changeInstallationRepos(installationId, { add: [tracker] });
  await world.sim.flush();
  return tracker;
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

/**
 * The next transition write fails (502) and so does the read the App makes to tell whether it
 * landed: the App cannot know, so a /reclaim keeps its human claim `sync: pending` for reconcile.
 */
export function failWriteAndReadBack(sim: GitHubSimulator, write: { bodyIncludes?: string } = {}): void {
  sim.fail({
    ...write,
    operation: "ApplyTransition",
    status: 502,
    // Held for no time at all: only so the read's fault is added once the write has arrived.
    until: Promise.resolve(),
    onArrival: () => sim.fail({ operation: "SubjectStatus", status: 502 }),
  });
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
export function worldsOnPrivateRedis(options: Omit<WorldOptions, "privateRedis"> = {}): {
  readonly world: E2eWorld;
} {
  let world: E2eWorld | undefined;
  beforeEach(async () => {
    world = await startWorld({ ...options, privateRedis: true });
  });
  afterEach(async () => {
    await world?.close();
  });
  return {
    get world() {
      if (!world) throw new Error("the world is read outside a test");
      return world;
    },
  };
}
