// End to end on the simulator, memory store and real Redis: a session that heartbeats without progress becomes `stalled` (inventory, heartbeat answer, one notification); with `onStall: needs-human` the App asks a person (label, comment, notification, "needs you") until progress or a person withdraws it, with `onStall: reclaimable` it is taken over while it still heartbeats — unless it progresses first.
import { afterEach, describe, expect, it } from "vitest";
import { type ClaimHoldClient, createClaimHoldClient } from "../../src/agent/client/index.js";
import { NotifyEvent } from "../../src/config/repo-config.js";
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type SinkServer, startSinkServer } from "../notify/support/sink-server.js";
import { type AppHarness, startApp, testAdminToken, testCredentials } from "../support/app-harness.js";
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
          adminToken: testAdminToken,
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

  /** The holder beats every 10 s up to `until` (the last beat at it), answering the last answer. */
  const beatUntil = async (
    holder: ClaimHoldClient,
    lease: Parameters<ClaimHoldClient["heartbeat"]>[0],
    until: number,
    body: Parameters<ClaimHoldClient["heartbeat"]>[1] = {},
  ) => {
    const { app } = world!;
    let answer = await holder.heartbeat(lease, body);
    while (app.clock.now < until) {
      app.clock.now = Math.min(app.clock.now + 10_000, until);
      answer = await holder.heartbeat(lease, body);
    }
    return answer;
  };
  const labelsOf = () => world!.sim.issue(repo, 1).labels.slice().sort();
  const rowOf = async (agent: ClaimHoldClient) =>
    (await agent.inventory(repo)).claims.find((row) => row.subject === `${repo}#1`);
  /** The dashboard's "needs you" panel, as a logged-in operator's page shows it. */
  const needsYouPanel = async () => {
    const { app } = world!;
    const login = await fetch(`${app.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: testAdminToken }).toString(),
      redirect: "manual",
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const page = await (await fetch(`${app.url}/`, { headers: { cookie } })).text();
    return /<section id="needs-you"[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
  };
  const branch = "agent/S/1-task-1";
  async function stalledHolder() {
    const { app } = world!;
    const holder = world!.agent();
    const { lease } = await holder.claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "S" },
      branch,
    });
    const claimedAt = app.clock.now;
    expect(await beatUntil(holder, lease, claimedAt + 110_000)).not.toHaveProperty("stalledSince");
    expect(labelsOf()).toEqual(["agent:claimed"]);
    expect(await beatUntil(holder, lease, claimedAt + 120_000)).toMatchObject({
      state: "active",
      stalledSince: new Date(claimedAt + 120_000).toISOString(),
    });
    return { holder, lease, claimedAt };
  }

  it("onStall needs-human asks a person through the needs-human path, and a push withdraws the ask", async () => {
    const { app, sim } = await start(stallConfig("needs-human"));
    const { holder, lease } = await stalledHolder();
    // The ask: the label, one comment on the holder's behalf, the needs-human notification, "needs you".
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    const asks = sim
      .issue(repo, 1)
      .comments.filter((c) => c.author.endsWith("[bot]") && c.body.includes("is stalled"));
    expect(asks).toHaveLength(1);
    expect(asks[0]!.body).toContain("no progress");
    expect(await rowOf(holder)).toMatchObject({
      state: "stalled",
      reasons: expect.arrayContaining(["no-progress", "needs-human"]),
    });
    const panel = await needsYouPanel();
    expect(panel).toContain(`${repo}#1`);
    expect(panel).toContain("stalled");
    const notices = await world!.notices();
    expect(notices.filter((n) => n.event === "needs-human")).toMatchObject([
      { subject: `${repo}#1`, data: { blocker: expect.stringContaining("no progress") } },
    ]);
    // The ask stands while the heartbeats go on (no second comment, no second notification).
    const askedAt = app.clock.now;
    await beatUntil(holder, lease, askedAt + 70_000);
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);

    // A push to the claim's branch is progress: the stall ends and the App's ask is withdrawn.
    sim.push({ repo, branch, login: fleet.login, message: "unstuck" });
    await sim.flush();
    expect(labelsOf()).toEqual(["agent:claimed"]);
    const row = await rowOf(holder);
    expect(row?.state).toBe("active");
    expect(row?.reasons).not.toContain("needs-human");
    expect(await needsYouPanel()).not.toContain(`${repo}#1`);
    // Reconcile-style repair and later heartbeats keep it off; a second stall in the generation asks nobody again.
    const pushedAt = app.clock.now;
    expect(await beatUntil(holder, lease, pushedAt + 130_000)).toHaveProperty("stalledSince");
    expect(labelsOf()).toEqual(["agent:claimed"]);
    const later = await world!.notices();
    expect(later.filter((n) => n.event === "needs-human")).toHaveLength(1);
    expect(later.filter((n) => n.event === "stalled")).toHaveLength(1);
  });

  it("the holder's own ask takes the App's over: the label stays, and goes with the holder's ask", async () => {
    const { app } = await start(stallConfig("needs-human"));
    const { holder, lease } = await stalledHolder();
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    // The holder asks itself: the label stays (its own ask), the App's ask is handed over.
    await beatUntil(holder, lease, app.clock.now + 70_000);
    expect(await holder.heartbeat(lease, { needsHuman: true, blocker: "which API version?" })).toMatchObject({
      state: "waiting",
    });
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    // Its next beat without the ask withdraws it: nothing of the App's keeps the label.
    await beatUntil(holder, lease, app.clock.now + 70_000);
    expect(await holder.heartbeat(lease, { phase: "coding" })).toMatchObject({ state: "active" });
    expect(labelsOf()).toEqual(["agent:claimed"]);
    expect((await rowOf(holder))?.state).toBe("active");
  });

  it.each([
    { progress: "phase change", body: { phase: "testing" } },
    { progress: "spend increase", body: { usage: { costUsd: 0.25 } } },
  ])("a $progress at a heartbeat withdraws the App's ask", async ({ body }) => {
    const { app } = await start(stallConfig("needs-human"));
    const { holder, lease } = await stalledHolder();
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    await beatUntil(holder, lease, app.clock.now + 70_000);
    expect(await holder.heartbeat(lease, body)).not.toHaveProperty("stalledSince");
    expect(labelsOf()).toEqual(["agent:claimed"]);
    expect((await rowOf(holder))?.reasons).not.toContain("needs-human");
  });

  it("a release whose write GitHub refused while the App asked: the janitor's retry takes the ask's label off", async () => {
    const { app, sim } = await start(stallConfig("needs-human"));
    const { holder, lease } = await stalledHolder();
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    sim.fail({ operation: "ApplyTransition", status: 500, times: 1 });
    await expect(holder.release(lease, { outcome: "handoff" })).rejects.toThrow();
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions).toContainEqual({
      subject: `${repo}#1`,
      action: "repair",
      reason: "unwritten-transition-retried",
    });
    expect(labelsOf()).toEqual([]);
  });

  it("a release whose write GitHub refused, then needs-human added by hand: the janitor's retry leaves the person's label", async () => {
    const { app, sim } = await start(stallConfig("needs-human"));
    const holder = world!.agent();
    const { lease } = await holder.claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "S" },
      branch,
    });
    sim.fail({ operation: "ApplyTransition", status: 500, times: 1 });
    await expect(holder.release(lease, { outcome: "handoff" })).rejects.toThrow();
    sim.assign({ repo, issue: 1, login: maintainer.login, labels: ["agent:needs-human"] });
    await sim.flush();
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions).toContainEqual({
      subject: `${repo}#1`,
      action: "repair",
      reason: "unwritten-transition-retried",
    });
    expect(labelsOf()).toEqual(["agent:needs-human"]);
  });

  it("the holder's pull request from the claim's branch withdraws the App's ask; another author's does not", async () => {
    const { app, sim } = await start(stallConfig("needs-human"));
    const { holder, lease } = await stalledHolder();
    await beatUntil(holder, lease, app.clock.now + 70_000);
    sim.openPull({ repo, author: maintainer.login, head: branch, title: "Not the holder's", body: "" });
    await sim.flush();
    expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();
    expect(labelsOf()).toEqual(["agent:claimed"]);
    expect(await holder.heartbeat(lease)).not.toHaveProperty("stalledSince");
  });

  it.each([{ how: "replied" as const }, { how: "cleared" as const }])(
    "a person's answer ($how) withdraws the App's ask; the heartbeats do not bring the label back",
    async ({ how }) => {
      const { app, sim } = await start(stallConfig("needs-human"));
      const { holder, lease } = await stalledHolder();
      expect(labelsOf()).toEqual(["agent:claimed", "agent:needs-human"]);
      await beatUntil(holder, lease, app.clock.now + 70_000);
      if (how === "replied") {
        sim.comment({ repo, issue: 1, login: maintainer.login, body: "Looks fine, carry on." });
      } else {
        sim.unassign({ repo, issue: 1, login: maintainer.login, labels: ["agent:needs-human"] });
      }
      await sim.flush();
      expect(labelsOf()).toEqual(["agent:claimed"]);
      // Still stalled (nothing progressed), but nobody is asked any more.
      const answeredAt = app.clock.now;
      expect(await beatUntil(holder, lease, answeredAt + 90_000)).toHaveProperty("stalledSince");
      expect(labelsOf()).toEqual(["agent:claimed"]);
      const row = await rowOf(holder);
      expect(row?.state).toBe("stalled");
      expect(row?.reasons).not.toContain("needs-human");
    },
  );

  it("a push while a stalled claim's takeover is pending cancels it: the claimant is refused as for a live claim", async () => {
    const { app, sim } = await start(stallConfig("reclaimable"));
    const { holder, lease } = await stalledHolder();
    // No ask with onStall reclaimable: a takeover is the answer.
    expect(labelsOf()).toEqual(["agent:claimed"]);
    let pushes = 0;
    const successor = agentOf(async (ms) => {
      // The holder pushes during the grace beat (its last heartbeat, a grace beat ago, keeps it live).
      sim.push({ repo, branch, login: fleet.login, message: `progress ${pushes}` });
      await sim.flush();
      pushes += 1;
      app.clock.now += ms;
    });
    const refused = await successor
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "T" }, takeover: true })
      .catch((error: unknown) => error);
    expect(pushes).toBe(1);
    expect(refused).toMatchObject({ status: 409, code: "held" });
    // As for a live claim: no takeover pending any more, and another attempt is refused at once.
    expect((refused as { details: Record<string, unknown> }).details).not.toHaveProperty("takeoverPendingBy");
    const again = await successor
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "T" }, takeover: true })
      .catch((error: unknown) => error);
    expect(pushes).toBe(1);
    expect(again).toMatchObject({ status: 409, code: "held" });
    expect(await holder.heartbeat(lease)).toMatchObject({ generation: 1, state: "active" });
    expect(await holder.heartbeat(lease)).not.toHaveProperty("stalledSince");
    expect((await rowOf(holder))?.state).toBe("active");
  });
});
