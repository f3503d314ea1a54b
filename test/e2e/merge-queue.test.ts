// End to end: the merge queue asks for claim-hold on each merge group (signed merge_group webhooks) and the fence answers at the merge.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LoggedRequest } from "../../tools/github-sim/index.js";
import { probeRedis } from "../support/redis.js";
import { checkOf, type E2eWorld, fleet, maintainer, repo, startWorld, writer } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;
const branch = "agent/A/1-task-1";

/** What the App asked GitHub, named like the simulator's log: GraphQL by operation, REST by route. */
function asked(requests: LoggedRequest[]): string[] {
  return requests.filter((r) => !r.path.includes("access_tokens")).map((r) => r.operationName ?? r.route);
}

/** An agent's PR closing #1 with its head attested by the claim's holder, and a person's PR linked to nothing. */
async function attestedAgentPullAndHumanPull() {
  const { sim } = world;
  const zombie = world.agent();
  const a = await zombie.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" }, branch });
  const { sha } = sim.push({ repo, branch, login: fleet.login, message: "A's work" });
  const agentPull = sim.openPull({
    repo,
    author: fleet.login,
    head: branch,
    title: "Task 1",
    body: "Closes #1",
  });
  const humanPull = sim.openPull({ repo, author: writer.login, head: "docs-typo", title: "Fix a typo" });
  await sim.flush();
  await zombie.attest(a.lease, sha);
  await sim.flush();
  expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
  return { zombie, lease: a.lease, sha, agentPull, humanPull };
}

