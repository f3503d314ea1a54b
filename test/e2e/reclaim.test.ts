// End to end: `/reclaim` comments as people type them on the simulated GitHub, authorised and refused.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  fleet,
  maintainer,
  reader,
  repo,
  startWorld,
  writer,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("/reclaim through the simulator", () => {
  beforeEach(async () => {
    world = await startWorld({
      issues: [
        { number: 1, title: "Agent work" },
        { number: 2, title: "Alice's work", assignees: [maintainer.login] },
      ],
    });
  });
  afterEach(() => world.close());

  it("a writer reclaims a live agent claim: 👀, the agent's assignment replaced by the writer's, a reply, generation + 1", async () => {
    const { sim } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    const comment = sim.comment({ repo, issue: 1, login: writer.login, body: "/reclaim" });
    await sim.flush();
    const issue = sim.issue(repo, 1);
    expect(issue.assignees).toEqual([writer.login]);
    expect(issue.labels).toEqual([]);
    expect(issue.comments.find((c) => c.id === comment.id)?.reactions).toEqual(["eyes"]);
    expect(issue.comments.at(-1)).toMatchObject({
      author: "claim-hold[bot]",
      body: expect.stringContaining("@bob"),
    });
    expect(claimMarkers(sim, 1)).toEqual([
      { generation: 1, state: "superseded" },
      { generation: 2, state: "active" },
    ]);
    await expect(agent.verify(a.lease)).rejects.toMatchObject({ status: 409, code: "superseded" });
    // The human claim keeps the issue's title (the dashboard's row names it without asking GitHub).
    expect(await world.stores.claims.get({ installationId: 42, repoId: 1296269, issue: 1 })).toMatchObject({
      state: "human",
      title: "Agent work",
    });
    // A human claim keeps agents out.
    await expect(agent.claim({ repo, issue: 1, actor: { sessionId: "C" } })).rejects.toMatchObject({
      status: 409,
      code: "human_held",
    });
  });

  it("`/reclaim release` frees the subject for the queue: nobody assigned", async () => {
    const { sim } = world;
    await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim release" });
    await sim.flush();
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [], labels: [] });
    const next = await world.agent().claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "B" } });
    expect(next.lease.generation).toBe(3);
  });

  it("refuses a reader politely and changes nothing", async () => {
    const { sim } = world;
    const a = await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    const mark = sim.requests.mark();
    sim.comment({ repo, issue: 1, login: reader.login, body: "/reclaim" });
    await sim.flush();
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    expect(sim.issue(repo, 1).comments.at(-1)).toMatchObject({
      author: "claim-hold[bot]",
      body: expect.stringContaining("@carol"),
    });
    // The refusal is a reply, nothing else: one mutation that only adds a comment.
    expect(
      sim.requests.since(mark).flatMap((r) => (r.operationType === "mutation" ? [r.mutationFields] : [])),
    ).toEqual([["addComment"]]);
    expect(await world.agent().verify(a.lease)).toMatchObject({ holder: true, generation: 1 });
  });

  it("refuses a writer who is neither the assignee nor a maintainer on a human-held issue; the assignee may", async () => {
    const { sim } = world;
    sim.comment({ repo, issue: 2, login: writer.login, body: "/reclaim" });
    await sim.flush();
    expect(sim.issue(repo, 2).assignees).toEqual([maintainer.login]);
    expect(claimMarkers(sim, 2)).toEqual([]);

    sim.comment({ repo, issue: 2, login: maintainer.login, body: "/reclaim release" });
    await sim.flush();
    expect(sim.issue(repo, 2).assignees).toEqual([]);
  });
});
