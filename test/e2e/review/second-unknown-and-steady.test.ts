// Review 2: claim_state_unknown in ordinary use (invariant 12), and steady-state request counts (invariant 13's fence).
import { beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, maintainer, repo, worldsOnPrivateRedis } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

async function claimOutcome(issue: number, sessionId = "N") {
  return world
    .agent()
    .claim({ repo, issue, actor: { runtime: "pi", sessionId } })
    .then(
      (r) => ({ ok: true as const, generation: r.lease.generation }),
      (e: { status: number; code: string }) => ({ ok: false as const, status: e.status, code: e.code }),
    );
}

describe.skipIf(!redisProbe.available)("review2: unknown state and steady state", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  it("a person puts agent:stale on a never-claimed issue by hand: claims and the janitor recover", async () => {
    const { sim, app } = world;
    sim.assign({ repo, issue: 3, login: maintainer.login, labels: ["agent:stale"] });
    await sim.flush();
    const first = await claimOutcome(3);
    for (let i = 0; i < 3; i++) await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    const later = await claimOutcome(3, "M");
    expect({ first, later, labels: sim.issue(repo, 3).labels }).toEqual({
      first: { ok: true, generation: 1 },
      later: { ok: false, status: 409, code: "held" },
      labels: ["agent:claimed"],
    });
  });

  it("released claim, store loss, then agent:stale put back by hand: the issue is not stuck", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 2, actor: { runtime: "pi", sessionId: "A" } });
    await agent.release(a.lease, { outcome: "handoff" });
    await sim.flush();
    await world.redis.flushall();
    sim.assign({ repo, issue: 2, login: maintainer.login, labels: ["agent:stale"] });
    await sim.flush();
    for (let i = 0; i < 3; i++) await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect({ claim: await claimOutcome(2), labels: sim.issue(repo, 2).labels }).toMatchObject({
      claim: { ok: true },
    });
  });

  it("ordinary release / reap / revoke / /reclaim flows never leave a subject in claim_state_unknown after store loss", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    // #1 released (abandoned), #2 reaped, #3 revoked by unassignment, #4 /reclaim release, #5 completed then reopened.
    const l1 = await agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "S1" } });
    await agent.release(l1.lease, { outcome: "abandoned", note: "giving up" });
    await agent.claim({ repo, issue: 2, actor: { runtime: "pi", sessionId: "S2" } });
    await agent.claim({ repo, issue: 3, actor: { runtime: "pi", sessionId: "S3" } });
    await agent.claim({ repo, issue: 4, actor: { runtime: "pi", sessionId: "S4" } });
    await agent.claim({ repo, issue: 5, actor: { runtime: "pi", sessionId: "S5" } });
    await sim.flush();
    sim.unassign({ repo, issue: 3, login: maintainer.login, assignees: [fleet.login] });
    sim.comment({ repo, issue: 4, login: maintainer.login, body: "/reclaim release" });
    sim.closeIssue({ repo, issue: 5, login: maintainer.login });
    await sim.flush();
    sim.reopenIssue({ repo, issue: 5, login: maintainer.login });
    await sim.flush();
    for (let i = 0; i < 10; i++) {
      app.clock.now += 10_000;
      await app.services.janitor.sweep();
    }
    await sim.flush();
    const shown = [1, 2, 3, 4, 5].map((n) => ({
      n,
      a: sim.issue(repo, n).assignees,
      l: sim.issue(repo, n).labels,
    }));
    await world.redis.flushall();
    await app.services.janitor.sweep({ reconcile: true });
    const outcomes: Record<number, unknown> = {};
    for (const n of [1, 2, 3, 4, 5]) outcomes[n] = await claimOutcome(n, `X${n}`);
    expect({ shown, outcomes }).toMatchObject({
      outcomes: {
        1: { ok: true },
        2: { ok: true },
        3: { ok: true },
        4: { ok: true },
        5: { ok: true },
      },
    });
  });

  it("steady state: claim, heartbeats with phase, release cost one mutation each and no fence correction", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const mark = sim.requests.mark();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "A" } });
    const afterClaim = sim.requests.since(mark).filter((e) => e.operationName === "ApplyTransition").length;
    app.clock.now += 5_000;
    await agent.heartbeat(a.lease);
    app.clock.now += 5_000;
    await agent.heartbeat(a.lease, { phase: "coding" });
    for (let i = 0; i < 4; i++) {
      app.clock.now += 20_000;
      await agent.heartbeat(a.lease, { phase: "coding" });
    }
    await agent.heartbeat(a.lease, { phase: "testing" });
    const m2 = sim.requests.mark();
    await agent.release(a.lease, { outcome: "completed" });
    await sim.flush();
    const afterRelease = sim.requests.since(m2).filter((e) => e.operationName === "ApplyTransition").length;
    const total = sim.requests.since(mark).filter((e) => e.operationName === "ApplyTransition").length;
    const report = await app.services.janitor.sweep({ reconcile: true });
    expect({ afterClaim, afterRelease, total, actions: report.actions }).toEqual({
      afterClaim: 1,
      afterRelease: 1,
      total: 4,
      actions: [],
    });
  });
});
