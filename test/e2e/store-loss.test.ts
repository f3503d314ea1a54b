// End to end: Redis loses every key (FLUSHALL on a private server); no live agent is reaped and claims come back from GitHub.
import { beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  fleet,
  installationId,
  repo,
  worldsOnPrivateRedis,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("store loss through the simulator", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
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

  it("after FLUSHALL the next ordinary sweep reads the installations back from GitHub and rebuilds the lost claims", async () => {
    const { sim, app, stores } = world;
    const live = world.agent();
    const silent = world.agent();
    const a = await live.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await silent.claim({ repo, issue: 2, actor: { runtime: "codex", sessionId: "S" } });
    // A reconcile before the loss: the janitor has read GitHub's list once already.
    expect((await app.services.janitor.sweep({ reconcile: true })).installations).toBe(1);

    expect(await world.redis.flushall()).toBe("OK");
    expect(await stores.installations.installations()).toEqual([]);
    app.clock.now += 20_000;

    // Not a reconcile pass (11 sweeps in 12 are not): the store's empty set is recognised as a loss.
    const mark = sim.requests.mark();
    const report = await app.services.janitor.sweep();
    expect(report).toMatchObject({ installations: 1, reconciled: true });
    expect(sim.requests.counts(mark)["GET /app/installations"]).toBe(1);
    expect(report.actions).toEqual([
      { subject: `${repo}#2`, action: "repair", reason: "record-rebuilt-from-claim-comment" },
      { subject: `${repo}#1`, action: "repair", reason: "record-rebuilt-from-claim-comment" },
    ]);
    expect(await stores.installations.installations()).toEqual([installationId]);
    const subject = (issue: number) => ({ installationId, repoId: 1296269, issue });
    expect(await stores.claims.get(subject(2))).toMatchObject({
      state: "active",
      generation: 1,
      actor: { sessionId: "S" },
    });

    // The list is back: the next sweep asks GitHub nothing, and the silent claim is reaped by
    // ordinary sweeps alone — no webhook needed — a full reclaimAfter after the loss.
    const quiet = sim.requests.mark();
    expect(await app.services.janitor.sweep()).toMatchObject({ installations: 1, githubRequests: 0 });
    expect(sim.requests.counts(quiet)).toEqual({});
    let reaped = false;
    for (let step = 0; step < 8 && !reaped; step++) {
      app.clock.now += 10_000;
      await live.heartbeat(a.lease);
      const sweep = await app.services.janitor.sweep();
      reaped = sweep.actions.some((action) => action.action === "reap" && action.subject === `${repo}#2`);
    }
    expect(reaped).toBe(true);
    await sim.flush();
    expect(sim.issue(repo, 2)).toMatchObject({ assignees: [], labels: [] });
    expect(claimMarkers(sim, 2).at(-1)).toEqual({ generation: 1, state: "reaped" });
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
  });
});
