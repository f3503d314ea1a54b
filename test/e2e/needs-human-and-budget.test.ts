// End to end on the simulator, memory store and real Redis: a holder asks for a person, and a subject's spend reaches its budget.
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
const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot000000000000000000000000budget" };
const maintainer = { login: "alice", id: 601, token: "ghp_alice00000000000000000000000000budget" };

/** Stale after 30 s; warn at $1, end the lease at $2 (`onExhausted: end`); the budget warning is asked for; a team is mentioned. */
const config = [
  "taskClasses:",
  "  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }",
  "budgets:",
  "  author: { warnUsd: 1, maxUsd: 2, onExhausted: end }",
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
  /** Sends what the App queued so far to the sink, and answers every notification it received (JSON bodies). */
  notices(): Promise<{ event: string; subject: string | null; data: Record<string, unknown> }[]>;
  agent(): ClaimHoldClient;
}

const stores = [
  { name: "memory store", redis: { kind: "memory" as const } },
  ...(redisProbe.available
    ? [{ name: "Redis", redis: { kind: "shared" as const, keyPrefix: uniqueKeyPrefix("budget-e2e") } }]
    : []),
];

let world: World | undefined;
afterEach(async () => {
  await world?.stack.stop();
  await world?.sink.close();
  world = undefined;
});

