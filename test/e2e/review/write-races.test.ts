// Review: unlucky interleavings against invariant 13 (write fencing) and 14 (token rotation), real App + sim + Redis.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyClaimMarker } from "../../../src/domain/claim-marker.js";
import { testSeal } from "../../support/app-harness.js";
import { deleteKeysWithPrefix, probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, installationId, maintainer, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
const repoId = 1296269;
let world: E2eWorld;

function latestTrustedMarker(issue: number) {
  const markers = world.sim
    .issue(repo, issue)
    .comments.filter((c) => c.author.endsWith("[bot]"))
    .flatMap((c) => {
      const parsed = verifyClaimMarker(c.body, testSeal);
      return parsed.kind === "marker" ? [parsed.marker] : [];
    });
  return markers.reduce<(typeof markers)[number] | undefined>(
    (best, m) => (!best || m.generation > best.generation ? m : best),
    undefined,
  );
}

const _sessionKey = "review-session-key-".padEnd(40, "k");

describe.skipIf(!redisProbe.available)("review: write races", () => {
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(async () => {
    world.sim.webhooks.release();
    await world.close();
  });

  it("once broke: reconcile's unfenced label-without-record write lands on a new live claim and is never repaired", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await sim.flush();
    // Issue #2: another live claim whose labels diverged (someone added agent:stale by hand), so reconcile
    // writes to it; it is updated last, so the reconcile listing visits it before #1.
    await agent.claim({ repo, issue: 2, actor: { runtime: "claude-code", sessionId: "B" } });
    await sim.flush();
    sim.webhooks.hold();
    sim.assign({ repo, issue: 2, login: maintainer.login, labels: ["agent:stale"] });
    const node1 = sim.issue(repo, 1).nodeId;
    const node2 = sim.issue(repo, 2).nodeId;

    const holdOn2 = sim.hold({ operation: "ApplyTransition", bodyIncludes: node2 });
    const sweep = app.services.janitor.sweep({ reconcile: true });
    await holdOn2.arrived;
    // Meanwhile (the listing already showed #1 labelled and assigned): A releases #1 …
    await agent.release(a.lease, { outcome: "handoff" });
    const holdOn1 = sim.hold({ operation: "ApplyTransition", bodyIncludes: node1 });
    holdOn2.release();
    await holdOn1.arrived;
    // … and while reconcile's write for #1 is on its way, the next session claims #1.
    const c = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "C" } });
    expect(c.lease.generation).toBe(2);
    holdOn1.release();
    await sweep;
    sim.webhooks.release();
    await sim.flush();

    const record = await world.stores.claims.get({ installationId, repoId, issue: 1 });
    expect(record).toMatchObject({ generation: 2, state: "active", appAssigned: true });
    // Invariant 13: a write decided for generation 1 never leaves generation 2's GitHub state wrong …
    const shownAfterRace = sim.issue(repo, 1);
    // … and any divergence is repaired by the next reconcile.
    await app.services.janitor.sweep({ reconcile: true });
    await app.services.janitor.sweep();
    await sim.flush();
    const shown = sim.issue(repo, 1);
    expect({ race: shownAfterRace.labels, labels: shown.labels, assignees: shown.assignees }).toEqual({
      race: ["agent:claimed"],
      labels: ["agent:claimed"],
      assignees: [fleet.login],
    });
  });

  it("once broke: a person's edit of the claim comment, repaired while the holder releases, leaves an 'active' marker for a released claim", async () => {
    const { sim } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await sim.flush();
    const comment = sim.issue(repo, 1).comments.find((c) => c.body.includes("claim-hold:v1"))!;

    sim.webhooks.hold();
    // A maintainer fixes a typo in the App's claim comment headline (the marker itself untouched).
    sim.editComment(
      comment.id,
      comment.body.replace("Claimed by", "Claimed (see chat) by"),
      maintainer.login,
    );
    const edited = sim.webhooks.pending().at(-1)!;
    const repairHold = sim.hold({ operation: "ApplyTransition", bodyIncludes: comment.nodeId });
    const delivered = sim.webhooks.deliverNow(edited.seq);
    await repairHold.arrived;
    // The repair (re-render from the record) is on its way; the holder releases meanwhile.
    await agent.release(a.lease, { outcome: "handoff" });
    repairHold.release();
    await delivered;
    sim.webhooks.release();
    await sim.flush();

    const record = await world.stores.claims.get({ installationId, repoId, issue: 1 });
    expect(record).toMatchObject({ generation: 1, state: "released" });
    const afterRace = latestTrustedMarker(1);
    // Reconcile repairs any divergence (invariant 13) …
    await world.app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    const afterReconcile = latestTrustedMarker(1);
    // … and after store loss the released issue must be free, not held by a ghost of A.
    await deleteKeysWithPrefix(world.redis, world.prefix);
    const next = await agent
      .claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "C" } })
      .then((r) => ({ status: 201, generation: r.lease.generation }))
      .catch((e: { status: number; code: string }) => ({ status: e.status, code: e.code }));
    expect({
      afterRace: afterRace?.state,
      afterReconcile: afterReconcile?.state,
      next,
    }).toEqual({ afterRace: "released", afterReconcile: "released", next: { status: 201, generation: 2 } });
  });

  it("once broke: a failed takeover's compensation strips the incumbent's label and (shared login) assignment", async () => {
    const { sim, app } = world;
    const agent = world.agent();
    const a = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    await sim.flush();
    app.clock.now += 31_000; // A is stale (ttl 30 s), not reclaimable
    const node1 = sim.issue(repo, 1).nodeId;
    sim.fail({ operation: "ApplyTransition", bodyIncludes: node1, status: 502 });
    await expect(
      agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "C" }, takeover: true }),
    ).rejects.toMatchObject({ status: 502 });
    await sim.flush();
    // The store rolled back to A's claim (invariant 10) …
    const record = await world.stores.claims.get({ installationId, repoId, issue: 1 });
    expect(record).toMatchObject({ generation: 1, state: "active", appAssigned: true });
    // … A comes back within its reclaimAfter and heartbeats: its claim is in force.
    expect(await agent.heartbeat(a.lease)).toMatchObject({ generation: 1, state: "active" });
    const afterFailure = sim.issue(repo, 1);
    // Invariant 13: divergence is repaired by the next reconcile.
    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    const afterReconcile = sim.issue(repo, 1);
    expect({
      afterFailure: { labels: afterFailure.labels, assignees: afterFailure.assignees },
      afterReconcile: { labels: afterReconcile.labels, assignees: afterReconcile.assignees },
    }).toEqual({
      afterFailure: { labels: ["agent:claimed"], assignees: [fleet.login] },
      afterReconcile: { labels: ["agent:claimed"], assignees: [fleet.login] },
    });
  });
});
