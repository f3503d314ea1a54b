// GitHub requests per direct claim in the steady state: two (the read and the write), whatever the trust model reads.
import { afterEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, repo, startWorld, writer } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.skipIf(!redisProbe.available)("GitHub requests per direct claim", () => {
  it("K: steady-state direct claims cost two GitHub requests (plain, named branch, assigned to a person by hand)", async () => {
    world = await startWorld({ issues: [1, 2, 3, 4, 5, 6].map((n) => ({ number: n, title: `Task ${n}` })) });
    const { sim } = world;
    const agent = world.agent();
    await agent.claim({ repo, issue: 1, actor: { sessionId: "warm" } });
    await world.agent(writer.token).claim({ repo, issue: 6, actor: { sessionId: "warm-bob" } });
    await sim.flush();
    const counts: Record<string, unknown>[] = [];
    let mark = sim.requests.mark();
    await agent.claim({ repo, issue: 2, actor: { sessionId: "p" } });
    counts.push(sim.requests.counts(mark));
    mark = sim.requests.mark();
    await agent.claim({ repo, issue: 3, actor: { sessionId: "q" }, branch: "agent/q/3-x" });
    counts.push(sim.requests.counts(mark));
    // The fleet account assigned by hand to #4 (not human_held).
    sim.assign({ repo, issue: 4, login: "alice", assignees: ["fleet-bot"] });
    await sim.flush();
    mark = sim.requests.mark();
    await world
      .agent(writer.token)
      .claim({ repo, issue: 4, actor: { sessionId: "r" } })
      .catch((e) => e);
    counts.push(sim.requests.counts(mark));
    // A PR from a writer that does not close the issue, and a heartbeat reporting a PR.
    mark = sim.requests.mark();
    await agent.claim({ repo, issue: 5, actor: { sessionId: "s" }, takeover: false });
    counts.push(sim.requests.counts(mark));
    for (const c of counts) {
      const total = Object.values(c).reduce((a: number, b) => a + (b as number), 0);
      expect(total).toBeLessThanOrEqual(2);
    }
  });
});
