// End to end: a holder whose account lost write access loses the lease at its next re-check (docs/reference/http-api.md#authentication).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { claimMarkers, type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;
const minute = 60_000;

describe.skipIf(!redisProbe.available)("lease calls re-check the holder's permission", () => {
  beforeEach(async () => {
    world = await startWorld({
      config: "taskClasses:\n  author: { ttl: 1h, reclaimAfter: 2h, heartbeat: 5m }\n",
    });
  });
  afterEach(() => world.close());

  it("at most every 10 minutes: a removed collaborator gets 410 revoked and the claim ends on GitHub", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "P" } });
    await sim.flush();
    sim.setPermission(repo, fleet.login, "read");

    // Within 10 minutes of the claim's own check, heartbeats cost no GitHub request.
    app.clock.now += 5 * minute;
    const mark = sim.requests.mark();
    expect(await agent.heartbeat(lease)).toMatchObject({ generation: 1, state: "active" });
    expect(sim.requests.since(mark)).toEqual([]);

    app.clock.now += 6 * minute;
    await expect(agent.heartbeat(lease)).rejects.toMatchObject({
      status: 410,
      code: "gone",
      details: { reason: "revoked" },
    });
    await sim.flush();
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [], labels: [] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "revoked" }]);
    await expect(agent.verify(lease)).rejects.toMatchObject({ status: 410, details: { reason: "revoked" } });
  });
});
