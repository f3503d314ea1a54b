// Review reproduction, invariant 14: a takeover intent belongs to the session that made it, not to its public id.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;
const keyOf = (name: string) => `session-key-of-${name}`.padEnd(40, "k");

describe.skipIf(!redisProbe.available)("review: unproven session ids", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("once broke: a session naming another's public sessionId rode that session's takeover intent", async () => {
    const { app } = world;
    await world
      .agent()
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A", sessionKey: keyOf("A") } });
    app.clock.now += 31_000; // the holder is stale
    // B records a takeover intent (202); nobody waits it out yet.
    const direct = await fetch(`${app.url}/api/v1/claims`, {
      method: "POST",
      headers: {
        authorization: "Bearer ghp_fleetbot00000000000000000000000000e2e",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        repo,
        issue: 1,
        actor: { runtime: "pi", sessionId: "B", sessionKey: keyOf("B") },
        takeover: true,
      }),
    });
    expect(direct.status).toBe(202);
    app.clock.now += 10_000; // past the grace beat
    // E names B's public session id without B's key: it may not carry B's intent on.
    await expect(
      world.agent().claim({
        repo,
        issue: 1,
        actor: { runtime: "pi", sessionId: "B", sessionKey: keyOf("E") },
        takeover: true,
      }),
    ).rejects.toMatchObject({ status: 409, code: "held" });
    const b = await world.agent().claim({
      repo,
      issue: 1,
      actor: { runtime: "pi", sessionId: "B", sessionKey: keyOf("B") },
      takeover: true,
    });
    expect(b.lease.generation).toBe(2);
  });
});
