// End to end: GitHub fails in the middle of a claim; the store rolls back, and a half-done write is repaired by the reconcile.
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
    expect(inventory.claims.filter((row) => row.subject === `${repo}#1`)).toEqual([]);

    // The rolled-back generation is burnt, never reused (invariant 2).
    const retried = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    expect(retried).toMatchObject({ created: true, lease: { generation: 2 } });
    await sim.flush();
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 2, state: "active" }]);
  });

  it("a mutation GitHub carried out but whose answer was lost: the phantom is repaired by the next reconcile", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    sim.fail({ operation: "ApplyTransition", status: 502, applied: true });
    await expect(
      agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } }),
    ).rejects.toMatchObject({ status: 502, code: "github_failed" });
    await sim.flush();
    // GitHub shows a claim the store rolled back: a phantom, until the reconcile.
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });

    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions).toEqual([
      { subject: `${repo}#1`, action: "repair", reason: "record-rebuilt-from-claim-comment" },
    ]);
    // The store knows the claim again (liveness unknown, never reaped before a full reclaimAfter).
    const rows = (await agent.inventory(repo)).claims.filter((row) => row.subject === `${repo}#1`);
    expect(rows).toEqual([
      expect.objectContaining({
        state: "unknown",
        generation: 1,
        actor: expect.objectContaining({ sessionId: "A" }),
      }),
    ]);

    // The session's retry re-claims its own claim: same generation, a fresh token; GitHub only sees the
    // claim comment edited (its marker carries the new token's digest).
    const mark = sim.requests.mark();
    const retried = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    expect(retried).toMatchObject({ created: false, lease: { generation: 1 } });
    expect(await agent.heartbeat(retried.lease)).toMatchObject({ generation: 1, state: "active" });
    expect(
      sim.requests.since(mark).flatMap((r) => (r.operationType === "mutation" ? [r.mutationFields] : [])),
    ).toEqual([["updateIssueComment"]]);
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);
  });
});
