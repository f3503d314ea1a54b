// The benchmarks' world: a private Redis, the simulator and the App on it, and a repository with many issues.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ClaimHoldClient, createClaimHoldClient } from "../src/agent/client/index.js";
import { mapStores, type Stores } from "../src/providers/stores.js";
import { defaultApp, type LocalStack, startLocalStack } from "../tools/local-stack/start-local-stack.js";
import type { PrivateRedis } from "../tools/local-stack/start-private-redis.js";

export const repo = "bench/queue";
export const fleet = { login: "fleet-bot", token: `ghp_bench${randomBytes(12).toString("hex")}` };

export interface BenchWorld {
  stack: LocalStack;
  redis: PrivateRedis;
  /** The store the App uses, with the time spent in its calls added up (Redis time). */
  storeTime: { ms: number; calls: number };
  clock: { now: number };
  client(): ClaimHoldClient;
  close(): Promise<void>;
}

/** Adds up the wall time of every store call: what a sweep spends waiting on Redis. */
function timed(stores: Stores, total: { ms: number; calls: number }): Stores {
  return mapStores(stores, (store) => timedStore(store, total));
}

function timedStore<T extends object>(store: T, total: { ms: number; calls: number }): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          total.ms += performance.now() - started;
          total.calls++;
        }
      };
    },
  });
}

export async function startBenchWorld(
  options: { issues: number; handlers?: ((req: IncomingMessage, res: ServerResponse) => boolean)[] } = {
    issues: 10,
  },
): Promise<BenchWorld> {
  const storeTime = { ms: 0, calls: 0 };
  const clock = { now: Date.now() };
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "bench:" },
    wrapStores: (stores) => timed(stores, storeTime),
    startApp: defaultApp({
      disabledJobs: ["janitor"],
      throttle: false,
      sleep: async () => {},
      now: () => clock.now,
      logLevel: "error",
      ...(options.handlers ? { handlers: options.handlers } : {}),
    }),
  });
  const redis = stack.redis?.server;
  if (!redis) throw new Error("the benchmarks' stack has no private Redis");
  stack.sim.seed({
    users: [{ login: fleet.login, tokens: [fleet.token] }],
    repos: [
      {
        fullName: repo,
        files: {
          ".github/claim-hold.yml": [
            "taskClasses:",
            "  author: { ttl: 10s, reclaimAfter: 20s, heartbeat: 3s }",
            "limits: { claimsPerSession: 1, claimsPerLogin: 10000 }",
            "janitor: { maxWritesPerMinute: 600, maxReapFraction: 0.55 }",
            "",
          ].join("\n"),
        },
        collaborators: { [fleet.login]: "write" },
      },
    ],
    installations: [{ id: 7, account: "bench", repos: [repo] }],
  });
  const target = stack.sim.state.requireRepo(repo);
  const author = stack.sim.state.requireUser("bench");
  for (let n = 1; n <= options.issues; n++)
    stack.sim.state.createIssue(target, { title: `Task ${n}` }, author);
  // The simulator queued an `issues.opened` per issue; the App ignores them, but wait for them anyway.
  await stack.sim.flush();
  return {
    stack,
    redis,
    storeTime,
    clock,
    client: () => createClaimHoldClient({ baseUrl: stack.app.url, githubToken: fleet.token, retries: 0 }),
    close: () => stack.stop(),
  };
}
