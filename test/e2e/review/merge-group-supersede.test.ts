// Review: a holder superseded after its PR's merge group passed must fail that group, not only its PR head.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { checkOf, type E2eWorld, fleet, maintainer, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;
const branch = "agent/A/1-task-1";

describe.skipIf(!redisProbe.available)("a merge group that passed before its holder was superseded", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("fails once the holder is taken over while the group waits in the queue", async () => {
    const { sim, app } = world;
    const zombie = world.agent();
    const a = await zombie.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      branch,
    });
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
    const pull = sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Task 1",
      body: "Closes #1",
    });
    await sim.flush();
    await zombie.attest(a.lease, sha);
    await sim.flush();
    const [group] = sim.enqueue({ repo, pulls: [pull.number], login: maintainer.login });
    await sim.flush();
    expect(checkOf(sim, group!.headSha)).toEqual({
      conclusion: "success",
      title: "Attested by the current holder",
    });

    // While the group waits, B takes #1 over from the sleeping A.
    app.clock.now += 30_000;
    await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" }, takeover: true });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    // The group still in the queue holds the superseded holder's PR: it must not stay green.
    expect(checkOf(sim, group!.headSha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
  });

  it("a group that left the queue is read once and not written when its holder changes later", async () => {
    const { sim, app } = world;
    const zombie = world.agent();
    const a = await zombie.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      branch,
    });
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
    const pull = sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Task 1",
      body: "Closes #1",
    });
    await sim.flush();
    await zombie.attest(a.lease, sha);
    await sim.flush();
    const [group] = sim.enqueue({ repo, pulls: [pull.number], login: maintainer.login });
    await sim.flush();
    sim.dequeue({ repo, number: pull.number, login: maintainer.login });
    await sim.flush();
    const runs = sim.checkRuns(repo, group!.headSha).length;
    const mark = sim.requests.mark();
    app.clock.now += 30_000;
    await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" }, takeover: true });
    await sim.flush();
    expect(checkOf(sim, group!.headSha)).toEqual({
      conclusion: "success",
      title: "Attested by the current holder",
    });
    expect(sim.checkRuns(repo, group!.headSha)).toHaveLength(runs);
    expect(sim.requests.since(mark).filter((r) => r.operationName === "MergeGroupCheck")).toHaveLength(1);
  });
});
