// End to end: a /reclaim whose GitHub write failed after the store changed (and could not be told landed or not), delivered again, does not act twice.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  claimMarkers,
  type E2eWorld,
  failWriteAndReadBack,
  maintainer,
  repo,
  startWorld,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("a /reclaim redelivered after its write failed", () => {
  beforeEach(async () => {
    world = await startWorld({ issues: [{ number: 1, title: "Agent work" }] });
  });
  afterEach(() => world.close());

  it("the store's human claim is made once: neither a redelivery nor a new delivery of the comment changes a generation or posts more", async () => {
    const { sim, stores } = world;
    const claimed = await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    // The store takes the human claim, then GitHub refuses the one batched write, and the read
    // that would tell whether it landed fails too: the claim stays pending (refused and seen absent,
    // it is rolled back instead: reclaim-store-loss.test.ts).
    failWriteAndReadBack(sim);
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim" });
    await sim.flush();
    const [failed] = sim
      .deliveries({ event: "issue_comment", action: "created" })
      .filter((d) => JSON.stringify(d.payload).includes("/reclaim"));
    expect(failed?.responseStatus).toBeGreaterThanOrEqual(500);
    // Lease ids are installation.repository.issue.generation.
    const [installationId, repoId] = claimed.lease.id.split(".").map(Number);
    const key = { installationId: installationId!, repoId: repoId!, issue: 1 };
    const afterFailure = await stores.claims.get(key);
    expect(afterFailure).toMatchObject({ generation: 2, state: "human", sync: "pending" });
    const commentsBefore = sim.issue(repo, 1).comments.length;

    // Redelivered (same GUID), and the same comment delivered again under a new delivery id.
    sim.webhooks.redeliver(failed!.seq);
    sim.webhooks.enqueue("issue_comment", failed!.payload);
    await sim.flush();
    expect(await stores.claims.get(key)).toMatchObject({ generation: 2, state: "human" });
    expect((await stores.claims.history(key)).filter((t) => t.generation > 2)).toEqual([]);
    expect(sim.issue(repo, 1).comments.length).toBe(commentsBefore);
    expect(claimMarkers(sim, 1).map((m) => m.generation)).not.toContain(3);
  });
});
