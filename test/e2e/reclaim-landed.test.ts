// End to end, invariant 14: a re-claim whose write landed although its answer was lost still delivers the new token.
import { describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import { repo, worldsOnPrivateRedis } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
const actor = { runtime: "codex", sessionId: "R", sessionKey: "session-key-of-R".padEnd(40, "k") };

describe.skipIf(!redisProbe.available)("a re-claim whose answer was lost", () => {
  const worlds = worldsOnPrivateRedis();

  it("answers 200 with the token the comment names; the old one is rotated out; store loss keeps the lease", async () => {
    const { sim, redis } = worlds.world;
    const agent = worlds.world.agent();
    const first = await agent.claim({ repo, issue: 1, actor });
    // GitHub applies the re-claim's write, then the answer is lost.
    sim.fail({ operation: "ApplyTransition", status: 502, applied: true });
    const again = await agent.claim({ repo, issue: 1, actor });
    expect(again.lease.generation).toBe(1);
    expect(again.lease.token).not.toBe(first.lease.token);
    await expect(agent.heartbeat(first.lease)).rejects.toMatchObject({
      status: 409,
      details: { reason: "rotated" },
    });
    expect(await redis.flushall()).toBe("OK");
    expect(await agent.heartbeat(again.lease)).toMatchObject({ generation: 1, state: "active" });
  });
});
