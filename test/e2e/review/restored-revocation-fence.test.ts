// A claim restored revoked after a store loss (a person had removed its App-made assignment) fails its PR's check, like the webhook's revocation.
import { beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import {
  checkOf,
  claimMarkers,
  type E2eWorld,
  fleet,
  maintainer,
  repo,
  worldsOnPrivateRedis,
} from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("a revocation a store loss hid, found by reconcile", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  it("re-runs the PR's check although the fence's index went with the store: the revoked holder's attested head fails", async () => {
    const { sim, app } = world;
    const branch = "agent/A/1-task-1";
    const agent = world.agent();
    const a = await agent.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      branch,
    });
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();
    await agent.attest(a.lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha).conclusion).toBe("success");

    expect(await world.redis.flushall()).toBe("OK");
    sim.unassign({ repo, issue: 1, login: maintainer.login, assignees: [fleet.login] });
    await sim.flush();
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();

    expect(claimMarkers(sim, 1).at(-1)).toMatchObject({ generation: 1, state: "revoked" });
    // The attestation went with the store too: the head fails closed, as no holder vouches for it.
    expect(checkOf(sim, sha)).toMatchObject({
      conclusion: "failure",
      title: "Not attested by the current holder",
    });
    await expect(agent.heartbeat(a.lease)).rejects.toMatchObject({ status: 410 });
  });
});
