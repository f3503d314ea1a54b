// Review 2: invariant 7 — after FLUSHALL a live agent (even one already marked stale) keeps label, assignee and lease.
import { beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, repo, worldsOnPrivateRedis } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("review2: store loss and live agents", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  it("a stale-marked agent that wakes after FLUSHALL is restored, relabelled claimed, and never reaped or revoked while it heartbeats", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "A" } });
    const other = await world.agent().claim({ repo, issue: 2, actor: { runtime: "pi", sessionId: "B" } });
    app.clock.now += 35_000;
    await world.agent().heartbeat(other.lease);
    await app.services.janitor.sweep();
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:stale"]);
    await world.redis.flushall();
    app.clock.now += 10_000;
    const actions: unknown[] = [];
    actions.push(...(await app.services.janitor.sweep({ reconcile: true })).actions);
    expect(await agent.heartbeat(a.lease, { phase: "awake" })).toMatchObject({
      generation: 1,
      state: "active",
    });
    for (let i = 0; i < 12; i++) {
      app.clock.now += 10_000;
      await agent.heartbeat(a.lease);
      await world.agent().heartbeat(other.lease);
      const report = await app.services.janitor.sweep({ reconcile: i % 3 === 0 });
      actions.push(
        ...report.actions.filter(
          (x) => x.action !== "repair" || x.reason !== "record-rebuilt-from-claim-comment",
        ),
      );
    }
    await sim.flush();
    expect({
      one: { a: sim.issue(repo, 1).assignees, l: sim.issue(repo, 1).labels },
      two: { a: sim.issue(repo, 2).assignees, l: sim.issue(repo, 2).labels },
      reapsOrRevokes: actions.filter((x) => (x as { action: string }).action === "reap"),
      verify: await agent.verify(a.lease),
    }).toMatchObject({
      one: { a: [fleet.login], l: ["agent:claimed"] },
      two: { a: [fleet.login], l: ["agent:claimed"] },
      reapsOrRevokes: [],
      verify: { holder: true, generation: 1 },
    });
  });
});
