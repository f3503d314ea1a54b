// End to end: CLAIM_HOLD_TOKEN_SECRET rotated with the old one as CLAIM_HOLD_TOKEN_SECRET_PREVIOUS loses no live claim.
import { beforeEach, describe, expect, it } from "vitest";
import { testTokenSecret } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, repo, restartApp, worldsOnPrivateRedis } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
const newSecret = "n".repeat(48);
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("rotating the token secret", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  it("keeps leases and markers of the old secret valid while it is the previous one, store loss included", async () => {
    const { lease } = await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "R" } });
    await restartApp(world, { tokenSecret: newSecret, previousTokenSecret: testTokenSecret });
    let agent = world.agent();

    expect(await agent.heartbeat(lease)).toMatchObject({ generation: 1, state: "active" });
    expect(await agent.verify(lease)).toMatchObject({ holder: true, generation: 1 });
    // The store forgets everything: the marker signed with the old secret still verifies and restores.
    expect(await world.redis.flushall()).toBe("OK");
    expect(await agent.heartbeat(lease)).toMatchObject({ generation: 1, state: "active" });
    await expect(
      agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "O" } }),
    ).rejects.toMatchObject({ status: 409, code: "held" });
    await agent.release(lease, { outcome: "completed" });
    // A new claim is minted and signed under the new secret alone.
    const next = await agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "O" } });
    expect(next.lease.generation).toBe(2);
    await restartApp(world, { tokenSecret: newSecret });
    agent = world.agent();
    expect(await agent.heartbeat(next.lease)).toMatchObject({ generation: 2 });
  });

  it("without the previous secret, old markers are not trusted: the subject fails closed after store loss", async () => {
    await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "R" } });
    await restartApp(world, { tokenSecret: newSecret });
    const agent = world.agent();
    expect(await world.redis.flushall()).toBe("OK");
    await expect(
      agent.claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "O" } }),
    ).rejects.toMatchObject({ status: 503, code: "claim_state_unknown" });
  });
});
