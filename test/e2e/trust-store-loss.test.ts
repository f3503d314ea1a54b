// After a store loss a superseded fleet holder's PR still fails, and a fleet login is still no person: evidence is rebuilt from signed claim comments.
import { beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  addTrackerRepo,
  checkOf,
  type E2eWorld,
  fleet,
  maintainer,
  repo,
  restartApp,
  worldsOnPrivateRedis,
  writer,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

/**
 * The fleet account claims `claimed` and opens a PR in octo/widgets from `branch` that closes it
 * (`Fixes …`), its head attested: green. Answers the lease and the head.
 */
async function attestedPull(claimed: { repo: string; issue: number }, branch: string | null) {
  const { sim } = world;
  const zombie = world.agent();
  const { lease } = await zombie.claim({ ...claimed, actor: { sessionId: "z" } });
  const head = branch ?? lease.branch ?? "";
  const { sha } = sim.push({ repo, branch: head, login: fleet.login, message: "work" });
  const closes = claimed.repo === repo ? `#${claimed.issue}` : `${claimed.repo}#${claimed.issue}`;
  sim.openPull({ repo, author: fleet.login, head, title: "Work", body: `Fixes ${closes}` });
  await sim.flush();
  await zombie.attest(lease, sha);
  await sim.flush();
  expect(checkOf(sim, sha)).toEqual({ conclusion: "success", title: "Attested by the current holder" });
  return { head, sha };
}

/** The holder is superseded by a takeover of another session past reclaimAfter. */
async function takenOver(claimed: { repo: string; issue: number }, token = fleet.token) {
  world.app.clock.now += 61_000;
  const taken = await world.agent(token).claim({ ...claimed, actor: { sessionId: "s" }, takeover: true });
  expect(taken.lease.generation).toBe(2);
  await world.sim.flush();
}

/** Redis loses everything (and with `restart`, a new process starts); the zombie pushes again: its run. */
async function zombiePushAfterLoss(head: string, options: { restart?: boolean; reconcile?: boolean } = {}) {
  const { sim } = world;
  expect(await world.redis.flushall()).toBe("OK");
  if (options.restart) await restartApp(world);
  if (options.reconcile) {
    await world.app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
  }
  const { sha } = sim.push({ repo, branch: head, login: fleet.login, message: "zombie pushes again" });
  await sim.flush();
  return sim.checkRuns(repo, sha).filter((run) => run.name === "claim-hold")[0]?.conclusion;
}

describe.skipIf(!redisProbe.available)("trust after a store loss: the merge fence and /reclaim", () => {
  const worlds = worldsOnPrivateRedis();
  beforeEach(() => {
    world = worlds.world;
  });

  it("A: a fleet User's PR on a non-agent branch closing its superseded issue stays red after FLUSHALL + restart", async () => {
    const { head, sha } = await attestedPull({ repo, issue: 1 }, "fix-1");
    world.sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim" });
    await world.sim.flush();
    expect(checkOf(world.sim, sha)).toMatchObject({ conclusion: "failure", title: "Superseded holder" });
    expect(await zombiePushAfterLoss(head, { restart: true, reconcile: true })).toBe("failure");
  });

  it("B: a PR closing another repository's issue a person reclaimed stays red after FLUSHALL", async () => {
    const tracker = await addTrackerRepo(world);
    const { head, sha } = await attestedPull({ repo: tracker, issue: 1 }, "agent/z/tracker-1");
    world.sim.comment({ repo: tracker, issue: 1, login: maintainer.login, body: "/reclaim" });
    await world.sim.flush();
    expect(checkOf(world.sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    expect(await zombiePushAfterLoss(head, { reconcile: true })).toBe("failure");
  });

  it("C: a zombie's PR on its own agent branch stays red after FLUSHALL when a person released the issue (no restart)", async () => {
    const { head, sha } = await attestedPull({ repo, issue: 1 }, null);
    world.sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim release" });
    await world.sim.flush();
    expect(checkOf(world.sim, sha)).toMatchObject({ conclusion: "failure", title: "Superseded holder" });
    expect(await zombiePushAfterLoss(head)).toBe("failure");
  });

  it("D: a PR closing another repository's issue taken over by another session stays red after FLUSHALL, before any reconcile", async () => {
    const tracker = await addTrackerRepo(world);
    const { head, sha } = await attestedPull({ repo: tracker, issue: 1 }, "agent/z/tracker-1");
    await takenOver({ repo: tracker, issue: 1 });
    expect(checkOf(world.sim, sha)).toEqual({ conclusion: "failure", title: "Superseded holder" });
    expect(await zombiePushAfterLoss(head)).toBe("failure");
  });

  it("E: a fleet User's PR on a non-agent branch, taken over by another agent login, stays red after FLUSHALL + restart", async () => {
    const { head, sha } = await attestedPull({ repo, issue: 1 }, "fix-1");
    await takenOver({ repo, issue: 1 }, writer.token);
    expect(checkOf(world.sim, sha)).toMatchObject({ conclusion: "failure", title: "Superseded holder" });
    expect(await zombiePushAfterLoss(head, { restart: true })).toBe("failure");
  });

  it("F: after FLUSHALL + restart the fleet account's /reclaim on an issue it never held is refused", async () => {
    const { sim } = world;
    await world.agent().claim({ repo, issue: 1, actor: { sessionId: "z" } });
    const bobs = await world.agent(writer.token).claim({ repo, issue: 2, actor: { sessionId: "b" } });
    await sim.flush();
    expect(await world.redis.flushall()).toBe("OK");
    await restartApp(world);
    await world.app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    // A prompt-injected session of the fleet account posts the command on #2.
    sim.comment({ repo, issue: 2, login: fleet.login, body: "/reclaim" });
    await sim.flush();
    expect(sim.issue(repo, 2).comments.at(-1)?.body).toContain("`/reclaim` is for people");
    await expect(world.agent(writer.token).verify(bobs.lease)).resolves.toBeDefined();
  });
});
