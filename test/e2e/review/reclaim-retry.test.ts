// Review: invariant 5/13 — a `/reclaim release` whose write failed, finished later, never removes someone assigned since.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import {
  type E2eWorld,
  failWriteAndReadBack,
  fleet,
  installationId,
  maintainer,
  repo,
  startWorld,
} from "../support/e2e-world.js";

const redisProbe = await probeRedis();
const repoId = 1296269;
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("review: /reclaim release retry", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("once broke: the retried `/reclaim release` unassigns the fleet account a person assigned after the command", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    // A maintainer takes the agent's assignment off: the claim is revoked (generation 2), written.
    sim.unassign({ repo, issue: 1, login: maintainer.login, assignees: [fleet.login] });
    await sim.flush();
    expect(await world.stores.claims.get({ installationId, repoId, issue: 1 })).toMatchObject({
      state: "revoked",
      sync: "done",
    });
    expect(sim.issue(repo, 1).assignees).toEqual([]);

    // `/reclaim release` on the now free issue: nobody is assigned, so nobody is recorded to unassign;
    // its one batched write fails, and so does the read that would tell whether it landed.
    failWriteAndReadBack(sim, { bodyIncludes: sim.issue(repo, 1).nodeId });
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim release" });
    await sim.flush();
    const pending = await world.stores.claims.get({ installationId, repoId, issue: 1 });
    expect(pending).toMatchObject({ state: "released", sync: "pending" });

    // Later a person hands the issue to the fleet account by hand.
    sim.assign({ repo, issue: 1, login: maintainer.login, assignees: [fleet.login] });
    await sim.flush();

    // The retry (reconcile) finishes the reclaim: it must not remove the assignment made after it ran.
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(sim.issue(repo, 1).assignees).toEqual([fleet.login]);
  });
});
