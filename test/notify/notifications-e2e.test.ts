// End to end: the App's transitions reach a loopback sink through the Redis outbox, filtered per repository, never waited on.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NotifyEvent } from "../../src/config/repo-config.js";
import { probeRedis } from "../support/redis.js";
import { fleet, type NotifyWorld, repo, startNotifyWorld } from "./support/notify-world.js";
import { type SinkServer, startSinkServer } from "./support/sink-server.js";

const redisProbe = await probeRedis();
const allEvents: NotifyEvent[] = [
  "takeover",
  "superseded-pr",
  "stale",
  "reaped",
  "needs-human",
  "budget-warn",
  "budget-exhausted",
  "janitor-halted",
];
const durations = "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\n";

let sink: SinkServer;
let world: NotifyWorld;

function bodies(path: string) {
  return sink.requests
    .filter((r) => r.path === path)
    .map((r) => JSON.parse(r.body) as Record<string, unknown>);
}

describe.skipIf(!redisProbe.available)("notifications through the App", () => {
  beforeEach(async () => {
    sink = await startSinkServer();
  });
  afterEach(async () => {
    await world?.close();
    await sink.close();
  });

  it("tells a takeover and the PR it fails, while a sink that never answers holds no claim up", async () => {
    world = await startNotifyWorld({
      config: durations,
      sinks: [{ url: `${sink.base}/all`, format: "json", events: allEvents }],
      sender: { timeoutMs: 1_000, baseDelayMs: 5_000 },
    });
    const { sim, app } = world;
    const zombie = world.agent();
    const successor = world.agent();
    const branch = "agent/A/1-task-1";
    const a = await zombie.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      branch,
    });
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
    const pull = sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Task 1",
      body: "Closes #1",
    });
    await sim.flush();
    await zombie.attest(a.lease, sha);
    await sim.flush();

    // B takes over after A's ttl: the PR's check fails for a superseded holder.
    app.clock.now += 30_000;
    const b = await successor.claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "B" },
      takeover: true,
    });
    await sim.flush();
    expect(b.lease.generation).toBe(2);
    await app.services.notifier.flush();
    expect(await world.outbox.depth()).toBe(2);

    // The sink takes the deliveries and never answers.
    sink.answer = "hang";
    let tickDone = false;
    const tick = app.services.sender.tick().then(() => {
      tickDone = true;
    });
    await sink.received(2);
    // Meanwhile a claim, a second takeover (queued while the sink hangs) and a heartbeat all answer.
    const c = await zombie.claim({ repo, issue: 2, actor: { runtime: "claude-code", sessionId: "C" } });
    app.clock.now += 30_000;
    const d = await successor.claim({
      repo,
      issue: 2,
      actor: { runtime: "codex", sessionId: "D" },
      takeover: true,
    });
    await successor.heartbeat(d.lease);
    expect(c.lease.generation).toBe(1);
    expect(d.lease.generation).toBe(2);
    expect(tickDone).toBe(false);
    await app.services.notifier.flush();
    expect(await world.outbox.depth()).toBe(3);

    // The hung tries time out and are retried; the sink answers now.
    await tick;
    sink.answer = 200;
    app.clock.now += 5_000;
    expect(await app.services.sender.tick()).toBe(3);
    const delivered = bodies("/all").slice(2);
    const byEvent = (event: string, subject: string) =>
      delivered.find((body) => body.event === event && body.subject === subject);
    expect(byEvent("takeover", `${repo}#1`)).toMatchObject({
      installationId: 42,
      data: {
        previousGeneration: 1,
        generation: 2,
        previous: { kind: "agent", login: fleet.login, runtime: "claude-code", sessionId: "A" },
        holder: { kind: "agent", login: fleet.login, runtime: "codex", sessionId: "B" },
        branch,
      },
    });
    expect(byEvent("superseded-pr", `${repo}#1`)).toMatchObject({
      installationId: 42,
      data: { pullRequest: pull.number, headSha: sha, headRef: branch, generation: 2, previousGeneration: 1 },
    });
    expect(byEvent("takeover", `${repo}#2`)).toMatchObject({
      data: { previousGeneration: 1, generation: 2 },
    });
    expect(delivered).toHaveLength(3);
    expect(await world.outbox.depth()).toBe(0);
    // The hung tries and their retries carry one idempotency key per event.
    const keys = sink.requests.map((r) => `${JSON.parse(r.body).event}:${r.headers["idempotency-key"]}`);
    expect(new Set(keys).size).toBe(3);
  });

  it("tells the janitor's reap and halt, and leaves out what the repository's notify.events does not name", async () => {
    world = await startNotifyWorld({
      config: `${durations}notify:\n  events: [reaped, janitor-halted]\n`,
      sinks: [{ url: `${sink.base}/ops`, format: "json", events: allEvents }],
    });
    const { app } = world;
    const silent = world.agent();
    const busy = world.agent();
    await silent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "silent" } });
    const leases: Awaited<ReturnType<typeof busy.claim>>["lease"][] = [];
    for (let issue = 2; issue <= 7; issue++) {
      leases.push(
        (await busy.claim({ repo, issue, actor: { runtime: "pi", sessionId: `busy-${issue}` } })).lease,
      );
    }
    const beat = async () => {
      for (const lease of leases) await busy.heartbeat(lease);
    };
    // #1 goes stale (not asked for here), then is reaped; #2–#7 keep beating.
    for (let step = 0; step < 3; step++) {
      app.clock.now += 10_000;
      await beat();
    }
    expect((await app.services.janitor.sweep()).actions.map((a) => a.action)).toEqual(["relabel-stale"]);
    for (let step = 0; step < 3; step++) {
      app.clock.now += 10_000;
      await beat();
    }
    expect((await app.services.janitor.sweep()).actions.map((a) => a.action)).toEqual(["reap"]);
    // #2–#7 fall silent at once: reaping all six active claims trips the disruption guard.
    app.clock.now += 61_000;
    expect((await app.services.janitor.sweep()).halted).toBe(true);
    await app.services.notifier.flush();
    expect(await app.services.sender.tick()).toBe(2);
    expect(bodies("/ops")).toEqual([
      expect.objectContaining({
        event: "reaped",
        subject: `${repo}#1`,
        data: expect.objectContaining({
          generation: 1,
          holder: expect.objectContaining({ sessionId: "silent" }),
        }),
      }),
      expect.objectContaining({
        event: "janitor-halted",
        subject: null,
        installationId: 42,
        data: { reaps: 6, active: 6, repos: [repo] },
      }),
    ]);
  });

  it("tells a stale mark where the repository asks for it (stale is off by default)", async () => {
    world = await startNotifyWorld({
      config: `${durations}notify:\n  events: [stale]\n`,
      sinks: [{ url: `${sink.base}/slack`, format: "slack", events: ["stale", "reaped"] }],
    });
    const { app } = world;
    await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "quiet" } });
    app.clock.now += 31_000;
    expect((await app.services.janitor.sweep()).actions.map((a) => a.action)).toEqual(["relabel-stale"]);
    await app.services.notifier.flush();
    expect(await app.services.sender.tick()).toBe(1);
    expect(sink.requests.map((r) => [r.headers["x-claim-hold-event"], JSON.parse(r.body)])).toEqual([
      [
        "stale",
        {
          text: `[claim-hold] stale on ${repo}#1: the claim went stale: no heartbeat from codex session quiet (fleet-bot)`,
        },
      ],
    ]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain('claim_hold_notification_deliveries_total{result="sent",event="stale"} 1');
    expect(metrics).toMatch(/^claim_hold_notification_outbox_depth 0$/m);
  });
});
