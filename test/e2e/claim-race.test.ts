// End to end over HTTP: many sessions race for one issue, and a takeover either supersedes or loses to the incumbent.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isClaimHoldError } from "../../src/agent/client/index.js";
import { probeRedis } from "../support/redis.js";
import { claimMarkers, type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("claim races and takeovers through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("30 sessions claim #1 at once: exactly one 201, 29 × 409 held, one GitHub write", async () => {
    const { sim } = world;
    const agent = world.agent();
    // Warm the authentication caches so every racer reaches the store at about the same time.
    await agent.inventory(repo);
    const mark = sim.requests.mark();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: `racer-${n}` } }).then(
          (claim) => ({ status: claim.created ? 201 : 200, generation: claim.lease.generation }),
          (error: unknown) => {
            if (!isClaimHoldError(error)) throw error;
            return { status: error.status, code: error.code };
          },
        ),
      ),
    );
    await sim.flush();
    expect(results.filter((r) => r.status === 201)).toEqual([{ status: 201, generation: 1 }]);
    expect(results.filter((r) => r.status === 409)).toEqual(
      Array.from({ length: 29 }, () => ({ status: 409, code: "held" })),
    );
    expect(sim.requests.count({ operation: "ApplyTransition" }, mark)).toBe(1);
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);
  });

  it("a takeover after the ttl waits out the grace beat, supersedes the silent incumbent and resumes its branch", async () => {
    const { sim, app } = world;
    const branch = "agent/A/1-task-1";
    const a = await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" }, branch });
    app.clock.now += 30_000; // A is silent for its ttl: stale

    const pendings: number[] = [];
    const b = await world
      .agent()
      .claim(
        { repo, issue: 1, actor: { runtime: "codex", sessionId: "B" }, takeover: true },
        { onTakeoverPending: (pending) => pendings.push(pending.retryAfterSeconds) },
      );
    await sim.flush();
    expect(pendings).toEqual([10]);
    expect(b).toMatchObject({
      created: true,
      lease: { generation: 2, branch },
      resume: { previousGeneration: 1, branch, previousActor: { sessionId: "A" } },
    });
    expect(claimMarkers(sim, 1)).toEqual([
      { generation: 1, state: "superseded" },
      { generation: 2, state: "active" },
    ]);
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });

    // A wakes up: a late heartbeat never revives a superseded lease.
    await expect(world.agent().heartbeat(a.lease)).rejects.toMatchObject({
      status: 409,
      code: "superseded",
      details: { generation: 2, by: { sessionId: "B" } },
    });
    expect(await world.agent().verify(b.lease)).toMatchObject({ holder: true, generation: 2 });
  });

  it("the incumbent wins when it heartbeats within the grace beat: the claimant's retry gets 409 held", async () => {
    const { sim, app } = world;
    const agentA = world.agent();
    const a = await agentA.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    app.clock.now += 30_000;

    const impatient = world.agent();
    const claimB = { repo, issue: 1, actor: { runtime: "codex", sessionId: "B" }, takeover: true };
    // The client's own wait is replaced by the incumbent's heartbeat landing inside the grace beat.
    await expect(
      impatient.claim(claimB, {
        onTakeoverPending: () => {
          throw new Error("stop waiting");
        },
      }),
    ).rejects.toThrow("stop waiting");
    app.clock.now += 5_000;
    expect(await agentA.heartbeat(a.lease)).toMatchObject({ generation: 1, state: "active" });
    app.clock.now += 6_000;

    const mark = sim.requests.mark();
    await expect(impatient.claim(claimB)).rejects.toMatchObject({
      status: 409,
      code: "held",
      details: { generation: 1, holder: { sessionId: "A" } },
    });
    await sim.flush();
    expect(sim.requests.count({ operation: "ApplyTransition" }, mark)).toBe(0);
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);
    expect(await agentA.verify(a.lease)).toMatchObject({ holder: true, generation: 1 });
  });
});
