// The merge fence while Redis is paused: a superseded holder's PR fails closed on what GitHub shows, a person's unrelated PR does not.
import { afterEach, describe, expect, it } from "vitest";
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import { startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type FakeTime, faultApp } from "../faults/support/fault-app.js";
import { agentClient, repo, seedWorld } from "../faults/support/world.js";
import { testCredentials } from "../support/app-harness.js";

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

function checkOf(sim: GitHubSimulator, sha: string) {
  const runs = sim.checkRuns(repo, sha).filter((r) => r.name === "claim-hold");
  expect(runs).toHaveLength(1);
  return { conclusion: runs[0]!.conclusion, title: runs[0]!.output.title, text: runs[0]!.output.text ?? "" };
}

async function outageWorld() {
  const time: FakeTime = { wall: Date.parse("2026-12-01T10:00:00Z"), monotonic: 0 };
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "trust:" },
    credentials: testCredentials(),
    startApp: faultApp({ time, githubTimeoutMs: 5_000 }),
  });
  stop = () => stack.stop();
  seedWorld(stack.sim);
  stack.sim.addUser({ login: "bob", tokens: ["ghp_bob0000000000000000000000000000000003"] });
  stack.sim.setPermission(repo, "bob", "write");
  await stack.sim.flush();
  return { stack, sim: stack.sim, app: stack.app, redis: stack.redis!.server! };
}

describe("fail closed on evidence while the claim store does not answer", () => {
  it("a superseded holder's PR on a non-agent branch fails its merge group; a person's PR closing an unclaimed issue is neutral", {
    timeout: 60_000,
  }, async () => {
    const { sim, app, redis } = await outageWorld();
    const zombie = agentClient(app.url);
    const { lease } = await zombie.claim({ repo, issue: 1, actor: { sessionId: "z" } });
    // The fleet's User account pushes to a branch of its own naming, off the agent globs.
    const { sha } = sim.push({ repo, branch: "fix-1-parser", login: "fleet-bot", message: "work" });
    const zombiePull = sim.openPull({
      repo,
      author: "fleet-bot",
      head: "fix-1-parser",
      title: "Parser",
      body: "Closes #1",
    });
    const personPull = sim.openPull({
      repo,
      author: "bob",
      head: "docs-typo",
      title: "Typo",
      body: "Fixes #2",
    });
    await sim.flush();
    await zombie.attest(lease, sha);
    sim.comment({ repo, issue: 1, login: "alice", body: "/reclaim" });
    await sim.flush();
    expect(checkOf(sim, sha)).toMatchObject({ conclusion: "failure", title: "Superseded holder" });

    redis.pause();
    let personGroup: string;
    let zombieGroup: string;
    try {
      [personGroup, zombieGroup] = sim
        .enqueue({ repo, pulls: [personPull.number, zombiePull.number], login: "alice" })
        .map((g) => g.headSha) as [string, string];
      await sim.flush();
      expect(checkOf(sim, zombieGroup)).toMatchObject({
        conclusion: "failure",
        title: "claim-hold could not evaluate",
      });
      expect(checkOf(sim, personGroup)).toMatchObject({
        conclusion: "neutral",
        title: "claim-hold could not evaluate",
      });
      expect(checkOf(sim, personGroup).text).toContain("GitHub shows no agent claim involved");
    } finally {
      redis.resume();
    }
    await app.services.janitor.sweep();
    expect(checkOf(sim, personGroup)).toMatchObject({
      conclusion: "success",
      title: "No agent claim involved",
    });
    expect(checkOf(sim, zombieGroup)).toMatchObject({ conclusion: "failure" });
  });

  it("a person's PR closing a claimed issue fails closed: the issue shows claim-hold's label and claim comment", {
    timeout: 60_000,
  }, async () => {
    const { sim, app, redis } = await outageWorld();
    await agentClient(app.url).claim({ repo, issue: 1, actor: { sessionId: "z" } });
    const pull = sim.openPull({ repo, author: "bob", head: "bob-fix", title: "Fix", body: "Fixes #1" });
    await sim.flush();
    redis.pause();
    try {
      const [group] = sim.enqueue({ repo, pulls: [pull.number], login: "alice" });
      await sim.flush();
      expect(checkOf(sim, group!.headSha)).toMatchObject({
        conclusion: "failure",
        title: "claim-hold could not evaluate",
      });
      expect(checkOf(sim, group!.headSha).text).toContain(
        "linked issue with claim-hold's labels or claim comments",
      );
    } finally {
      redis.resume();
    }
  });
});
