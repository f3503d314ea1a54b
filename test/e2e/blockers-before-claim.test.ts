// A direct claim knows an issue's open blockers before it decides, even when the index missed the dependency's webhook.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, maintainer, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("blockers before a direct claim", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  /** #2 becomes blocked by #1, and the `issue_dependencies` webhook is lost: the index does not know. */
  async function blockedWithoutWebhook() {
    const { sim } = world;
    sim.webhooks.hold();
    sim.setBlockedBy({ repo, issue: 2, blockedBy: 1, login: maintainer.login });
    expect(sim.webhooks.drop()).toBeGreaterThan(0);
    sim.webhooks.release();
    await sim.flush();
  }

  it("a fresh index is trusted: the steady state costs the claim its two GitHub requests", async () => {
    const { sim } = world;
    // The first call resolves the token and the installation (cached afterwards).
    await world.agent().claim({ repo, issue: 4, actor: { sessionId: "w" } });
    const mark = sim.requests.mark();
    await world.agent().claim({ repo, issue: 3, actor: { sessionId: "s" } });
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 1, "graphql:ApplyTransition": 1 });
  });

  it("an index older than queue.maxIndexAge (15 min) is refreshed first, so the dropped dependency answers 409 blocked", async () => {
    const { sim, app } = world;
    await world.agent().claim({ repo, issue: 4, actor: { sessionId: "w" } });
    await blockedWithoutWebhook();
    app.clock.now += 16 * 60_000;
    await expect(world.agent().claim({ repo, issue: 2, actor: { sessionId: "s" } })).rejects.toMatchObject({
      status: 409,
      code: "blocked",
      details: { blockers: [{ subject: `${repo}#1`, state: "open" }] },
    });
    expect(sim.issue(repo, 2)).toMatchObject({ assignees: [], labels: [] });
    // The refresh is not repeated within the next 15 minutes: the next claim costs its two requests.
    const mark = sim.requests.mark();
    await world.agent().claim({ repo, issue: 3, actor: { sessionId: "t" } });
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 1, "graphql:ApplyTransition": 1 });
  });
});
