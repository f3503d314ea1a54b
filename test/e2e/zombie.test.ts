// End to end: a session that slept through its lease is fenced out of the merge by the claim-hold check run.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  checkOf,
  claimMarkers,
  type E2eWorld,
  fleet,
  maintainer,
  repo,
  startWorld,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("the zombie scenario through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("flips the check on supersede, refuses the zombie, passes the successor's attested head, and fails it again after /reclaim", async () => {
    const { sim, app } = world;
    const branch = "agent/A/1-task-1";
    const zombie = world.agent();
    const successor = world.agent();

    // 1. A claims, pushes, opens a PR closing #1, attests its head: success.
    const a = await zombie.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      branch,
    });
    const { sha: sha1 } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
    const pull = sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Task 1",
      body: "Closes #1",
    });
    await sim.flush();
    expect(checkOf(sim, sha1)).toEqual({
      conclusion: "failure",
      title: "Not attested by the current holder",
    });
    await zombie.attest(a.lease, sha1);
    await sim.flush();
    expect(checkOf(sim, sha1)).toEqual({ conclusion: "success", title: "Attested by the current holder" });

    // 2. A goes to sleep; B takes over after the ttl and the grace beat. The PR fails without any push.
    app.clock.now += 30_000;
    const b = await successor.claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "B" },
      takeover: true,
    });
    await sim.flush();
    expect(b).toMatchObject({ lease: { generation: 2, branch }, resume: { previousGeneration: 1 } });
    expect(checkOf(sim, sha1)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    expect(b.resume?.linkedPullRequests).toEqual([pull.number]);

    // 3. A wakes up: heartbeat, attest, verify and release all answer 409 superseded and change nothing.
    const mark = sim.requests.mark();
    for (const call of [
      () => zombie.heartbeat(a.lease),
      () => zombie.attest(a.lease, sha1),
      () => zombie.verify(a.lease),
      () => zombie.release(a.lease, { outcome: "handoff" }),
    ]) {
      await expect(call()).rejects.toMatchObject({
        status: 409,
        code: "superseded",
        details: { generation: 2 },
      });
    }
    expect(sim.requests.since(mark)).toEqual([]);

    // 4. A pushes anyway: its new head is not attested by the current generation.
    const { sha: sha2 } = sim.push({ repo, branch, login: fleet.login, message: "zombie push" });
    await sim.flush();
    expect(checkOf(sim, sha2)).toEqual({
      conclusion: "failure",
      title: "Not attested by the current holder",
    });

    // 5. B pushes on the same branch and attests: success.
    const { sha: sha3 } = sim.push({ repo, branch, login: fleet.login, message: "B's work" });
    await sim.flush();
    expect(checkOf(sim, sha3).conclusion).toBe("failure");
    await successor.attest(b.lease, sha3);
    await sim.flush();
    expect(checkOf(sim, sha3)).toEqual({ conclusion: "success", title: "Attested by the current holder" });

    // 6. A maintainer /reclaims: B is superseded by a human claim and the PR fails again.
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim" });
    await sim.flush();
    expect(checkOf(sim, sha3)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    expect(sim.issue(repo, 1).assignees).toEqual([maintainer.login]);
    expect(claimMarkers(sim, 1)).toEqual([
      { generation: 1, state: "superseded" },
      { generation: 2, state: "superseded" },
      { generation: 3, state: "active" },
    ]);
    await expect(successor.heartbeat(b.lease)).rejects.toMatchObject({
      status: 409,
      code: "superseded",
      details: { generation: 3, by: { kind: "human", login: maintainer.login } },
    });
  });
});
