// End to end: webhooks redelivered (same GUID) and delivered out of order change nothing twice and end consistent.
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

describe.skipIf(!redisProbe.available)("webhook redelivery and reordering through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("a redelivered /reclaim and a redelivered pull_request.opened act once; an unchanged verdict costs one read", async () => {
    const { sim } = world;
    const branch = "agent/A/1-task-1";
    await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" }, branch });
    const { sha } = sim.push({ repo, branch, login: fleet.login });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim" });
    await sim.flush();
    expect(claimMarkers(sim, 1).at(-1)).toEqual({ generation: 2, state: "active" });
    // The human holder continues on the agent's branch: the unattested head fails (rule 6).
    const verdict = { conclusion: "failure", title: "Not attested by the current holder" };
    expect(checkOf(sim, sha)).toEqual(verdict);
    expect(sim.checkRuns(repo, sha)[0]?.output.text).toContain(
      "@alice holds octo/widgets#1 now (generation 2)",
    );
    const commentsBefore = sim.issue(repo, 1).comments.length;

    const [reclaim] = sim
      .deliveries({ event: "issue_comment", action: "created" })
      .filter((d) => JSON.stringify(d.payload).includes("/reclaim"));
    const [opened] = sim.deliveries({ event: "pull_request", action: "opened" });
    const mark = sim.requests.mark();
    sim.webhooks.redeliver(reclaim!.seq);
    sim.webhooks.redeliver(opened!.seq);
    await sim.flush();
    expect(
      sim
        .deliveries()
        .filter((d) => d.redeliveryOf)
        .map((d) => d.responseStatus),
    ).toEqual([200, 200]);
    expect(sim.issue(repo, 1).comments).toHaveLength(commentsBefore);
    expect(claimMarkers(sim, 1).at(-1)).toEqual({ generation: 2, state: "active" });
    // The redelivered PR event re-reads its check (closing references and run in one query), writes nothing.
    expect(sim.requests.counts(mark)).toEqual({ "graphql:PullRequestCheck": 1 });
    expect(checkOf(sim, sha)).toEqual(verdict);
  });

  it("the App's own claim and release webhooks arriving in reverse order leave GitHub and the store consistent", async () => {
    const { sim } = world;
    const agent = world.agent();
    sim.webhooks.hold();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await agent.release(a.lease, { outcome: "abandoned" });
    const pending = sim.webhooks.pending();
    expect(pending.map((d) => `${d.event}.${d.action}`)).toEqual(
      expect.arrayContaining(["issues.assigned", "issues.labeled", "issues.unassigned", "issues.unlabeled"]),
    );
    sim.webhooks.reorder(pending.map((d) => d.seq).reverse());
    sim.webhooks.release();
    await sim.flush();
    expect(sim.deliveries().filter((d) => d.status !== "delivered")).toEqual([]);
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [], labels: [] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "released" }]);
    const next = await world.agent().claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "B" } });
    expect(next).toMatchObject({ created: true, lease: { generation: 2 }, resume: null });
  });

  it("two pushes whose synchronize events arrive in reverse order each get their own verdict", async () => {
    const { sim } = world;
    const branch = "agent/A/1-task-1";
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" }, branch });
    sim.push({ repo, branch, login: fleet.login });
    sim.openPull({ repo, author: fleet.login, head: branch, title: "Task 1", body: "Closes #1" });
    await sim.flush();

    sim.webhooks.hold();
    const { sha: older } = sim.push({ repo, branch, login: fleet.login, message: "older" });
    const { sha: newer } = sim.push({ repo, branch, login: fleet.login, message: "newer" });
    await agent.attest(a.lease, newer);
    const pending = sim.webhooks.pending();
    sim.webhooks.reorder(pending.map((d) => d.seq).reverse());
    sim.webhooks.release();
    await sim.flush();
    expect(checkOf(sim, newer)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
    expect(checkOf(sim, older)).toEqual({
      conclusion: "failure",
      title: "Not attested by the current holder",
    });
  });
});
