// The claim-hold check of merge groups while Redis does not answer: every run completes, and the janitor re-evaluates them once it does.
import { afterEach, describe, expect, it } from "vitest";
import { startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type FakeTime, faultApp } from "../faults/support/fault-app.js";
import { agentClient, repo, seedWorld } from "../faults/support/world.js";
import { testCredentials } from "../support/app-harness.js";

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

function runOn(
  sim: {
    checkRuns(
      repo: string,
      sha?: string,
    ): {
      name: string;
      conclusion: string | null;
      output: { title: string | null; text: string | null };
      status: string;
    }[];
  },
  sha: string,
) {
  const runs = sim.checkRuns(repo, sha).filter((r) => r.name === "claim-hold");
  expect(runs).toHaveLength(1);
  const [run] = runs;
  return {
    status: run!.status,
    conclusion: run!.conclusion,
    title: run!.output.title,
    text: run!.output.text ?? "",
  };
}

describe("merge groups while Redis is down (a private redis-server, paused)", () => {
  it("completes each group's run — failure where an agent is involved, neutral for a person's PR — and re-evaluates them on recovery", {
    timeout: 60_000,
  }, async () => {
    const time: FakeTime = { wall: Date.parse("2026-11-29T10:00:00Z"), monotonic: 0 };
    const stack = await startLocalStack({
      redis: { kind: "private", keyPrefix: "mq:" },
      credentials: testCredentials(),
      startApp: faultApp({ time, githubTimeoutMs: 5_000 }),
    });
    stop = () => stack.stop();
    const { sim, app } = stack;
    const redis = stack.redis!.server!;
    seedWorld(sim);
    await sim.flush();
    const client = agentClient(app.url);
    const branch = "agent/a/1-work";
    const { lease } = await client.claim({ repo, issue: 1, actor: { sessionId: "a" }, branch });
    const { sha } = sim.push({ repo, branch, login: "fleet-bot", message: "work" });
    const agentPull = sim.openPull({
      repo,
      author: "fleet-bot",
      head: branch,
      title: "Work",
      body: "Closes #1",
    });
    // The person's PR closes #2 (never claimed): its verdict needs the store's record of #2.
    const humanPull = sim.openPull({ repo, author: "alice", head: "typo", title: "Typo", body: "Fixes #2" });
    await sim.flush();
    await client.attest(lease, sha);
    await sim.flush();

    redis.pause();
    let humanGroup: string;
    let bothGroup: string;
    try {
      // The person's PR heads the queue; the agent's PR is queued behind it (its group holds both).
      [humanGroup, bothGroup] = sim
        .enqueue({ repo, pulls: [humanPull.number, agentPull.number], login: "alice" })
        .map((g) => g.headSha) as [string, string];
      await sim.flush();
      expect(runOn(sim, humanGroup)).toMatchObject({
        status: "completed",
        conclusion: "neutral",
        title: "claim-hold could not evaluate",
      });
      expect(runOn(sim, bothGroup)).toMatchObject({
        status: "completed",
        conclusion: "failure",
        title: "claim-hold could not evaluate",
      });
      expect(runOn(sim, bothGroup).text).toMatch(/claim store \(Redis\) did not answer/);
      expect(runOn(sim, humanGroup).text).toMatch(/does not block the merge/);
    } finally {
      redis.resume();
    }

    // Redis answers again: the janitor's sweep re-runs both evaluations (remembered in the process
    // while the store was down) and writes their real verdicts on the same runs.
    await app.services.janitor.sweep();
    expect(runOn(sim, humanGroup)).toMatchObject({ conclusion: "success", title: "No agent claim involved" });
    expect(runOn(sim, bothGroup)).toMatchObject({
      conclusion: "success",
      title: `#${humanPull.number}: No agent claim involved`,
    });
    expect(runOn(sim, bothGroup).text).toContain(
      `| #${agentPull.number} | success | Attested by the current holder |`,
    );
  });
});
