// Review: a superseded holder's ask for a person does not stay on the issue its successor now works on.
import { afterEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

afterEach(() => world?.close());

describe.skipIf(!redisProbe.available)("needs-human across a takeover", () => {
  it("the successor's claim takes the superseded holder's needs-human label off", async () => {
    world = await startWorld();
    const { sim, app } = world;
    const asker = world.agent();
    const { lease } = await asker.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await asker.heartbeat(lease, { needsHuman: true, blocker: "which database?" });
    await sim.flush();
    expect(sim.issue(repo, 1).labels.sort()).toEqual(["agent:claimed", "agent:needs-human"]);
    app.clock.now += 61_000; // A went silent past reclaimAfter
    const successor = world.agent();
    const taken = await successor.claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "B" },
      takeover: true,
    });
    expect(taken.lease.generation).toBe(2);
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
    // B's beats never ask; the label must not wait for one that does.
    await successor.heartbeat(taken.lease);
    await sim.flush();
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);
  });
});
