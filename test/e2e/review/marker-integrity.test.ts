// Review: attacks on invariant 11 (marker authenticity) and 12 (recovery fails closed) through the real App.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyClaimMarker } from "../../../src/domain/claim-marker.js";
import { testSeal } from "../../support/app-harness.js";
import { deleteKeysWithPrefix, probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, maintainer, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

function botComments(issue = 1) {
  return world.sim.issue(repo, issue).comments.filter((c) => c.author.endsWith("[bot]"));
}

function claimCommentOf(generation: number, issue = 1) {
  return botComments(issue).find((c) => c.body.includes(`"generation":${generation},`));
}

/** Store loss without FLUSHALL: only this world's keys go (shared Redis). */
async function loseStore(): Promise<void> {
  await deleteKeysWithPrefix(world.redis, world.prefix);
}

describe.skipIf(!redisProbe.available)("review: marker integrity", () => {
  beforeEach(async () => {
    world = await startWorld({
      // Phase edits are a minute apart: durations long enough to heartbeat past that.
      config: "taskClasses:\n  author: { ttl: 10m, reclaimAfter: 20m, heartbeat: 1m }\n",
    });
  });
  afterEach(() => world.close());

  it("holds: artifacts text containing `<!--claim-hold:v1` cannot unsign the App's claim comment (`!` is escaped)", async () => {
    const agent = world.agent();
    const claimed = await agent.claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "A" },
      artifacts: "notes/<!--claim-hold:v1.md",
    });
    await world.sim.flush();
    const comment = claimCommentOf(claimed.lease.generation);
    expect(comment, "the App wrote a claim comment").toBeDefined();
    // Invariant 11: the marker the App writes carries a valid mac.
    expect(verifyClaimMarker(comment!.body, testSeal)).toMatchObject({ kind: "marker" });
  });

  it("holds: phase text containing `<!--claim-hold:v1` cannot unsign the App's edited claim comment", async () => {
    const agent = world.agent();
    const claimed = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "A" } });
    world.app.clock.now += 61_000;
    await agent.heartbeat(claimed.lease, { phase: "reading the <!--claim-hold:v1 marker format" });
    await world.sim.flush();
    const comment = claimCommentOf(claimed.lease.generation);
    expect(verifyClaimMarker(comment!.body, testSeal)).toMatchObject({ kind: "marker" });
  });

  it("once broke: after store loss + a hand-edited newest claim comment, another session is handed the live holder's generation", async () => {
    const agent = world.agent();
    const first = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await agent.release(first.lease, { outcome: "handoff" });
    const live = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "B" } });
    expect(live.lease.generation).toBe(2);
    await world.sim.flush();
    const comment = claimCommentOf(2)!;
    // The store is lost; then a person with write access (GitHub lets them edit any comment) tweaks a
    // field of the App's newest claim comment by hand. With no record, the repair handler cannot undo it.
    await loseStore();
    world.sim.editComment(
      comment.id,
      comment.body.replace(/"ttlSeconds":\d+/, '"ttlSeconds":7200'),
      maintainer.login,
    );
    await world.sim.flush();
    expect(verifyClaimMarker(claimCommentOf(2)!.body, testSeal).kind).toBe("rejected");

    const other = await agent
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "C" } })
      .then((r) => ({ status: 201, generation: r.lease.generation }))
      .catch((e: { status: number; code: string }) => ({ status: e.status, code: e.code }));
    // Never the live holder's generation again; the App's own (tampered) newest comment means: unknown.
    expect(other).not.toMatchObject({ status: 201, generation: 2 });
    expect([409, 503]).toContain(other.status);
    // Nor can the holder's own lease be vouched for: its claim comment no longer verifies (404).
    await expect(agent.heartbeat(live.lease)).rejects.toMatchObject({ status: 404 });
  });

  it("once broke: after store loss + a hand-edited newest claim comment, reconcile strips the live claim's label and assignee", async () => {
    const agent = world.agent();
    const first = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await agent.release(first.lease, { outcome: "handoff" });
    const live = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "B" } });
    await world.sim.flush();
    expect(world.sim.issue(repo, 1)).toMatchObject({ labels: ["agent:claimed"], assignees: [fleet.login] });
    const comment = claimCommentOf(2)!;
    await loseStore();
    world.sim.editComment(
      comment.id,
      comment.body.replace(/"ttlSeconds":\d+/, '"ttlSeconds":7200'),
      maintainer.login,
    );
    await world.sim.flush();

    const report = await world.app.services.janitor.sweep({ reconcile: true });
    await world.sim.flush();
    // Invariant 7/12: store loss reaps no live agent; the janitor leaves a subject it cannot verify alone.
    expect(report.actions.filter((a) => a.subject === `${repo}#1`)).toEqual([]);
    expect(world.sim.issue(repo, 1)).toMatchObject({ labels: ["agent:claimed"], assignees: [fleet.login] });
    expect(live.lease.generation).toBe(2);
  });

  it("once broke: after store loss + the newest claim comment deleted by a person, an older released marker re-mints the live generation", async () => {
    const agent = world.agent();
    const first = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await agent.release(first.lease, { outcome: "handoff" });
    const live = await agent.claim({ repo, issue: 1, actor: { runtime: "claude-code", sessionId: "B" } });
    await world.sim.flush();
    const comment = claimCommentOf(2)!;
    await loseStore();
    world.sim.deleteComment(comment.id, maintainer.login);
    await world.sim.flush();
    // GitHub still shows the claim: label and App-made assignee; the newest readable marker says "released".
    expect(world.sim.issue(repo, 1)).toMatchObject({ labels: ["agent:claimed"], assignees: [fleet.login] });

    const other = await agent
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "C" } })
      .then((r) => ({ status: 201, generation: r.lease.generation }))
      .catch((e: { status: number; code: string }) => ({ status: e.status, code: e.code }));
    expect(other).not.toMatchObject({ status: 201, generation: live.lease.generation });
  });

  it("once broke: App audit comments but no claim comment left (deleted) after store loss: 'never claimed', generation 1 re-minted", async () => {
    const agent = world.agent();
    const first = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "A" } });
    await agent.release(first.lease, { outcome: "handoff", note: "see branch" });
    await world.sim.flush();
    await loseStore();
    for (const c of botComments()) {
      if (c.body.includes("claim-hold:v1")) world.sim.deleteComment(c.id, maintainer.login);
    }
    await world.sim.flush();
    // Invariant 12: App comments with no verifiable marker → claim state unknown (503), never "never claimed".
    expect(botComments().length).toBeGreaterThan(0);
    const other = await agent
      .claim({ repo, issue: 1, actor: { runtime: "pi", sessionId: "C" } })
      .then((r) => ({ status: 201, generation: r.lease.generation }))
      .catch((e: { status: number; code: string }) => ({ status: e.status, code: e.code }));
    expect(other).toEqual({ status: 503, code: "claim_state_unknown" });
  });
});
