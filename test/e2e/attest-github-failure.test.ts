// Attesting while GitHub's read of the PR fails: 502 github_failed (retry is safe), never 500, and the head still gets a completed run.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("attest when GitHub fails", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it.each([
    { name: "a 502", fault: { status: 502 } },
    {
      name: "GraphQL errors in a 200",
      fault: { status: 200, body: { errors: [{ type: "INTERNAL", message: "boom" }] } },
    },
  ])("answers 502 github_failed when the PR check read fails with $name", async ({ fault }) => {
    const { sim } = world;
    const agent = world.agent();
    const branch = "agent/a/1-task-1";
    const { lease } = await agent.claim({ repo, issue: 1, actor: { sessionId: "a" }, branch });
    const { sha } = sim.push({ repo, branch, login: fleet.login, message: "work" });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();
    sim.fail({ operation: "PullRequestCheck", ...fault });
    await expect(agent.attest(lease, sha)).rejects.toMatchObject({ status: 502, code: "github_failed" });
    // Retrying is safe: the attestation stands and the check turns green.
    await agent.attest(lease, sha);
    await sim.flush();
    const runs = sim.checkRuns(repo, sha).filter((r) => r.name === "claim-hold");
    expect(runs.at(-1)).toMatchObject({ conclusion: "success" });
  });
});
