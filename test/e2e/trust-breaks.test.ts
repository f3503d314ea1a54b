// The trust model's breaks, each tried from outside the App: the fleet's own account acting like a person, a person's branch.
import { afterEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  addTrackerRepo,
  checkOf,
  claimMarkers,
  type E2eWorld,
  fleet,
  installationId,
  reader,
  repo,
  restartApp,
  startWorld,
  writer,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const repoId = 1296269;

describe.skipIf(!redisProbe.available)("trust: who is an agent, whose branch, whose PR", () => {
  it("break 2: an agent cannot name a person's branch, and a claim that once named it does not judge the person's PR", async () => {
    world = await startWorld();
    const { sim } = world;
    const { sha: head } = sim.push({ repo, branch: "feature/login", login: writer.login, message: "login" });
    sim.openPull({ repo, author: writer.login, head: "feature/login", title: "Login", body: "Fixes #2" });
    await sim.flush();
    expect(checkOf(sim, head)).toEqual({ conclusion: "success", title: "No agent claim involved" });

    await expect(
      world.agent().claim({ repo, issue: 1, actor: { sessionId: "a" }, branch: "feature/login" }),
    ).rejects.toMatchObject({ status: 422, code: "branch_not_allowed" });
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [], labels: [] });
    expect(await world.stores.claims.get({ installationId, repoId, issue: 1 })).toBeNull();

    // A claim made before the globs were enforced named Bob's branch (the fence remembers it).
    await world.agent().claim({ repo, issue: 1, actor: { sessionId: "a" } });
    await world.fences.recordClaim(
      { installationId, repoId, issue: 1 },
      {
        generation: 1,
        actor: { kind: "agent", login: fleet.login, sessionId: "a" },
        branch: "feature/login",
      },
    );
    const { sha } = sim.push({ repo, branch: "feature/login", login: writer.login, message: "more" });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "No agent claim involved" });
  });

  it("break 2: a branch that heads another login's open PR is taken", async () => {
    world = await startWorld();
    const { sim } = world;
    sim.openPull({ repo, author: writer.login, head: "agent/bob/1-mine", title: "Mine", body: "" });
    await sim.flush();
    await expect(
      world.agent().claim({ repo, issue: 1, actor: { sessionId: "a" }, branch: "agent/bob/1-mine" }),
    ).rejects.toMatchObject({ status: 409, code: "branch_taken", details: { author: writer.login } });
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [], labels: [] });
  });

  it("break 3: `/reclaim` from the fleet's own account is refused inertly and the live claim stands", async () => {
    world = await startWorld();
    const { sim } = world;
    const victim = world.agent();
    const { lease } = await victim.claim({ repo, issue: 1, actor: { sessionId: "victim" } });
    await sim.flush();
    // Another session of the same account posts the command (a prompt injection is enough).
    const comment = sim.comment({ repo, issue: 1, login: fleet.login, body: "/reclaim" });
    await sim.flush();
    const issue = sim.issue(repo, 1);
    expect(issue).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);
    const reply = issue.comments.at(-1)!;
    expect(reply.author).toBe("claim-hold[bot]");
    expect(reply.id).not.toBe(comment.id);
    expect(reply.body).toContain("`/reclaim` is for people");
    expect(reply.body).not.toContain("@fleet-bot");
    const beat = await victim.heartbeat(lease);
    expect(beat.generation ?? lease.generation).toBe(1);
    await expect(victim.verify(lease)).resolves.toBeDefined();
  });

  it("break 3: the fleet login is known from its signed claim comment after the store forgot it", async () => {
    world = await startWorld();
    const { sim } = world;
    const { lease } = await world.agent().claim({ repo, issue: 1, actor: { sessionId: "victim" } });
    await sim.flush();
    // The store's fleet set and the process's memory are gone (a new App on a store that lost the set).
    await world.redis.del(`${world.prefix}{i:${installationId}}:fleet`);
    await restartApp(world);
    sim.comment({ repo, issue: 1, login: fleet.login, body: "/reclaim release" });
    await sim.flush();
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    await expect(world.agent().verify(lease)).resolves.toBeDefined();
  });

  it("break 5: one PR from a reader's fork closing #1…#5 empties nothing; a writer's PR from the repository still counts", async () => {
    world = await startWorld();
    const { sim } = world;
    const body = [1, 2, 3, 4, 5].map((n) => `Fixes #${n}`).join("\n");
    sim.openPull({ repo, author: reader.login, head: "patch-1", title: "All of it", body, fork: true });
    await sim.flush();
    const agent = world.agent();
    const picked = await agent.claimNext({ repo, actor: { sessionId: "n" } });
    // The oldest issue is offered although the outsider's PR "closes" it.
    expect(picked.lease.id).toBe("42.1296269.1.1");
    const direct = await agent.claim({ repo, issue: 3, actor: { sessionId: "d" } });
    expect(direct.lease.generation).toBe(1);
    const rows = await agent.inventory(repo);
    const row = rows.claims.find((r) => r.subject === `${repo}#3`);
    expect(row).toMatchObject({ linkedPullRequests: [], outsiderPullRequests: [{ author: reader.login }] });

    // A writer's PR from the repository itself blocks a direct claim as before.
    sim.openPull({ repo, author: writer.login, head: "bob-4", title: "Four", body: "Fixes #4" });
    await sim.flush();
    await expect(world.agent().claim({ repo, issue: 4, actor: { sessionId: "e" } })).rejects.toMatchObject({
      status: 409,
      code: "pr_open",
    });
  });
});

describe.skipIf(!redisProbe.available)("trust: closing references across repositories", () => {
  const tracker = "octo/tracker";

  it("break 7: a PR in octo/widgets closing octo/tracker#1 is fenced: green while attested, red once the holder is superseded", async () => {
    world = await startWorld();
    const { sim } = world;
    await addTrackerRepo(world);
    const zombie = world.agent();
    const { lease } = await zombie.claim({ repo: tracker, issue: 1, actor: { sessionId: "z" } });
    const branch = "agent/z/tracker-1";
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Tracked", body: `Fixes ${tracker}#1` });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Not attested by the current holder" });
    await zombie.attest(lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });

    sim.comment({ repo: tracker, issue: 1, login: "alice", body: "/reclaim" });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
  });

  it("says in the check that a closing reference to a repository it holds no claim in is not fenced", async () => {
    world = await startWorld();
    const { sim } = world;
    sim.addRepo({ fullName: tracker, id: 1296270, issues: [{ number: 1, title: "Elsewhere" }] });
    await sim.flush();
    const { sha } = sim.push({ repo, branch: "docs", login: writer.login, message: "docs" });
    sim.openPull({ repo, author: writer.login, head: "docs", title: "Docs", body: `Fixes ${tracker}#1` });
    await sim.flush();
    const [run] = sim.checkRuns(repo, sha).filter((r) => r.name === "claim-hold");
    expect(run).toMatchObject({ conclusion: "success" });
    expect(run!.output.text).toContain(`Also closes ${tracker}#1 in another repository`);
  });
});
