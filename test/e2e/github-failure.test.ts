// End to end: GitHub fails in the middle of a claim; the store rolls back, or keeps a claim whose write landed anyway.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { claimMarkers, type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("GitHub failing during a claim, through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("a 502 on the claim's mutation answers 502 github_failed, leaves no phantom, and a retry is safe", async () => {
    const { sim } = world;
    const agent = world.agent();
    sim.fail({ operation: "ApplyTransition", status: 502 });
    await expect(
      agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } }),
    ).rejects.toMatchObject({ status: 502, code: "github_failed" });
    await sim.flush();
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [], labels: [], comments: [] });
    const inventory = await agent.inventory(repo);
    // Listed free at most: the generation is kept ended (a 502 is no refusal), never a phantom.
    expect(inventory.claims.filter((row) => row.subject === `${repo}#1` && row.state !== "free")).toEqual([]);

    // The rolled-back generation is burnt, never reused (invariant 2).
    const retried = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    expect(retried).toMatchObject({ created: true, lease: { generation: 2 } });
    await sim.flush();
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 2, state: "active" }]);
  });

  it("a mutation GitHub carried out but whose answer was lost: the App sees it landed and keeps the claim, no phantom", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    sim.fail({ operation: "ApplyTransition", status: 502, applied: true });
    const claimed = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    expect(claimed).toMatchObject({ created: true, lease: { generation: 1 } });
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);
    expect(await agent.heartbeat(claimed.lease)).toMatchObject({ generation: 1, state: "active" });

    // GitHub and the store agree: the next reconcile has nothing to repair.
    const report = await app.services.janitor.sweep({ reconcile: true });
    expect(report.actions).toEqual([]);
    expect(await agent.verify(claimed.lease)).toMatchObject({ holder: true, generation: 1 });
  });
});
