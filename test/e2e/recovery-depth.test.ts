// End to end: after store loss the latest claim comment is found however many comments follow it (invariant 12).
import { beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  checkOf,
  type E2eWorld,
  fleet,
  maintainer,
  repo,
  worldsOnPrivateRedis,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

function chatter(count: number, issue = 1): void {
  for (let i = 0; i < count; i++) {
    world.sim.comment({ repo, issue, login: maintainer.login, body: `comment ${i} after the claim` });
  }
}

describe.skipIf(!redisProbe.available)("recovery depth after store loss", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  for (const comments of [0, 99, 100, 101, 1000]) {
    it(`${comments} comments after the claim comment: the live holder keeps its lease, generations never repeat`, async () => {
      const agent = world.agent();
      const first = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
      await agent.release(first.lease, { outcome: "handoff" });
      const live = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "B" } });
      expect(live.lease.generation).toBe(2);
      chatter(comments);
      await world.sim.flush();

      expect(await world.redis.flushall()).toBe("OK");

      expect(await agent.heartbeat(live.lease)).toMatchObject({ generation: 2, state: "active" });
      await expect(
        agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "C" } }),
      ).rejects.toMatchObject({ status: 409, code: "held", details: { generation: 2 } });
      await agent.release(live.lease, { outcome: "completed" });
      const next = await agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "C" } });
      expect(next.lease.generation).toBe(3);
    });
  }

  it("the zombie's new head still fails after store loss behind 101 comments", async () => {
    const { sim, app } = world;
    const branch = "agent/A/1-task-1";
    const zombie = world.agent();
    const a = await zombie.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      branch,
    });
    const { sha: sha1 } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();
    await zombie.attest(a.lease, sha1);
    app.clock.now += 30_000;
    await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" }, takeover: true });
    await sim.flush();
    expect(checkOf(sim, sha1)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    chatter(101);
    await sim.flush();

    expect(await world.redis.flushall()).toBe("OK");
    const { sha: sha2 } = sim.push({ repo, branch, login: fleet.login, message: "zombie push" });
    await sim.flush();
    expect(checkOf(sim, sha2).conclusion).toBe("failure");
  });

  it("a claim label with no verifiable claim comment fails closed: 503 claim_state_unknown, check failure", async () => {
    const { sim } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    // The App's claim comment disappears from view (deleted by a person) and the store is lost.
    const claimComment = sim.issue(repo, 1).comments.find((c) => c.body.includes("claim-hold:v1"))!;
    expect(await world.redis.flushall()).toBe("OK");
    sim.deleteComment(claimComment.id, maintainer.login);
    await sim.flush();
    expect(await world.redis.flushall()).toBe("OK");
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);

    await expect(
      agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" } }),
    ).rejects.toMatchObject({ status: 503, code: "claim_state_unknown" });
    const report = await world.app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions.filter((action) => action.subject === `${repo}#1`)).toEqual([]);
    expect(sim.issue(repo, 1).labels).toEqual(["agent:claimed"]);

    const branch = "agent/X/1-task-1";
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Claim state unknown" });
    expect(a.lease.generation).toBe(1);
  });
});
