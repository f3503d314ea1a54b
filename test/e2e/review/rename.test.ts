// Review: invariant 7/12 across a repository rename — markers name `owner/name#n`, the store keys by repository id.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;
const renamed = "octo/gadgets";

function rename(): void {
  // The simulator has no rename route; GitHub keeps the id, issues and comments, and changes the name.
  world.sim.state.requireRepo(repo).name = "gadgets";
}

describe.skipIf(!redisProbe.available)("review: repository renamed, then the store is lost", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("once broke: the live holder's lease is not recovered and another session is handed the issue", async () => {
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await world.sim.flush();
    rename();
    await deleteKeysWithPrefix(world.redis, world.prefix);

    // Invariant 7: losing all Redis data loses no claim (lease ids carry the repository id, not its name).
    const beat = await agent
      .heartbeat(a.lease)
      .then((r) => ({ ok: true, generation: r.generation }))
      .catch((e: { status: number; code: string }) => ({ ok: false, status: e.status, code: e.code }));
    const other = await agent
      .claim({ repo: renamed, issue: 1, actor: { runtime: "codex", sessionId: "C" } })
      .then((r) => ({ status: 201, generation: r.lease.generation }))
      .catch((e: { status: number; code: string }) => ({ status: e.status, code: e.code }));
    expect({ beat, other }).toEqual({
      beat: { ok: true, generation: 1 },
      other: { status: 409, code: "held" },
    });
  });

  it("once broke: reconcile after the rename + store loss strips the live claim's label", async () => {
    const agent = world.agent();
    await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await world.sim.flush();
    rename();
    await deleteKeysWithPrefix(world.redis, world.prefix);
    const report = await world.app.services.janitor.sweep({ reconcile: true });
    await world.sim.flush();
    expect(report.actions.filter((x) => x.reason === "label-without-record")).toEqual([]);
    expect(world.sim.issue(renamed, 1)).toMatchObject({
      labels: ["agent:claimed"],
      assignees: [fleet.login],
    });
  });
});
