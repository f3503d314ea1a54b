// The write lock is held while the fence corrects a late write, however long the correction takes (invariant 13: one write per subject in flight).
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, installationId, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
const repoId = 1296269;
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("the write lock during a late write's correction", () => {
  beforeEach(async () => {
    // A write waits long for the subject's lock: it must never go while another write holds it.
    world = await startWorld({ writeFenceWaitMs: 30_000 });
  });
  afterEach(async () => {
    world.sim.clearFaults();
    await world.close();
  });

  it("a correction that takes longer than the lock's 6 s hold keeps the lock: the next write waits for it", {
    timeout: 90_000,
  }, async () => {
    const { sim } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await sim.flush();
    const node1 = sim.issue(repo, 1).nodeId;

    // A's release write is held at GitHub while it holds the subject's write lock.
    const lateRelease = sim.hold({ operation: "ApplyTransition", bodyIncludes: node1 });
    const released = agent.release(a.lease, { outcome: "handoff" });
    await lateRelease.arrived;

    // Session C claims meanwhile (generation 2): its write waits for the lock.
    let cSettled = false;
    const cClaim = agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "C" } });
    void cClaim.then(
      () => {
        cSettled = true;
      },
      () => {
        cSettled = true;
      },
    );
    await sleep(300);
    expect(cSettled).toBe(false);

    // The late release lands; the record moved on, so the fence corrects it — and that correction
    // is held at GitHub for 9 s (GitHub slow, or the write limiter's queue).
    const correction = sim.hold({ operation: "ApplyTransition", bodyIncludes: node1 });
    lateRelease.release();
    await correction.arrived;
    await sleep(9_000);
    // Still in flight: no other write of the subject may have gone out.
    const overlapped = cSettled;
    if (overlapped) {
      // C's write went while the correction was still in flight; C finishes and releases too.
      const c = await cClaim;
      await agent.release(c.lease, { outcome: "handoff" });
    }
    correction.release();
    await released;
    await cClaim.catch(() => undefined);
    await sim.flush();

    const record = await world.stores.claims.get({ installationId, repoId, issue: 1 });
    const shown = sim.issue(repo, 1);
    const held = record?.state === "active";
    expect({
      overlapped,
      labels: shown.labels,
      assignees: shown.assignees,
    }).toEqual({
      overlapped: false,
      labels: held ? ["agent:claimed"] : [],
      assignees: held ? [fleet.login] : [],
    });
  });
});
