// Two App replicas on one Redis: the claim invariants hold across them (docs/deploy.md#5-scale-out), and the janitor runs on exactly one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClaimHoldError, createClaimHoldClient } from "../src/agent/client/index.js";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { GitHubSimulator } from "../tools/github-sim/index.js";
import { connectSharedRedis } from "../tools/local-stack/stack-stores.js";
import {
  type LocalStack,
  type StackWiring,
  startLocalStack,
} from "../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "./support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot0000000000000000000000scale" };

describe.skipIf(!redisProbe.available)("two replicas sharing one Redis", () => {
  let stack: LocalStack<AppHarness>;
  let sim: GitHubSimulator;
  let a: AppHarness;
  let b: AppHarness;
  /** Both replicas read the same (fake) wall clock, as NTP-synced hosts do. */
  const advance = (ms: number) => {
    a.clock.now += ms;
    b.clock.now = a.clock.now;
  };
  const client = (app: AppHarness) =>
    createClaimHoldClient({
      baseUrl: app.url,
      githubToken: fleet.token,
      retries: 0,
      sleep: async (ms) => advance(ms),
    });

  beforeAll(async () => {
    const now = Date.now();
    /** A replica on a connection of its own to the shared Redis and prefix, as a separate host has. */
    const replica = async ({ redis, githubBaseUrl }: StackWiring): Promise<AppHarness> => {
      if (!redis) throw new Error("the scale-out stack has no Redis");
      const connection = await connectSharedRedis(redis.url);
      const app = await startApp({
        stores: createRedisStores({ redis: connection, keyPrefix: redis.keyPrefix }),
        fences: new RedisFenceStore({ redis: connection, keyPrefix: redis.keyPrefix }),
        githubBaseUrl,
        appId: 1,
        now,
      });
      return {
        ...app,
        async close() {
          await app.close();
          await connection.quit();
        },
      };
    };
    // Two Apps on one simulator and one Redis; the simulator's webhooks go to A.
    stack = await startLocalStack({
      redis: { kind: "shared", keyPrefix: uniqueKeyPrefix("scale") },
      credentials: testCredentials(),
      startApp: replica,
      apps: 2,
    });
    sim = stack.sim;
    [a, b] = stack.apps as [AppHarness, AppHarness];
    sim.seed({
      users: [{ login: fleet.login, id: fleet.id, tokens: [fleet.token] }],
      repos: [
        {
          fullName: repo,
          id: 1296269,
          files: {
            ".github/claim-hold.yml":
              "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\n",
          },
          collaborators: { [fleet.login]: "write" },
          issues: [1, 2].map((n) => ({ number: n, title: `Task ${n}`, author: fleet.login })),
        },
      ],
      installations: [{ id: 42, account: "octo", repos: [repo] }],
    });
    await sim.flush();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("claim on A, heartbeat on B, takeover through B, superseded on A", async () => {
    const first = await client(a).claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "s-1" } });
    expect(first).toMatchObject({ created: true, lease: { generation: 1 } });
    advance(5_000);
    expect(await client(b).heartbeat(first.lease)).toMatchObject({ generation: 1, state: "active" });

    // Live on B's view too: a second session is refused through either replica.
    await expect(
      client(b).claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "s-2" } }),
    ).rejects.toMatchObject({ status: 409, code: "held" });

    advance(31_000); // silent past the ttl: stale, so a takeover (after the grace beat) may proceed
    const second = await client(b).claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "s-2" },
      takeover: true,
    });
    expect(second).toMatchObject({ created: true, lease: { generation: 2 } });
    await expect(client(a).heartbeat(first.lease)).rejects.toMatchObject({ status: 409, code: "superseded" });
    await expect(client(b).verify(first.lease)).rejects.toMatchObject({ status: 409, code: "superseded" });
    expect(await client(a).verify(second.lease)).toMatchObject({ holder: true, generation: 2 });
  });

  it("lets exactly one of 20 sessions win a race split across both replicas", async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        client(i % 2 === 0 ? a : b).claim({
          repo,
          issue: 2,
          actor: { runtime: "codex", sessionId: `race-${i}` },
        }),
      ),
    );
    const winners = attempts.filter((r) => r.status === "fulfilled");
    expect(winners).toHaveLength(1);
    for (const loser of attempts.filter((r) => r.status === "rejected")) {
      expect(loser.reason).toBeInstanceOf(ClaimHoldError);
      expect((loser.reason as ClaimHoldError).status).toBe(409);
    }
    await sim.flush();
    expect(sim.issue(repo, 2).assignees).toEqual([fleet.login]);
  });

  it("runs the janitor on exactly one replica (the JobRegistry's Redis lock)", async () => {
    const first = await Promise.all([a.services.jobs.tick("janitor"), b.services.jobs.tick("janitor")]);
    expect(first.filter(Boolean)).toHaveLength(1);
    const leader = first[0] ? a : b;
    const follower = first[0] ? b : a;
    expect(await follower.services.jobs.tick("janitor")).toBe(false);
    expect(await leader.services.jobs.tick("janitor")).toBe(true);
    expect(leader.services.jobs.status("janitor")).toMatchObject({ leader: true, consecutiveFailures: 0 });
    expect(follower.services.jobs.status("janitor")).toMatchObject({ leader: false });
    // The leader steps down on shutdown; the other replica takes over at its next tick.
    await leader.services.jobs.stop();
    expect(await follower.services.jobs.tick("janitor")).toBe(true);
  });
});