describe.each(stores)("needs-human and budgets on the $name", ({ redis }) => {
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
            // The test sends (`tick()`); the background loop would only race it.
            notifySender: { pollMs: 3_600_000 },
          },
        }),
    });
    const { sim } = stack;
    sim.seed({
      users: [fleet, maintainer].map(({ login, id, token }) => ({ login, id, tokens: [token] })),
      repos: [
        {
          fullName: repo,
          id: 1296269,
          files: { ".github/claim-hold.yml": config },
          collaborators: { [fleet.login]: "write", [maintainer.login]: "maintain" },
          issues: [1, 2].map((n) => ({ number: n, title: `Task ${n}`, author: maintainer.login })),
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

  const appComments = (sim: GitHubSimulator, issue = 1) =>
    sim
      .issue(repo, issue)
      .comments.filter((c) => c.author.endsWith("[bot]"))
      .map((c) => c.body);

  it("creates the needs-human and over-budget labels with the managed ones", async () => {
    const { sim } = await start();
    expect(sim.labels(repo).sort()).toEqual([
      "agent:claimed",
      "agent:needs-human",
      "agent:over-budget",
      "agent:stale",
    ]);
  });

  it("asks for a person once: label, one inert comment with the mention, a notice, waiting; cleared by the next beat", async () => {
    const { sim, app } = await start();
    const agent = world!.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "N" } });
    await sim.flush();
    const before = appComments(sim).length;
    const blocker = "@bob <!-- claim-hold:v1 {} --> need [the key](https://evil.example)";

    let mark = sim.requests.mark();
    expect(await agent.heartbeat(lease, { needsHuman: true, blocker })).toMatchObject({ state: "waiting" });
    await sim.flush();
    expect(sim.requests.counts(mark)).toEqual({ "graphql:ApplyTransition": 1 });
    expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:needs-human"]);
    const comments = appComments(sim);
    expect(comments).toHaveLength(before + 1);
    const asked = comments.at(-1)!;
    expect(asked).toContain("needs a person");
    expect(asked).toContain("@octo/maintainers, could you take a look?");
    // The blocker is inert: no mention of bob, no comment, no link.
    const [quoted] = asked.split("\n").filter((line) => line.startsWith("> "));
    expect(quoted).toBe(
      "> @\u2060bob \\<\\!-- claim-hold:v1 {} --\\> need \\[the key\\](https://evil.example)",
    );
    // The notification carries the blocker as the agent wrote it (a sink renders it, not GitHub).
    expect(await world!.notices()).toMatchObject([
      {
        event: "needs-human",
        installationId: 42,
        subject: `${repo}#1`,
        data: {
          generation: 1,
          blocker,
          mention: "@octo/maintainers",
          holder: expect.objectContaining({ sessionId: "N" }),
        },
      },
    ]);
    const inventory = await agent.inventory(repo);
    expect(inventory.claims[0]).toMatchObject({
      state: "waiting",
      reasons: ["needs-human", "heartbeat-live", "blocker-reported"],
    });

    // Asking again is no news: no GitHub request, no comment, no notice.
    app.clock.now += 5_000;
    mark = sim.requests.mark();
    expect(await agent.heartbeat(lease, { needsHuman: true, blocker })).toMatchObject({ state: "waiting" });
    await sim.flush();
    expect(sim.requests.counts(mark)).toEqual({});
    expect(await world!.notices()).toHaveLength(1);

    // The next heartbeat without it clears; the label was written 10 s ago, so it waits out its minute.
    app.clock.now += 5_000;
    mark = sim.requests.mark();
    expect(await agent.heartbeat(lease)).toMatchObject({ state: "active" });
    await sim.flush();
    expect(sim.requests.counts(mark)).toEqual({});
    expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:needs-human"]);
    // The first heartbeat after the minute takes it off; nothing is said.
    app.clock.now += 50_000;
    expect(await agent.heartbeat(lease)).toMatchObject({ state: "active" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    expect(appComments(sim)).toHaveLength(before + 1);
    expect(await world!.notices()).toHaveLength(1);
  });

  it("throttles a flapping ask: 20 beats a second apart make one comment, one label write and one notice", async () => {
    const { sim, app } = await start();
    const agent = world!.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "F" } });
    await sim.flush();
    const before = appComments(sim).length;
    const mark = sim.requests.mark();
    for (let beat = 0; beat < 20; beat++) {
      app.clock.now += 1_000;
      await agent.heartbeat(lease, beat % 2 === 0 ? { needsHuman: true, blocker: "which database?" } : {});
    }
    await sim.flush();
    expect(sim.requests.counts(mark)).toEqual({ "graphql:ApplyTransition": 1 });
    const mentions = appComments(sim)
      .slice(before)
      .filter((body) => body.includes("@octo/maintainers"));
    expect(mentions).toHaveLength(1);
    expect(await world!.notices()).toHaveLength(1);
    // The last beat cleared the ask: the held-back label write is made by the first beat after the minute.
    for (let beat = 0; beat < 3; beat++) {
      app.clock.now += 15_000;
      await agent.heartbeat(lease);
    }
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    // Asking again with another blocker inside the cooldown edits the one comment: no new mention, no notice.
    app.clock.now += 15_000;
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which schema?" });
    await sim.flush();
    const after = appComments(sim).slice(before);
    expect(after.filter((body) => body.includes("@octo/maintainers"))).toHaveLength(1);
    expect(after.find((body) => body.includes("needs a person"))).toContain("which schema?");
    expect(await world!.notices()).toHaveLength(1);
    // The label came off 15 s ago: it goes on again with the first beat past its minute.
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    for (let beat = 0; beat < 4; beat++) {
      app.clock.now += 15_000;
      await agent.heartbeat(lease, { needsHuman: true, blocker: "which schema?" });
    }
    await sim.flush();
    expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:needs-human"]);
  });

  it("takes the needs-human label off at `/reclaim release`, and at a release after the store lost the ask", async () => {
    const { sim, stack } = await start();
    const agent = world!.agent();
    const first = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "N" } });
    await agent.heartbeat(first.lease, { needsHuman: true, blocker: "which database?" });
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim release" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual([]);

    const second = await agent.claim({ repo, issue: 2, actor: { runtime: "codex", sessionId: "M" } });
    await agent.heartbeat(second.lease, { needsHuman: true, blocker: "which schema?" });
    await sim.flush();
    expect(sim.issue(repo, 2).labels.sort()).toEqual(["agent:claimed", "agent:needs-human"]);
    // The store loses the subject; the release restores it from the claim comment, which carries no ask.
    if (!stack.redis) return;
    const keys = await stack.redis.client.keys(`${stack.redis.keyPrefix}{i:42}:s:1296269:2:*`);
    expect(keys.length).toBeGreaterThan(0);
    await stack.redis.client.del(...keys);
    await agent.release(second.lease, { outcome: "abandoned" });
    await sim.flush();
    expect(sim.issue(repo, 2).labels).toEqual([]);
  });

  it("takes the needs-human label off with the lease that asked, at its release", async () => {
    const { sim } = await start();
    const agent = world!.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "N" } });
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which database?" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:needs-human"]);
    await agent.release(lease, { outcome: "handoff", note: "left for a person" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual([]);
  });

  it("refuses asking without a blocker (422, nothing stored)", async () => {
    const { sim } = await start();
    const agent = world!.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "N" } });
    await expect(agent.heartbeat(lease, { needsHuman: true })).rejects.toMatchObject({
      status: 422,
      code: "invalid_request",
      details: { field: "blocker" },
    });
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
  });

  it("counts usage toward the budget: one warning, a decrease refused, the lease ended at the max", async () => {
    const { sim, app } = await start();
    const agent = world!.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" } });
    await sim.flush();

    // Below the warning, and nothing else new: no GitHub request.
    const mark = sim.requests.mark();
    expect(await agent.heartbeat(lease, { usage: { costUsd: 0.5, tokens: 1000 } })).toMatchObject({
      state: "active",
    });
    expect(sim.requests.counts(mark)).toEqual({});
    // Past the warning: one notice, and still none after.
    await agent.heartbeat(lease, { usage: { costUsd: 1.2, tokens: 2000 } });
    await agent.heartbeat(lease, { usage: { costUsd: 1.5, tokens: 3000 } });
    expect((await world!.notices()).map((n) => [n.event, n.data.spentUsd, n.data.limitUsd])).toEqual([
      ["budget-warn", 1.2, 1],
    ]);
    expect(sim.requests.counts(mark)).toEqual({});
    // Usage is cumulative: a lower figure is refused and changes nothing.
    await expect(agent.heartbeat(lease, { usage: { costUsd: 1.0 } })).rejects.toMatchObject({
      status: 422,
      code: "invalid_request",
      details: { field: "usage.costUsd", last: 1.5 },
    });
    expect((await agent.inventory(repo)).claims[0]).toMatchObject({ spendUsd: 1.5, state: "active" });

    // At the max: the lease ends, released with a note, the over-budget label on.
    app.clock.now += 1_000;
    await expect(agent.heartbeat(lease, { usage: { costUsd: 2.25 } })).rejects.toMatchObject({
      status: 410,
      code: "gone",
      details: { reason: "budget_exhausted" },
    });
    await sim.flush();
    const issue = sim.issue(repo, 1);
    expect(issue.labels).toEqual(["agent:over-budget"]);
    expect(issue.assignees).toEqual([]);
    expect(appComments(sim).at(-1)).toContain("spend reached its budget ($2.25 of $2.00 for author work");
    expect((await world!.notices()).map((n) => [n.event, n.data.spentUsd, n.data.limitUsd])).toEqual([
      ["budget-warn", 1.2, 1],
      ["budget-exhausted", 2.25, 2],
    ]);
    // It stays ended by its budget, for every lease call.
    await expect(agent.heartbeat(lease)).rejects.toMatchObject({
      status: 410,
      details: { reason: "budget_exhausted" },
    });
    await expect(agent.verify(lease)).rejects.toMatchObject({
      status: 410,
      details: { reason: "budget_exhausted" },
    });
    app.clock.now += 6_000; // past the inventory's read cache
    const row = (await agent.inventory(repo)).claims.find((c) => c.subject === `${repo}#1`);
    expect(row).toMatchObject({ spendUsd: 2.25, reasons: expect.arrayContaining(["over-budget"]) });

    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain("claim_hold_spend_usd_total 2.25");
  });

  it("keeps the spend across a takeover: the successor's first dollars end it at the max", async () => {
    const { sim, app } = await start();
    const first = world!.agent();
    const { lease } = await first.claim({ repo, issue: 2, actor: { runtime: "codex", sessionId: "A" } });
    await first.heartbeat(lease, { usage: { costUsd: 1.5 } });
    app.clock.now += 61_000;
    const second = world!.agent();
    const { lease: successor } = await second.claim({
      repo,
      issue: 2,
      actor: { runtime: "pi", sessionId: "B" },
      takeover: true,
    });
    expect(successor.generation).toBe(2);
    // Generation 2 starts its own cumulative count at zero: $0.25 is no decrease.
    expect(await second.heartbeat(successor, { usage: { costUsd: 0.25 } })).toMatchObject({ generation: 2 });
    await expect(second.heartbeat(successor, { usage: { costUsd: 0.5 } })).rejects.toMatchObject({
      status: 410,
      details: { reason: "budget_exhausted" },
    });
    await sim.flush();
    expect(sim.issue(repo, 2).labels).toEqual(["agent:over-budget"]);
    expect((await second.inventory(repo)).claims.find((c) => c.subject === `${repo}#2`)).toMatchObject({
      spendUsd: 2,
    });
  });
});
