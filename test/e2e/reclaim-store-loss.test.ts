// End to end, invariants 3 and 7: a /reclaim whose write GitHub refused leaves nothing a store loss could take back.
import { beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  fleet,
  maintainer,
  repo,
  worldsOnPrivateRedis,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

/** Each answer a lease call got: 200, or the refusal's status and code. */
async function answerOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "200";
  } catch (error) {
    const { status, code } = error as { status?: number; code?: string };
    return `${status} ${code}`;
  }
}

describe.skipIf(!redisProbe.available)("a refused /reclaim, then the store is lost", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  it("the agent's token is never refused as superseded and then accepted again: the human claim GitHub never saw is rolled back", async () => {
    const { sim, stores } = world;
    const agent = world.agent();
    const claimed = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    const [installationId, repoId] = claimed.lease.id.split(".").map(Number);
    const key = { installationId: installationId!, repoId: repoId!, issue: 1 };

    // GitHub refuses the reclaim's one batched write (a GraphQL answer listing errors: definitely
    // refused): none of it lands. A 5xx would say nothing of whether it lands later, and the human
    // claim would be kept pending for reconcile instead.
    sim.fail({
      operation: "ApplyTransition",
      status: 200,
      body: {
        data: null,
        errors: [{ type: "FORBIDDEN", message: "Resource not accessible by integration" }],
      },
    });
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim" });
    await sim.flush();
    const [delivery] = sim
      .deliveries({ event: "issue_comment", action: "created" })
      .filter((d) => JSON.stringify(d.payload).includes("/reclaim"));
    expect(delivery?.responseStatus).toBeGreaterThanOrEqual(500);
    // GitHub still shows generation 1 as the claim in force.
    expect(sim.issue(repo, 1)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
    expect(claimMarkers(sim, 1)).toEqual([{ generation: 1, state: "active" }]);

    // Before the store is lost and after, the same token gets the same answer (invariant 3: a
    // token told `superseded` is never accepted later). Kept only in the store, the human claim
    // answered `409 superseded` first, then the lease came back from its comment: `200`.
    const answers = [await answerOf(agent.heartbeat(claimed.lease))];
    expect(await world.redis.flushall()).toBe("OK");
    answers.push(await answerOf(agent.heartbeat(claimed.lease)));
    expect(answers).toEqual(["200", "200"]);
    expect(await stores.claims.get(key)).toMatchObject({ generation: 1, state: "active" });

    // The same comment delivered again reclaims for real.
    sim.webhooks.redeliver(delivery!.seq);
    await sim.flush();
    const reclaimed = await stores.claims.get(key);
    expect(reclaimed).toMatchObject({ state: "human", actor: { login: maintainer.login } });
    expect(reclaimed!.generation).toBeGreaterThan(1);
    expect(await answerOf(agent.heartbeat(claimed.lease))).toBe("409 superseded");
    // Now GitHub shows it: a second store loss brings the human claim back, never the agent's lease.
    expect(await world.redis.flushall()).toBe("OK");
    expect(await answerOf(agent.heartbeat(claimed.lease))).toBe("409 superseded");
    expect(sim.issue(repo, 1).assignees).toEqual([maintainer.login]);
  });

  it("a /reclaim whose write landed although GitHub's answer was lost is kept", async () => {
    const { sim, stores } = world;
    const agent = world.agent();
    const claimed = await agent.claim({ repo, issue: 2, actor: { runtime: "codex", sessionId: "B" } });
    await sim.flush();
    const [installationId, repoId] = claimed.lease.id.split(".").map(Number);
    const key = { installationId: installationId!, repoId: repoId!, issue: 2 };

    sim.fail({ operation: "ApplyTransition", status: 502, applied: true });
    sim.comment({ repo, issue: 2, login: maintainer.login, body: "/reclaim" });
    await sim.flush();
    expect(await stores.claims.get(key)).toMatchObject({ generation: 2, state: "human", sync: "done" });
    expect(claimMarkers(sim, 2)).toEqual([
      { generation: 1, state: "superseded" },
      { generation: 2, state: "active" },
    ]);
    expect(await answerOf(agent.heartbeat(claimed.lease))).toBe("409 superseded");
    expect(await world.redis.flushall()).toBe("OK");
    expect(await answerOf(agent.heartbeat(claimed.lease))).toBe("409 superseded");
  });
});
