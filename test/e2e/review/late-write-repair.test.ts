// Review: invariant 13's last clause — "any divergence … is repaired by the next reconcile" — when the fence's correction fails.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, installationId, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
const repoId = 1296269;
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("review: a late write whose correction failed", () => {
  beforeEach(async () => {
    world = await startWorld({ writeFenceWaitMs: 100 });
  });
  afterEach(() => world.close());

  it("once broke: a late release strips the next live claim's assignee and label; its correction fails; reconcile never repairs it", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await sim.flush();
    const node1 = sim.issue(repo, 1).nodeId;
    const late = sim.hold({ operation: "ApplyTransition", bodyIncludes: node1 });
    const released = agent.release(a.lease, { outcome: "handoff" });
    await late.arrived;
    // The next session of the same fleet account claims meanwhile; its write goes ahead after the wait.
    const c = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "C" } });
    expect(sim.issue(repo, 1)).toMatchObject({ labels: ["agent:claimed"], assignees: [fleet.login] });
    // The late release lands (unassigns, unlabels); the fence's correction write is refused by GitHub.
    sim.fail({ operation: "ApplyTransition", bodyIncludes: node1, status: 502 });
    late.release();
    await released;
    await sim.flush();
    expect(await world.stores.claims.get({ installationId, repoId, issue: 1 })).toMatchObject({
      generation: c.lease.generation,
      state: "active",
      appAssigned: true,
    });
    const afterCorrectionFailed = sim.issue(repo, 1);

    // "could not correct a late write; reconcile will" — the next reconcile (and sweep):
    await app.services.janitor.sweep({ reconcile: true });
    await app.services.janitor.sweep();
    await sim.flush();
    const shown = sim.issue(repo, 1);
    expect({
      afterCorrectionFailed: afterCorrectionFailed.assignees,
      labels: shown.labels,
      assignees: shown.assignees,
    }).toEqual({ afterCorrectionFailed: [], labels: ["agent:claimed"], assignees: [fleet.login] });
  });
});
