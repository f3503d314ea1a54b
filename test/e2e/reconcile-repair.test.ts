// End to end, invariant 13: reconcile repairs what a lost write left, and removes only what a transition recorded.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeRedis } from "../support/redis.js";
import {
  type E2eWorld,
  failWriteAndReadBack,
  fleet,
  maintainer,
  repo,
  startWorld,
  writer,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

describe.skipIf(!redisProbe.available)("reconcile repairs from the record", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  it("a failed /reclaim release retried after a person assigned themself unassigns only whom the release found", async () => {
    const { sim, app } = world;
    await world.agent().claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await sim.flush();
    expect(sim.issue(repo, 1).assignees).toEqual([fleet.login]);

    // The release's one batched write fails, and whether it landed cannot be read: the store has
    // the subject released, GitHub does not.
    failWriteAndReadBack(sim);
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/reclaim release" });
    await sim.flush();
    expect(sim.issue(repo, 1).assignees).toEqual([fleet.login]);

    // Meanwhile a person takes the issue by assigning themself.
    sim.assign({ repo, issue: 1, login: writer.login, assignees: [writer.login] });
    await sim.flush();

    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions).toContainEqual({
      subject: `${repo}#1`,
      action: "repair",
      reason: "reclaim-write-pending",
    });
    // The agent's App-made assignment is gone; the person who came after stays (invariant 5).
    expect(sim.issue(repo, 1).assignees).toEqual([writer.login]);
    expect(sim.issue(repo, 1).labels).toEqual([]);
  });

  it("a live claim whose label GitHub lost (its webhook never came) gets it back at the next reconcile", async () => {
    const { sim, app } = world;
    await world.agent().claim({ repo, issue: 2, actor: { runtime: "codex", sessionId: "B" } });
    await sim.flush();
    sim.webhooks.dropNext(1);
    sim.unassign({ repo, issue: 2, login: maintainer.login, labels: ["agent:claimed"] });
    await sim.flush();
    expect(sim.issue(repo, 2).labels).toEqual([]);

    const report = await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    expect(report.actions).toContainEqual({
      subject: `${repo}#2`,
      action: "repair",
      reason: "diverged-from-record",
    });
    expect(sim.issue(repo, 2)).toMatchObject({ labels: ["agent:claimed"], assignees: [fleet.login] });
    // Repaired once: the next reconcile finds nothing to do.
    const again = await app.services.janitor.sweep({ reconcile: true });
    expect(again.actions).toEqual([]);
  });
});
