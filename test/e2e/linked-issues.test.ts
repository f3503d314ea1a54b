// End to end: a PR's linked issues are the ones GitHub links (closingIssuesReferences), URL references and manual links included.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { checkOf, type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("linked issues through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("`Fixes https://github.com/octo/widgets/issues/1` on a branch no claim names fences the PR: the superseded holder fails", async () => {
    const { sim, app } = world;
    const zombie = world.agent();
    const successor = world.agent();
    const a = await zombie.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      branch: "agent/A/1-task-1",
    });
    // The work lands on another branch: only the PR body's URL reference links it to #1.
    const branch = "feature/parser";
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
    const mark = sim.requests.mark();
    sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Parser",
      body: `Fixes https://github.com/${repo}/issues/1`,
    });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Not attested by the current holder" });
    // One read (closing references and the App's check run together), one write.
    expect(sim.requests.counts(mark)).toEqual({
      "graphql:PullRequestCheck": 1,
      "POST /repos/{owner}/{repo}/check-runs": 1,
    });

    await zombie.attest(a.lease, sha);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });

    app.clock.now += 30_000;
    await successor.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" }, takeover: true });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
  });

  it("an issue linked by hand in the Development sidebar counts too, from the next evaluation on", async () => {
    const { sim } = world;
    const holder = world.agent();
    await holder.claim({
      repo,
      issue: 2,
      actor: { runtime: "codex", sessionId: "C" },
      branch: "agent/C/2-x",
    });
    const branch = "feature/untold";
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    const pull = sim.openPull({
      repo,
      author: fleet.login,
      head: branch,
      title: "Untold",
      body: "No keywords.",
    });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "No agent claim involved" });

    sim.linkIssue(repo, pull.number, 2);
    const run = sim.checkRuns(repo, sha)[0]!;
    sim.rerequestCheckRun(run.id, fleet.login);
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Not attested by the current holder" });
  });
});
