// End to end over HTTP: an agent claims, heartbeats, opens a PR, attests its head, and releases.
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

describe.skipIf(!redisProbe.available)("the happy path through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("claim → heartbeat → PR → attest → check success → release, with GitHub written only at transitions", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const branch = "agent/s1/1-task-1";

    const claimed = await agent.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "s1", host: "build-1" },
      branch,
    });
    await sim.flush();
    expect(claimed).toMatchObject({
      created: true,
      lease: { generation: 1, subject: `${repo}#1`, ttlSeconds: 30 },
    });
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);

    // Heartbeats touch Redis only: not one GitHub request, whatever the number.
    let mark = sim.requests.mark();
    for (let beat = 0; beat < 3; beat++) {
      app.clock.now += 10_000;
      expect(await agent.heartbeat(claimed.lease)).toMatchObject({ generation: 1, state: "active" });
    }
    expect(sim.requests.since(mark)).toEqual([]);

    // The agent pushes and opens a PR closing #1: the head is not attested yet.
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "fix" });
    const pull = sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Fix task 1",
      body: "Closes #1",
    });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Not attested by the current holder" });

    // The holder attests its head: the check passes.
    expect(await agent.attest(claimed.lease, sha)).toMatchObject({ attested: true, sha, generation: 1 });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
    expect(await agent.verify(claimed.lease)).toMatchObject({ holder: true, generation: 1 });

    // Merged, then released as completed: assignment and label gone, the claim comment says so.
    sim.closePull(repo, pull.number, maintainer.login, { merge: true });
    await sim.flush();
    mark = sim.requests.mark();
    expect(await agent.release(claimed.lease, { outcome: "completed", note: "merged" })).toBeTruthy();
    await sim.flush();
    const released = sim.issue(repo, 1);
    expect(released.assignees).toEqual([]);
    expect(released.labels).toEqual([]);
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "completed" }]);
    // Release: one batched mutation (at most 2 GitHub requests: docs/benchmarks.md#c-github-requests-per-transition);
    // the merged PR's check is not re-run.
    expect(sim.requests.counts(mark)).toEqual({ "graphql:ApplyTransition": 1 });

    // Released is final: the lease is gone for its holder.
    await expect(agent.heartbeat(claimed.lease)).rejects.toMatchObject({ status: 410, code: "gone" });

    // With the authentication caches warm, the next claim costs one read and one batched mutation
    // (docs/benchmarks.md#c-github-requests-per-transition).
    mark = sim.requests.mark();
    const next = await agent.claim({ repo, issue: 2, actor: { runtime: "claude-code", sessionId: "s1" } });
    expect(next).toMatchObject({ created: true, lease: { generation: 1, subject: `${repo}#2` } });
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 1, "graphql:ApplyTransition": 1 });
  });
});
