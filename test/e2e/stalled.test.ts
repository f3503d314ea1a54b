// End to end on the simulator, memory store and real Redis: a session that heartbeats without progress becomes `stalled` (inventory, heartbeat answer, one notification) and, with `onStall: reclaimable`, is taken over while it still heartbeats.
import { afterEach, describe, expect, it } from "vitest";
import { type ClaimHoldClient, createClaimHoldClient } from "../../src/agent/client/index.js";
import { NotifyEvent } from "../../src/config/repo-config.js";
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type SinkServer, startSinkServer } from "../notify/support/sink-server.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const appId = 1;
const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot000000000000000000000000stall0" };
const maintainer = { login: "alice", id: 601, token: "ghp_alice00000000000000000000000000stall0" };
const reader = { login: "rita", id: 701, token: "ghp_rita000000000000000000000000000stall0" };

const stallConfig = (onStall: string) =>
  [
    "taskClasses:",
    `  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s, stallAfter: 2m, onStall: ${onStall} }`,
    "notify:",
    "  events: [stalled, needs-human, takeover]",
    "",
  ].join("\n");

interface World {
  stack: LocalStack<AppHarness>;
  sim: GitHubSimulator;
  app: AppHarness;
  sink: SinkServer;
  notices(): Promise<{ event: string; subject: string | null; data: Record<string, unknown> }[]>;
  agent(): ClaimHoldClient;
}

const stores = [
  { name: "memory store", redis: { kind: "memory" as const } },
  ...(redisProbe.available
    ? [{ name: "Redis", redis: { kind: "shared" as const, keyPrefix: uniqueKeyPrefix("stalled-e2e") } }]
    : []),
];

let world: World | undefined;
afterEach(async () => {
  await world?.stack.stop();
  await world?.sink.close();
  world = undefined;
});