describe.skipIf(!redisProbe.available)("the merge queue and the claim-hold check", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("passes a group whose PRs are attested, and fails the next group once the holder was superseded after queueing", async () => {
    const { sim, app } = world;
    const { agentPull, humanPull, sha } = await attestedAgentPullAndHumanPull();

    // 1. Both PRs are queued: the human's PR first, the agent's behind it (its group holds both).
    const mark = sim.requests.mark();
    const [humanGroup, bothGroup] = sim.enqueue({
      repo,
      pulls: [humanPull.number, agentPull.number],
      login: maintainer.login,
    });
    await sim.flush();
    const deliveries = sim.deliveries({ event: "merge_group" });
    expect(deliveries.map((d) => [d.action, d.responseStatus])).toEqual([
      ["checks_requested", 200],
      ["checks_requested", 200],
    ]);
    expect(checkOf(sim, humanGroup!.headSha)).toEqual({
      conclusion: "success",
      title: "No agent claim involved",
    });
    expect(checkOf(sim, bothGroup!.headSha)).toEqual({
      conclusion: "success",
      title: `#${humanPull.number}: No agent claim involved`,
    });
    // One read (the queue and the run on the group head) and one write per group evaluation.
    expect(asked(sim.requests.since(mark))).toEqual([
      "MergeGroupCheck",
      "POST /repos/{owner}/{repo}/check-runs",
      "MergeGroupCheck",
      "POST /repos/{owner}/{repo}/check-runs",
    ]);
    const [run] = sim.checkRuns(repo, bothGroup!.headSha);
    expect(run!.output.text).toContain(`| #${agentPull.number} | success | Attested by the current holder |`);

    // 2. While queued, B takes #1 over from the sleeping A. The PR's own head fails at once.
    app.clock.now += 30_000;
    await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "B" }, takeover: true });
    await sim.flush();
    expect(checkOf(sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });

    // 3. The human's PR leaves the queue: the agent's group is rebuilt, and its next group fails.
    const again = sim.requests.mark();
    const [rebuilt] = sim.dequeue({ repo, number: humanPull.number, login: maintainer.login });
    await sim.flush();
    expect(rebuilt!.headSha).not.toBe(bothGroup!.headSha);
    expect(checkOf(sim, rebuilt!.headSha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    expect(sim.checkRuns(repo, rebuilt!.headSha)[0]!.output.text).toMatch(
      /generation 1 \(.*\) was superseded by .*generation 2/,
    );
    expect(asked(sim.requests.since(again))).toEqual([
      "MergeGroupCheck",
      "POST /repos/{owner}/{repo}/check-runs",
    ]);
  });

  it("answers a redelivered merge_group by reading the run it wrote and writing nothing", async () => {
    const { sim } = world;
    const { agentPull } = await attestedAgentPullAndHumanPull();
    const [group] = sim.enqueue({ repo, pulls: [agentPull.number], login: maintainer.login });
    await sim.flush();
    const [delivery] = sim.deliveries({ event: "merge_group" });
    const mark = sim.requests.mark();
    sim.webhooks.redeliver(delivery!.seq);
    await sim.flush();
    expect(asked(sim.requests.since(mark))).toEqual(["MergeGroupCheck"]);
    expect(sim.checkRuns(repo, group!.headSha).map((r) => r.conclusion)).toEqual(["success"]);
  });

  it("completes the group's run when GitHub fails the read (an agent may be involved: failure), and the janitor re-runs it", async () => {
    const { sim, app } = world;
    const { agentPull } = await attestedAgentPullAndHumanPull();
    sim.fail({ operation: "MergeGroupCheck", status: 502, times: 1 });
    const [group] = sim.enqueue({ repo, pulls: [agentPull.number], login: maintainer.login });
    await sim.flush();
    expect(checkOf(sim, group!.headSha)).toEqual({
      conclusion: "failure",
      title: "claim-hold could not evaluate",
    });
    const [failed] = sim.checkRuns(repo, group!.headSha);
    expect(failed!.status).toBe("completed");
    expect(failed!.output.text).toMatch(/fails closed/);
    expect(failed!.output.text).toMatch(/HTTP 502/);

    // GitHub answers again: the next sweep re-evaluates the group.
    const mark = sim.requests.mark();
    await app.services.janitor.sweep();
    expect(checkOf(sim, group!.headSha)).toEqual({
      conclusion: "success",
      title: "Attested by the current holder",
    });
    expect(asked(sim.requests.since(mark))).toEqual([
      "MergeGroupCheck",
      "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
    ]);
    // Finished: a further sweep has nothing left to re-run.
    const after = sim.requests.mark();
    await app.services.janitor.sweep();
    expect(asked(sim.requests.since(after)).filter((r) => r === "MergeGroupCheck")).toEqual([]);
  });

  it("completes a PR head's run when GitHub fails its read, neutral for a person's PR, and re-runs it on recovery", async () => {
    const { sim, app } = world;
    sim.fail({ operation: "PullRequestCheck", status: 503, times: 1 });
    const human = sim.openPull({ repo, author: writer.login, head: "docs-typo", title: "Fix a typo" });
    await sim.flush();
    const head = sim.issue(repo, human.number);
    const [run] = sim.checkRuns(repo).filter((r) => r.name === "claim-hold");
    expect(head.isPullRequest).toBe(true);
    expect({ conclusion: run!.conclusion, title: run!.output.title }).toEqual({
      conclusion: "neutral",
      title: "claim-hold could not evaluate",
    });
    expect(run!.output.text).toMatch(/does not block the merge/);
    await app.services.janitor.sweep();
    expect(checkOf(sim, run!.headSha)).toEqual({ conclusion: "success", title: "No agent claim involved" });
  });

  it("posts in_progress first when a linked subject must be read from GitHub, then completes the same run", async () => {
    const { sim } = world;
    // The PR's own event never arrived, so the group is the first to meet #2 (no record, no memo).
    sim.webhooks.dropNext(1, { event: "pull_request" });
    const human = sim.openPull({
      repo,
      author: writer.login,
      head: "docs-typo",
      title: "Typo",
      body: "Fixes #2",
    });
    await sim.flush();
    const mark = sim.requests.mark();
    const [group] = sim.enqueue({ repo, pulls: [human.number], login: maintainer.login });
    await sim.flush();
    expect(asked(sim.requests.since(mark))).toEqual([
      "MergeGroupCheck",
      "POST /repos/{owner}/{repo}/check-runs",
      "SubjectStatus",
      "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
    ]);
    const runEvents = sim
      .deliveries({ event: "check_run" })
      .filter((d) => (d.payload as { check_run: { head_sha: string } }).check_run.head_sha === group!.headSha)
      .map((d) => `${d.action}:${(d.payload as { check_run: { status: string } }).check_run.status}`);
    expect(runEvents).toEqual(["created:in_progress", "completed:completed"]);
    expect(checkOf(sim, group!.headSha)).toEqual({ conclusion: "success", title: "No agent claim involved" });
  });
});
