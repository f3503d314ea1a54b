// End to end: a holder that reported a wait (`waitUntil`, capped by `maxWait`) is live for takeover and the janitor.
import { afterEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

/** Stale after 30 s, reclaimable after 60 s; waits capped at 5 minutes. */
const config = "maxWait: 5m\ntaskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\n";

describe.skipIf(!redisProbe.available)("a waiting holder", () => {
  afterEach(() => world.close());

  it("is neither taken over nor touched by the janitor until its capped wait ends", async () => {
    world = await startWorld({ config });
    const { app, sim } = world;
    const holder = world.agent();
    const other = world.agent();
    const { lease } = await holder.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "W" } });
    // Asks for two hours; the repository caps waits at five minutes.
    const waitUntil = new Date(app.clock.now + 2 * 3_600_000).toISOString();
    expect(await holder.heartbeat(lease, { waitUntil, blocker: "waiting for CI" })).toMatchObject({
      state: "waiting",
    });

    // Four minutes of silence: far past ttl and reclaimAfter, but inside the capped wait.
    app.clock.now += 4 * 60_000;
    await expect(
      other.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "T" }, takeover: true }),
    ).rejects.toMatchObject({ status: 409, code: "held" });
    let report = await app.services.janitor.sweep();
    expect(report.actions).toEqual([]);
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    expect(await holder.verify(lease)).toMatchObject({ holder: true, generation: 1 });

    // Past the cap plus the ttl the wait no longer protects it: the janitor marks it stale.
    app.clock.now += 60_000 + 31_000;
    report = await app.services.janitor.sweep();
    expect(report.actions).toMatchObject([{ subject: `${repo}#1`, action: "relabel-stale" }]);
  });
});
