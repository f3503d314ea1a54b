// End to end on the simulator, memory store and real Redis: a budget reached pauses the lease (`onExhausted: pause`), a person answers `/budget`.
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
const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot000000000000000000000000pause0" };
const maintainer = { login: "alice", id: 601, token: "ghp_alice00000000000000000000000000pause0" };
const reader = { login: "rita", id: 701, token: "ghp_rita000000000000000000000000000pause0" };

/** Stop at $2 with the default `onExhausted` (pause); a team is mentioned. */
const config = [
  "taskClasses:",
  "  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }",
  "budgets:",
  "  author: { maxUsd: 2 }",
  "notify:",
  "  events: [needs-human, budget-warn, budget-exhausted]",
  '  mention: "@octo/maintainers"',
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
    ? [{ name: "Redis", redis: { kind: "shared" as const, keyPrefix: uniqueKeyPrefix("budget-pause-e2e") } }]
    : []),
];

let world: World | undefined;
afterEach(async () => {
  await world?.stack.stop();
  await world?.sink.close();
  world = undefined;
});

describe.each(stores)("a budget that pauses and asks, on the $name", ({ redis }) => {
  async function start(): Promise<World> {
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

  const appComments = (sim: GitHubSimulator) =>
    sim
      .issue(repo, 1)
      .comments.filter((c) => c.author.endsWith("[bot]"))
      .map((c) => c.body);

  it("pauses at the max and asks; the fleet's /budget is refused; a maintainer's /budget +5 resumes it, judged against the new limit", async () => {
    const { sim, app } = await start();
    const agent = world!.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "P" } });
    await sim.flush();
    const first = await agent.heartbeat(lease, { usage: { costUsd: 1.5 } });
    expect(first).toMatchObject({ state: "active" });
    expect(first).not.toHaveProperty("paused");

    // At the max: held, paused, labelled, one ask on the holder's behalf, a needs-human notice.
    app.clock.now += 1_000;
    expect(await agent.heartbeat(lease, { usage: { costUsd: 2.25 } })).toMatchObject({
      generation: 1,
      state: "waiting",
      paused: "budget",
    });
    await sim.flush();
    expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:over-budget"]);
    expect(sim.issue(repo, 1).assignees).not.toEqual([]);
    const asks = appComments(sim).filter((body) => body.includes("is paused"));
    expect(asks).toHaveLength(1);
    expect(asks[0]).toContain("($2.25 of $2.00 for author work");
    expect(asks[0]).toContain("`/budget +5`");
    expect(asks[0]).toContain("@octo/maintainers, could you take a look?");
    expect((await world!.notices()).map((n) => [n.event, n.data.blocker])).toEqual([
      ["needs-human", expect.stringContaining("budget reached: $2.25 of $2.00")],
    ]);

    // Heartbeats keep the paused lease, say so every time, and ask nothing more.
    for (let beat = 0; beat < 8; beat++) {
      app.clock.now += 10_000;
      expect(await agent.heartbeat(lease, beat === 1 ? { usage: { costUsd: 2.5 } } : {})).toMatchObject({
        paused: "budget",
      });
    }
    await sim.flush();
    expect(appComments(sim).filter((body) => body.includes("is paused"))).toHaveLength(1);
    // Past reclaimAfter since the pause, the lease still holds: the janitor reaps nothing beating.
    expect((await app.services.janitor.sweep()).actions).toEqual([]);
    expect(await agent.verify(lease)).toMatchObject({ holder: true, generation: 1 });

    // The fleet's own account cannot raise the budget it spends; a reader lacks the permission.
    const before = appComments(sim).length;
    sim.comment({ repo, issue: 1, login: fleet.login, body: "/budget +5" });
    sim.comment({ repo, issue: 1, login: reader.login, body: "/budget +5" });
    await sim.flush();
    const refusals = appComments(sim).slice(before);
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toContain("`/budget` is for people. `fleet-bot` runs agent sessions here");
    expect(refusals[1]).toContain("@rita, sorry: `/budget` needs write permission");
    expect(sim.issue(repo, 1).labels).toContain("agent:over-budget");
    expect(await agent.heartbeat(lease)).toMatchObject({ paused: "budget" });

    // A maintainer raises it by $5: audited, label off, the pause lifted.
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/budget +5" });
    await sim.flush();
    expect(appComments(sim).at(-1)).toBe(
      "💸 @alice raised this issue's budget from $2.00 to $7.00 (spent so far: $2.50).\n\nThe lease paused by its budget goes on.",
    );
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    const resumed = await agent.heartbeat(lease);
    expect(resumed).toMatchObject({ state: "active" });
    expect(resumed).not.toHaveProperty("paused");

    // Redelivered, the comment raises nothing twice: $6.50 goes on under $7.
    const [raise] = sim
      .deliveries({ event: "issue_comment", action: "created" })
      .filter(
        (d) =>
          (d.payload as { comment: { user: { login: string } } }).comment.user.login === maintainer.login,
      );
    const comments = appComments(sim).length;
    sim.webhooks.redeliver(raise!.seq);
    sim.webhooks.enqueue("issue_comment", raise!.payload);
    await sim.flush();
    expect(raise).toBeDefined();
    expect(appComments(sim)).toHaveLength(comments);
    expect(await agent.heartbeat(lease, { usage: { costUsd: 6.5 } })).not.toHaveProperty("paused");

    // Further usage is judged against $7 (a second raise would have made it $12): $7.50 pauses again.
    expect(await agent.heartbeat(lease, { usage: { costUsd: 7.5 } })).toMatchObject({ paused: "budget" });
    await sim.flush();
    expect(appComments(sim).at(-1)).toContain("($7.50 of $7.00 for author work");
    expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:over-budget"]);
  });

  it("refuses a malformed amount and a limit not above the spend, changing nothing", async () => {
    const { sim, app } = await start();
    const agent = world!.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "Q" } });
    app.clock.now += 1_000;
    await agent.heartbeat(lease, { usage: { costUsd: 3 } });
    await sim.flush();
    const before = appComments(sim).length;
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/budget lots" });
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/budget 2.5" });
    await sim.flush();
    const replies = appComments(sim).slice(before);
    expect(replies).toHaveLength(2);
    expect(replies[0]).toContain("I could not read an amount");
    expect(replies[1]).toContain(
      "a limit of $2.50 is not above what octo/widgets#1 has spent so far ($3.00)",
    );
    expect(sim.issue(repo, 1).labels).toContain("agent:over-budget");
    expect(await agent.heartbeat(lease)).toMatchObject({ paused: "budget" });
  });
});
