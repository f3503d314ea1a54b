// End to end: the janitor marks a silent agent's claim stale, then reaps it, and never touches a human's assignment.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { claimMarkers, type E2eWorld, fleet, maintainer, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("the janitor through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld({
      issues: [
        { number: 1, title: "Agent work" },
        { number: 2, title: "Alice's work", assignees: [maintainer.login] },
        { number: 3, title: "Busy agent work" },
      ],
    });
  });
  afterEach(() => world.close());

  it("relabels stale once, reaps reclaimable, fails the old holder's lease, and leaves humans and live claims alone", async () => {
    const { sim, app } = world;
    const silent = world.agent();
    const busy = world.agent();
    const lease1 = await silent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "silent" } });
    const lease3 = await busy.claim({ repo, issue: 3, actor: { runtime: "pi", sessionId: "busy" } });
    // Alice takes #2 by /reclaim: a human claim, which humans never heartbeat.
    sim.comment({ repo, issue: 2, login: maintainer.login, body: "/reclaim" });
    await sim.flush();

    // Nothing due: a sweep costs zero GitHub requests.
    let mark = sim.requests.mark();
    let report = await app.services.janitor.sweep();
    expect(report).toMatchObject({ examined: 0, actions: [], githubRequests: 0 });
    expect(sim.requests.since(mark)).toEqual([]);

    // 30 s of silence: stale. Busy keeps beating every 10 s.
    for (let step = 0; step < 3; step++) {
      app.clock.now += 10_000;
      await busy.heartbeat(lease3.lease);
    }
    report = await app.services.janitor.sweep();
    await sim.flush();
    expect(report.actions).toEqual([
      { subject: `${repo}#1`, action: "relabel-stale", reason: expect.any(String) },
    ]);
    expect(sim.issue(repo, 1).labels).toEqual(["agent:stale"]);
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "stale" }]);
    // Relabelled once: the next sweep has nothing to do for #1 until it is reclaimable.
    expect((await app.services.janitor.sweep()).actions).toEqual([]);

    // 60 s of silence: reclaimable, no PR, no push: reaped.
    for (let step = 0; step < 3; step++) {
      app.clock.now += 10_000;
      await busy.heartbeat(lease3.lease);
    }
    mark = sim.requests.mark();
    report = await app.services.janitor.sweep();
    await sim.flush();
    expect(report.actions).toEqual([{ subject: `${repo}#1`, action: "reap", reason: expect.any(String) }]);
    expect(report.halted).toBe(false);
    const reaped = sim.issue(repo, 1);
    expect(reaped.assignees).toEqual([]);
    expect(reaped.labels).toEqual([]);
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "reaped" }]);
    expect(reaped.comments.at(-1)?.author).toBe("claim-hold[bot]");
    // A reap costs at most 2 GitHub requests, one read and one batched mutation
    // (docs/benchmarks.md#c-github-requests-per-transition).
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 1, "graphql:ApplyTransition": 1 });

    // The reaped holder's lease is gone; a new claim mints a new generation.
    await expect(silent.heartbeat(lease1.lease)).rejects.toMatchObject({ status: 410 });
    const again = await silent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "silent" } });
    expect(again.lease.generation).toBe(3);

    // Humans untouched: Alice's assignment and her human claim stay; so does the live agent claim.
    expect(report.actions.map((a) => a.subject)).not.toContain(`${repo}#2`);
    expect(sim.issue(repo, 2).assignees).toEqual([maintainer.login]);
    expect(claimMarkers(sim, 2)).toEqual([{ generation: 1, state: "active" }]);
    expect(sim.issue(repo, 3)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    expect(await busy.verify(lease3.lease)).toMatchObject({ holder: true, generation: 1 });
  });
});
