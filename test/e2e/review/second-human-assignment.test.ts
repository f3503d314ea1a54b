// Review 2: paths where the App may remove or claim ownership of a HUMAN's assignment (invariant 5).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  fleet,
  maintainer,
  repo,
  startWorld,
  writer,
} from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("review2: human assignments", () => {
  beforeEach(async () => {
    world = await startWorld({ writeFenceWaitMs: 300 });
  });
  afterEach(async () => {
    world.sim.webhooks.release();
    await world.close();
  });

  /** A claim whose write landed but whose answer was lost and whose landed-check read also failed: rolled back, its 'active' comment left. */
  async function rolledBackClaimLeavingActiveMarker(issue: number) {
    const { sim } = world;
    // The claim's mutation lands but answers 502; on its arrival the landed-check read is made to fail too.
    sim.fail({
      operation: "ApplyTransition",
      status: 502,
      applied: true,
      until: Promise.resolve(),
      onArrival: () => sim.fail({ operation: "SubjectStatus", status: 502 }),
    });
    await expect(
      world.agent().claim({ repo, issue, actor: { runtime: "codex", sessionId: "R" } }),
    ).rejects.toMatchObject({ status: 502 });
    await sim.flush();
  }

  it("a claim answered 502 'nothing was kept' comes back from its leftover comment and blocks the issue", async () => {
    const { sim } = world;
    await rolledBackClaimLeavingActiveMarker(1);
    const before = sim.issue(repo, 1);
    expect({ assignees: before.assignees, labels: before.labels, markers: claimMarkers(sim, 1) }).toEqual({
      assignees: [],
      labels: [],
      markers: [{ generation: 1, state: "active" }],
    });
    // Nobody holds #1 (the only claimant was told nothing was kept): another session may claim it.
    const outcome = await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "B" } })
      .then(
        (r) => ({ ok: true as const, generation: r.lease.generation }),
        (e: { status: number; code: string }) => ({ ok: false as const, status: e.status, code: e.code }),
      );
    expect(outcome).toEqual({ ok: true, generation: 2 });
  });

  it("a person assigns the fleet login by hand after a rolled-back claim; the resurrected claim's reap must not unassign it", async () => {
    const { sim, app } = world;
    await rolledBackClaimLeavingActiveMarker(1);
    // alice (maintainer) assigns the fleet account by hand: a person's assignment.
    sim.assign({ repo, issue: 1, login: maintainer.login, assignees: [fleet.login] });
    await sim.flush();
    // Any claim attempt (here bob's agent) restores the generation-1 claim from its leftover comment.
    await world
      .agent(writer.token)
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "B" } })
      .catch(() => undefined);
    const restored = await world.stores.claims.get({ installationId: 42, repoId: 1296269, issue: 1 });
    const actions: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      app.clock.now += 10_000;
      const report = await app.services.janitor.sweep();
      actions.push(...report.actions);
    }
    await sim.flush();
    expect({
      restored: restored && { state: restored.state, appAssigned: restored.appAssigned },
      actions,
      assignees: sim.issue(repo, 1).assignees,
    }).toEqual({
      // The rolled-back generation is kept ended (a 502 is no refusal), naming no App-made assignment.
      restored: { state: "revoked", appAssigned: false },
      // Its pending write is finished: the late claim comment ended, the person's assignment kept.
      actions: [{ subject: `${repo}#1`, action: "repair", reason: "unwritten-transition-retried" }],
      assignees: [fleet.login],
    });
    expect(claimMarkers(sim, 1).filter((m) => m.state === "active")).toEqual([]);
  });

  it("supersededAppAssignees: a person assigns the fleet login by hand while bob's agent holds the issue after a rolled-back claim; reconcile must leave it", async () => {
    const { sim, app } = world;
    await rolledBackClaimLeavingActiveMarker(1);
    // bob's agent claims (nobody assigned): generation 2, unless the ghost blocks it.
    const b = await world
      .agent(writer.token)
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "B" } })
      .catch((e: { code: string }) => e.code);
    await sim.flush();
    sim.assign({ repo, issue: 1, login: maintainer.login, assignees: [fleet.login] });
    await sim.flush();
    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect({
      claimed: typeof b === "string" ? b : b.lease.generation,
      actions: report.actions,
      assignees: [...sim.issue(repo, 1).assignees].sort(),
    }).toEqual({ claimed: 2, actions: [], assignees: [fleet.login, writer.login].sort() });
  });

  it("a late fenced write of generation 1 corrected onto a /reclaim release must not remove a person who assigned themself after the release", async () => {
    const { sim } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await sim.flush();
    // bob assigns himself as well (conflicted); alice then releases the issue to the queue.
    sim.assign({ repo, issue: 1, login: writer.login, assignees: [writer.login] });
    await sim.flush();
    const node = sim.issue(repo, 1).nodeId;
    // The agent's phase change edits its comment: that write is held at GitHub (inside the write lock).
    const held = sim.hold({ operation: "ApplyTransition", bodyIncludes: node });
    const beat = agent.heartbeat(a.lease, { phase: "testing" }).catch((e: unknown) => e);
    await held.arrived;
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim release" });
    await sim.flush();
    expect(sim.issue(repo, 1).assignees).toEqual([]);
    // After the release, bob assigns himself again: a new human assignment.
    sim.assign({ repo, issue: 1, login: writer.login, assignees: [writer.login] });
    await sim.flush();
    const mark = sim.requests.mark();
    held.release();
    await beat;
    await sim.flush();
    const writes = sim.requests
      .since(mark)
      .filter((e) => e.operationName === "ApplyTransition")
      .map((e) => e.mutationFields);
    // The late write lands and is corrected (labels off, comment final); bob, who came after, stays.
    expect(writes.length).toBeLessThanOrEqual(2);
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [writer.login], labels: [] });
  });
});
