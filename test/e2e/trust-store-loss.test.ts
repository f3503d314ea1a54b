// After a store loss a superseded fleet holder's PR still fails, and a fleet login is still no person: evidence is rebuilt from signed claim comments.
import { beforeEach, describe, expect, it } from "vitest";
import {
  checkOf,
  type E2eWorld,
  fleet,
  installationId,
  repo,
  restartApp,
  shortConfig,
  worldsOnPrivateRedis,
  writer,
} from "../e2e/support/e2e-world.js";
import { probeRedis } from "../support/redis.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

function runOf(sha: string, r = repo) {
  const runs = world.sim.checkRuns(r, sha).filter((run) => run.name === "claim-hold");
  return runs.map((run) => ({ conclusion: run.conclusion, title: run.output.title, text: run.output.text }));
}

describe.skipIf(!redisProbe.available)("trust after a store loss: the merge fence and /reclaim", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  it("A: a fleet User's PR on a non-agent branch closing its superseded issue stays red after FLUSHALL + restart", async () => {
    const { sim } = world;
    const zombie = world.agent();
    const { lease } = await zombie.claim({ repo, issue: 1, actor: { sessionId: "z" } });
    const { sha } = sim.push({ repo, branch: "fix-1", login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: "fix-1", title: "Fix", body: "Fixes #1" });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Not attested by the current holder" });
    await zombie.attest(lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
    sim.comment({ repo, issue: 1, login: "alice", body: "/reclaim" });
    await sim.flush();
    expect(checkOf(sim, sha)).toMatchObject({ conclusion: "failure", title: "Superseded holder" });

    // Redis loses everything; a new process starts (deploy, crash).
    expect(await world.redis.flushall()).toBe("OK");
    await restartApp(world);
    const { sha: next } = sim.push({
      repo,
      branch: "fix-1",
      login: fleet.login,
      message: "zombie pushes again",
    });
    await sim.flush();
    // Reconcile, too, in case it rebuilds what is needed.
    await world.app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    const runs = runOf(next);
    console.log("A after store loss:", JSON.stringify(runs));
    expect(runs[0]?.conclusion).toBe("failure");
  });

  it("B: a PR closing another repository's superseded issue stays red after FLUSHALL", async () => {
    const { sim } = world;
    const tracker = "octo/tracker";
    sim.addRepo({
      fullName: tracker,
      id: 1296270,
      collaborators: { [fleet.login]: "write", alice: "maintain" },
      issues: [{ number: 1, title: "Tracked work" }],
    });
    sim.changeInstallationRepos(installationId, { add: [tracker] });
    await sim.flush();
    const zombie = world.agent();
    const { lease } = await zombie.claim({ repo: tracker, issue: 1, actor: { sessionId: "z" } });
    const branch = "agent/z/tracker-1";
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Tracked", body: `Fixes ${tracker}#1` });
    await sim.flush();
    await zombie.attest(lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
    sim.comment({ repo: tracker, issue: 1, login: "alice", body: "/reclaim" });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });

    expect(await world.redis.flushall()).toBe("OK");
    await world.app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    const { sha: next } = sim.push({ repo, branch, login: fleet.login, message: "zombie pushes again" });
    await sim.flush();
    const runs = runOf(next);
    console.log("B after store loss:", JSON.stringify(runs));
    expect(runs[0]?.conclusion).toBe("failure");
  });

  it("C: a zombie's PR on its own agent branch stays red after FLUSHALL when a person /reclaimed the issue (no restart)", async () => {
    const { sim } = world;
    const zombie = world.agent();
    const { lease } = await zombie.claim({ repo, issue: 1, actor: { sessionId: "z" } });
    const branch = lease.branch ?? "";
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Fix", body: "Fixes #1" });
    await sim.flush();
    await zombie.attest(lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
    sim.comment({ repo, issue: 1, login: "alice", body: "/reclaim release" });
    await sim.flush();
    expect(checkOf(sim, sha)).toMatchObject({ conclusion: "failure", title: "Superseded holder" });
    expect(await world.redis.flushall()).toBe("OK");
    const { sha: next } = sim.push({ repo, branch, login: fleet.login, message: "zombie pushes again" });
    await sim.flush();
    const runs = runOf(next);
    console.log("C after store loss:", JSON.stringify(runs));
    expect(runs[0]?.conclusion).toBe("failure");
  });

  it("D: cross-repo, agent takeover then FLUSHALL: the superseded session's PR before reconcile", async () => {
    const { sim, app } = world;
    const tracker = "octo/tracker";
    sim.addRepo({
      fullName: tracker,
      id: 1296270,
      collaborators: { [fleet.login]: "write", alice: "maintain" },
      issues: [{ number: 1, title: "Tracked work" }],
      files: { ".github/claim-hold.yml": shortConfig },
    });
    sim.changeInstallationRepos(installationId, { add: [tracker] });
    await sim.flush();
    const zombie = world.agent();
    const { lease } = await zombie.claim({ repo: tracker, issue: 1, actor: { sessionId: "z" } });
    const branch = "agent/z/tracker-1";
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Tracked", body: `Fixes ${tracker}#1` });
    await sim.flush();
    await zombie.attest(lease, sha);
    app.clock.now += 61_000;
    const taken = await world
      .agent()
      .claim({ repo: tracker, issue: 1, actor: { sessionId: "s" }, takeover: true });
    expect(taken.lease.generation).toBe(2);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    expect(await world.redis.flushall()).toBe("OK");
    const { sha: next } = sim.push({ repo, branch, login: fleet.login, message: "zombie pushes again" });
    await sim.flush();
    const runs = runOf(next);
    console.log("D after store loss:", JSON.stringify(runs));
    expect(runs[0]?.conclusion).toBe("failure");
  });

  it("E: a fleet User's PR on a non-agent branch, superseded by another agent login, after FLUSHALL + restart", async () => {
    const { sim } = world;
    const zombie = world.agent();
    const { lease } = await zombie.claim({ repo, issue: 1, actor: { sessionId: "z" } });
    const { sha } = sim.push({ repo, branch: "fix-1", login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: "fix-1", title: "Fix", body: "Fixes #1" });
    await sim.flush();
    await zombie.attest(lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
    world.app.clock.now += 61_000;
    const taken = await world
      .agent(writer.token)
      .claim({ repo, issue: 1, actor: { sessionId: "b" }, takeover: true });
    expect(taken.lease.generation).toBe(2);
    await sim.flush();
    expect(checkOf(sim, sha)).toMatchObject({ conclusion: "failure", title: "Superseded holder" });

    expect(await world.redis.flushall()).toBe("OK");
    await restartApp(world);
    const { sha: next } = sim.push({
      repo,
      branch: "fix-1",
      login: fleet.login,
      message: "zombie pushes again",
    });
    await sim.flush();
    const runs = runOf(next);
    console.log("E after store loss:", JSON.stringify(runs));
    expect(runs[0]?.conclusion).toBe("failure");
  });

  it("F: after FLUSHALL + restart the fleet account's /reclaim on an issue it never held is obeyed", async () => {
    const { sim } = world;
    await world.agent().claim({ repo, issue: 1, actor: { sessionId: "z" } });
    const bobs = await world.agent(writer.token).claim({ repo, issue: 2, actor: { sessionId: "b" } });
    await sim.flush();
    expect(await world.redis.flushall()).toBe("OK");
    await restartApp(world);
    await world.app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    // A prompt-injected session of the fleet account posts the command on #2.
    sim.comment({ repo, issue: 2, login: fleet.login, body: "/reclaim" });
    await sim.flush();
    const issue = sim.issue(repo, 2);
    console.log(
      "F issue #2:",
      JSON.stringify({
        assignees: issue.assignees,
        labels: issue.labels,
        last: issue.comments.at(-1)?.body.slice(0, 200),
      }),
    );
    expect(issue.comments.at(-1)?.body).toContain("`/reclaim` is for people");
    await expect(world.agent(writer.token).verify(bobs.lease)).resolves.toBeDefined();
  });
});
