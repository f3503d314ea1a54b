// End to end: Redis loses every key (FLUSHALL on a private server); no live agent is reaped and claims come back from GitHub.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type PrivateRedis, startPrivateRedis } from "../../scripts/support/start-private-redis.js";
import { probeRedis } from "../support/redis.js";
import { claimMarkers, type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;
let redis: PrivateRedis;

describe.skipIf(!redisProbe.available)("store loss through the simulator", () => {
  beforeEach(async () => {
    redis = await startPrivateRedis();
    world = await startWorld({ redis: redis.client() });
  });
  afterEach(async () => {
    await world.close();
    await redis.stop();
  });

  it("after FLUSHALL: no reap for a full reclaimAfter, a heartbeat restores its lease from the claim comment, generations go on", async () => {
    const { sim, app } = world;
    const live = world.agent();
    const silent = world.agent();
    const a = await live.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await silent.claim({ repo, issue: 2, actor: { runtime: "codex", sessionId: "S" } });
    app.clock.now += 20_000;
    await live.heartbeat(a.lease);

    expect(await world.redis.flushall()).toBe("OK");
    // Long past the silent claim's reclaimAfter, counted from its last heartbeat.
    app.clock.now += 50_000;

    // The store is empty: nothing is due, nothing is reaped, and the reconcile rebuilds from GitHub.
    const epochAt = app.clock.now;
    let report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions.filter((action) => action.action === "reap")).toEqual([]);
    expect(sim.issue(repo, 2)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    report = await app.services.janitor.sweep();
    expect(report.actions.filter((action) => action.action === "reap")).toEqual([]);

    // The live agent's next heartbeat is accepted: the lease was restored from its claim comment's tokenDigest.
    expect(await live.heartbeat(a.lease)).toMatchObject({ generation: 1, state: "active" });
    expect(await live.verify(a.lease)).toMatchObject({ holder: true, generation: 1 });

    // A full reclaimAfter after the store's epoch, the silent claim is reaped — with a new generation, not a reused one.
    let reapedAt = 0;
    for (let step = 0; step < 7 && !reapedAt; step++) {
      app.clock.now += 10_000;
      await live.heartbeat(a.lease);
      report = await app.services.janitor.sweep();
      if (report.actions.some((action) => action.action === "reap" && action.subject === `${repo}#2`))
        reapedAt = app.clock.now;
    }
    expect(reapedAt - epochAt).toBe(60_000);
    await sim.flush();
    expect(sim.issue(repo, 2)).toMatchObject({ assignees: [], labels: [] });
    expect(claimMarkers(sim, 2).at(-1)).toEqual({ generation: 1, state: "reaped" });
    const next = await world.agent().claim({ repo, issue: 2, actor: { runtime: "pi", sessionId: "N" } });
    expect(next.lease.generation).toBe(3);
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
  });
});