describe.each(stores)("a stalled claim, on the $name", ({ redis }) => {
  async function start(config: string): Promise<World> {
    const sink = await startSinkServer();
    const stack = await startLocalStack({
      redis,
      credentials: testCredentials(appId),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: Date.now(),
          notify: {
            notifySinks: [{ url: `${sink.base}/all`, format: "json", events: [...NotifyEvent.options] }],
            notifySender: { pollMs: 3_600_000 },
          },
        }),
    });
    const { sim } = stack;
    sim.seed({
      users: [fleet, maintainer, reader].map(({ login, id, token }) => ({ login, id, tokens: [token] })),
      repos: [
        {
          fullName: repo,
          id: 1296269,
          files: { ".github/claim-hold.yml": config },
          collaborators: { [fleet.login]: "write", [maintainer.login]: "maintain", [reader.login]: "read" },
          issues: [1].map((n) => ({ number: n, title: `Task ${n}`, author: maintainer.login })),
        },
      ],
      installations: [{ id: 42, account: "octo", repos: [repo] }],
    });
    await sim.flush();
    world = {
      stack,
      sim,
      get app() {
        return stack.app;
      },
      sink,
      async notices() {
        await stack.app.services.notifier.flush();
        while ((await stack.app.services.sender.tick()) > 0);
        return sink.requests.map((r) => JSON.parse(r.body));
      },
      agent: () =>
        createClaimHoldClient({
          baseUrl: stack.app.url,
          githubToken: fleet.token,
          retries: 0,
          sleep: async (ms) => {
            stack.app.clock.now += ms;
          },
        }),
    };
    return world;
  }

  const agentOf = (sleep: (ms: number) => Promise<void>) =>
    createClaimHoldClient({ baseUrl: world!.app.url, githubToken: fleet.token, retries: 0, sleep });
  const stateOf = async (agent: ClaimHoldClient) =>
    (await agent.inventory(repo)).claims.find((row) => row.subject === `${repo}#1`)?.state;

  it("heartbeats without progress: stalled, said once; onStall reclaimable lets another session take over while it still heartbeats", async () => {
    const { app } = await start(stallConfig("reclaimable"));
    const holder = world!.agent();
    const { lease } = await holder.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "S" } });
    const claimedAt = app.clock.now;
    const beat = () => holder.heartbeat(lease, { phase: "coding", usage: { costUsd: 0.5 } });
    // The first beat's phase and spend are progress; the same phase and spend again are not.
    app.clock.now += 10_000;
    expect(await beat()).not.toHaveProperty("stalledSince");
    const progressAt = app.clock.now;
    while (app.clock.now < progressAt + 110_000) {
      app.clock.now += 10_000;
      expect(await beat()).not.toHaveProperty("stalledSince");
    }
    expect(await stateOf(holder)).toBe("active");
    app.clock.now += 10_000;
    const stalled = await beat();
    expect(stalled).toMatchObject({
      state: "active",
      stalledSince: new Date(progressAt + 120_000).toISOString(),
    });
    expect(await stateOf(holder)).toBe("stalled");
    app.clock.now += 10_000;
    expect(await beat()).toMatchObject({ stalledSince: new Date(progressAt + 120_000).toISOString() });
    const stalledNotices = (await world!.notices()).filter((n) => n.event === "stalled");
    expect(stalledNotices).toHaveLength(1);
    expect(stalledNotices[0]).toMatchObject({
      subject: `${repo}#1`,
      data: { generation: 1, onStall: "reclaimable", lastProgressAt: new Date(progressAt).toISOString() },
    });
    expect(progressAt).toBeGreaterThan(claimedAt);

    // Another session takes over; the holder keeps heartbeating through the takeover's grace beat.
    let heartbeatsDuringGrace = 0;
    const successor = agentOf(async (ms) => {
      app.clock.now += ms;
      await beat();
      heartbeatsDuringGrace += 1;
    });
    const taken = await successor.claim({
      repo,
      issue: 1,
      actor: { runtime: "pi", sessionId: "T" },
      takeover: true,
    });
    expect(heartbeatsDuringGrace).toBeGreaterThan(0);
    expect(taken.lease.generation).toBe(2);
    await expect(beat()).rejects.toMatchObject({ status: 409, code: "superseded" });
    expect(await stateOf(holder)).toBe("active");
    const notices = await world!.notices();
    expect(notices.filter((n) => n.event === "stalled")).toHaveLength(1);
    expect(notices.filter((n) => n.event === "takeover")).toMatchObject([
      { data: { previousGeneration: 1, generation: 2, stalled: true } },
    ]);
  });

  it("counts a push to the claim's branch and the holder's pull request from it as progress; the notification stays once per generation", async () => {
    const { app, sim } = await start(stallConfig("needs-human"));
    const holder = world!.agent();
    const branch = "agent/S/1-task-1";
    const { lease } = await holder.claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "S" },
      branch,
    });
    /** Heartbeats every 10 s up to `until` (the last one at it), answering the last answer. */
    const beatUntil = async (until: number) => {
      let answer = await holder.heartbeat(lease);
      while (app.clock.now < until) {
        app.clock.now = Math.min(app.clock.now + 10_000, until);
        answer = await holder.heartbeat(lease);
      }
      return answer;
    };
    await beatUntil(app.clock.now + 60_000);
    sim.push({ repo, branch, login: fleet.login, message: "work" });
    await sim.flush();
    const pushedAt = app.clock.now;
    expect(await beatUntil(pushedAt + 119_000)).not.toHaveProperty("stalledSince");
    expect(await beatUntil(pushedAt + 121_000)).toMatchObject({
      stalledSince: new Date(pushedAt + 120_000).toISOString(),
    });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();
    const openedAt = app.clock.now;
    expect(await beatUntil(openedAt + 10_000)).not.toHaveProperty("stalledSince");
    expect(await stateOf(holder)).toBe("active");
    expect(await beatUntil(openedAt + 125_000)).toMatchObject({
      stalledSince: new Date(openedAt + 120_000).toISOString(),
    });
    expect((await world!.notices()).filter((n) => n.event === "stalled")).toHaveLength(1);
  });

  it("with onStall needs-human asks a person and takeover still waits for the heartbeats to stop", async () => {
    const { app } = await start(stallConfig("needs-human"));
    const holder = world!.agent();
    const { lease } = await holder.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "S" } });
    for (let beats = 0; beats < 13; beats++) {
      app.clock.now += 10_000;
      await holder.heartbeat(lease);
    }
    expect(await holder.heartbeat(lease)).toHaveProperty("stalledSince");
    expect(await stateOf(holder)).toBe("stalled");
    const notices = await world!.notices();
    expect(notices.filter((n) => n.event === "stalled")).toHaveLength(1);
    expect(notices.filter((n) => n.event === "needs-human")).toMatchObject([
      { subject: `${repo}#1`, data: { blocker: expect.stringContaining("no progress") } },
    ]);
    const other = agentOf(async (ms) => {
      app.clock.now += ms;
    });
    await expect(
      other.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "T" }, takeover: true }),
    ).rejects.toMatchObject({ status: 409, code: "held" });
  });
});
