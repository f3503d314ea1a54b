// SIGKILL of the App process (`node --import tsx src/main.ts`) in the middle of a claim and of a reap, then a restart.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createRedisClient } from "../../src/providers/create-store.js";
import { RedisLivenessStore } from "../../src/providers/redis/redis-store.js";
import { type GitHubSimulator, startGitHubSimulator } from "../../tools/github-sim/index.js";
import { startPrivateRedis } from "../../tools/local-stack/start-private-redis.js";
import { freePort, testAppPrivateKey, testTokenSecret, testWebhookSecret } from "../support/app-harness.js";
import {
  agentClient,
  installationId,
  otherToken,
  repo,
  repoId,
  seedWorld,
  statusOf,
} from "./support/world.js";

const adminToken = "process-kill-admin-token-0123456789";
const s1 = { sessionId: "s1", sessionKey: "session-key-of-s1-0123456789abcdef" };
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
});

async function startChild(
  sim: GitHubSimulator,
  redisUrl: string,
  env: Record<string, string> = { CLAIM_HOLD_DISABLE_JOBS: "janitor" },
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "test",
      APP_ID: "1",
      PRIVATE_KEY: testAppPrivateKey(),
      WEBHOOK_SECRET: testWebhookSecret,
      GHE_HOST: sim.url.replace("http://", ""),
      GHE_PROTOCOL: "http",
      HOST: "127.0.0.1",
      PORT: String(port),
      REDIS_URL: redisUrl,
      CLAIM_HOLD_KEY_PREFIX: "kill:",
      CLAIM_HOLD_TOKEN_SECRET: testTokenSecret,
      CLAIM_HOLD_ADMIN_TOKEN: adminToken,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: "ignore",
  });
  cleanup.push(async () => void child.kill("SIGKILL"));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the App process did not start");
}

async function setup(files: Record<string, string> = {}) {
  const redis = await startPrivateRedis();
  cleanup.push(() => redis.kill());
  const sim = await startGitHubSimulator({
    appKey: testAppPrivateKey(),
    webhookSecret: testWebhookSecret,
    appId: 1,
  });
  cleanup.push(() => sim.close());
  seedWorld(sim, 3, files);
  const client = createRedisClient(redis.url);
  client.on("error", () => undefined);
  const store = new RedisLivenessStore({ redis: client, keyPrefix: "kill:", ownsClient: true });
  cleanup.push(() => store.close());
  return { redis, sim, store };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

describe("the App process killed mid-transition", () => {
  it.each([
    ["the write lands after the kill", {}],
    ["the write never lands", { status: 502 }],
  ])(
    "mid-claim (%s): after a restart the subject is held once, the claimant resumes it, GitHub matches the store",
    { timeout: 60_000 },
    async (_, fault) => {
      const { sim, redis, store } = await setup();
      const first = await startChild(sim, redis.url);
      sim.configureWebhooks({ url: `${first.url}/api/github/webhooks` });
      await sim.flush();
      const slow = sim.fail({ operation: "ApplyTransition", delayMs: 1_500, ...fault });
      const pending = agentClient(first.url)
        .claim({ repo, issue: 1, actor: s1 })
        .catch((e) => e);
      const key = { installationId, repoId, issue: 1 };
      while ((await store.get(key))?.sync !== "pending")
        await new Promise((resolve) => setTimeout(resolve, 10));
      // Killed while GitHub is answering the claim's one batched write.
      while (slow.hits === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await killed(first.child);
      expect(await pending).toMatchObject({ code: "network_error" });
      await new Promise((resolve) => setTimeout(resolve, 1_700)); // the simulator finishes the request
      const second = await startChild(sim, redis.url);
      sim.configureWebhooks({ url: `${second.url}/api/github/webhooks` });

      expect(
        await statusOf(
          agentClient(second.url, otherToken).claim({ repo, issue: 1, actor: { sessionId: "s2" } }),
        ),
      ).toBe(409);
      // The session proves itself with its key (invariant 14), as the CLI and the MCP server do.
      const resumed = await agentClient(second.url).claim({ repo, issue: 1, actor: s1 });
      expect(resumed.lease.generation).toBe(1);
      await expect(agentClient(second.url).heartbeat(resumed.lease)).resolves.toMatchObject({
        generation: 1,
      });
      await sim.flush();
      const issue = sim.issue(repo, 1);
      if (process.env.KILL_DEBUG)
        console.log(JSON.stringify({ issue, log: sim.requests.entries.slice(-12) }, null, 1));
      expect(issue.assignees).toEqual(["fleet-bot"]);
      expect(issue.labels).toContain("agent:claimed");
      const markers = issue.comments.filter((c) => c.body.includes('"generation":1,"state":"active"'));
      expect(markers).toHaveLength(1);
    },
  );

  it("mid-reap: after a restart the reconcile finishes the reap, once", { timeout: 60_000 }, async () => {
    const { sim, redis, store } = await setup({
      ".github/claim-hold.yml": "taskClasses:\n  author: { ttl: 10s, reclaimAfter: 10s, heartbeat: 2s }\n",
    });
    const first = await startChild(sim, redis.url);
    sim.configureWebhooks({ url: `${first.url}/api/github/webhooks` });
    await sim.flush();
    await agentClient(first.url).claim({ repo, issue: 2, actor: { sessionId: "dead" } });
    await new Promise((resolve) => setTimeout(resolve, 10_500)); // silent past reclaimAfter (real time: a child process)
    sim.fail({ operation: "ApplyTransition", delayMs: 1_500, status: 502 });
    const sweep = fetch(`${first.url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: "{}",
    }).catch((e) => e);
    const key = { installationId, repoId, issue: 2 };
    while ((await store.get(key))?.state !== "reaped")
      await new Promise((resolve) => setTimeout(resolve, 10));
    await killed(first.child);
    await sweep;
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect(sim.issue(repo, 2).assignees).toEqual(["fleet-bot"]); // the reap's write never landed

    // A replica with its janitor on: a sweep and a reconcile every second.
    const second = await startChild(sim, redis.url, {
      JANITOR_INTERVAL_SECONDS: "1",
      JANITOR_RECONCILE_EVERY: "1",
    });
    sim.configureWebhooks({ url: `${second.url}/api/github/webhooks` });
    // Until the reconcile's write has landed and the store has recorded it (the fenced write reads
    // the store once more after GitHub answers, so the two are not simultaneous).
    for (
      let i = 0;
      i < 100 && (sim.issue(repo, 2).assignees.length > 0 || (await store.get(key))?.sync !== "done");
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await sim.flush();
    const issue = sim.issue(repo, 2);
    expect(issue.assignees).toEqual([]);
    expect(issue.labels).toEqual([]);
    if (process.env.KILL_DEBUG)
      console.log(JSON.stringify([issue.comments.map((c) => c.body), await store.get(key)]));
    expect(issue.comments.filter((c) => c.body.includes('"state":"reaped"'))).toHaveLength(1);
    expect(await store.get(key)).toMatchObject({ state: "reaped", generation: 2, sync: "done" });
  });
});
