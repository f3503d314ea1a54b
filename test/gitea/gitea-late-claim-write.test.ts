// A claim whose Gitea write times out (504 after 8 s) and lands after the App rolled the claim back: the generation is kept, ended and pending, so the reconcile takes the late assignee off and ends a late claim comment (found by review).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { markersIn, type ReviewWorld, refusal, repo, startReviewWorld, until } from "./review-world.js";

let world: ReviewWorld;
beforeAll(async () => {
  world = await startReviewWorld();
  // A first claim creates the managed labels and makes fleet-bot a fleet login.
  const first = world.gitea.sim.state.addIssue(world.gitea.repo, { title: "Warm-up", author: "maintainer" });
  const claimed = await world
    .agent()
    .claim({ repo, issue: first.number, actor: { runtime: "codex", sessionId: "warm" } });
  await world.agent().release(claimed.lease, { outcome: "abandoned" });
});
afterAll(async () => world?.close());

describe("a claim's assignee write that Gitea applies after the App gave up on it", () => {
  it("invariant 10: the late assignment is removed by the next reconcile, or the claim was kept", async () => {
    const { sim, repo: simRepo } = world.gitea;
    const issue: SimIssue = sim.state.addIssue(simRepo, { title: "Slow Gitea", author: "maintainer" });
    const held = sim.hold({ route: "PATCH /repos/{owner}/{repo}/issues/{index}", issue: issue.number });
    const started = Date.now();
    const answer = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: "late-1" } })
      .then((c) => ({ status: 201, generation: c.lease.generation }), refusal);
    // The transport abandoned the PATCH after 8 s: the claim was refused and rolled back.
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_500);
    expect(answer).toEqual({ status: 502, code: "github_failed" });
    // A 504 is no refusal: the generation stays, ended, its write pending for the reconcile.
    expect(await world.stores.claims.get(world.keyOf(issue))).toMatchObject({
      state: "revoked",
      sync: "pending",
    });
    expect(issue.assignees).toEqual([]);

    // Gitea carries the PATCH out now (it never was cancelled on its side).
    const mark = sim.requests.length;
    held.release();
    await until(() => sim.requests.slice(mark).some((r) => r.route.startsWith("PATCH")));
    expect(issue.assignees).toEqual(["fleet-bot"]);

    // The App's assignment now stands with no label and no claim comment: nothing a reconcile
    // lists (managed labels) finds it; only the kept record's pending retry does.
    expect({ labels: world.labelsOf(issue), markers: markersIn(issue) }).toEqual({ labels: [], markers: [] });
    world.app.clock.now += 60_000;
    await world.app.services.janitor.sweep({ reconcile: true });
    await world.app.services.janitor.sweep({ reconcile: true });
    // Invariant 10 (and 5: the App removes the assignments it made): the late write is repaired.
    expect(issue.assignees).toEqual([]);
  }, 30_000);
});

describe("a claim's comment write that Gitea applies after the App gave up on it", () => {
  it("the rolled-back claim's late 'active' marker neither stays active nor revives after store loss", async () => {
    const { sim, repo: simRepo } = world.gitea;
    const issue: SimIssue = sim.state.addIssue(simRepo, { title: "Slow comment", author: "maintainer" });
    const held = sim.hold({
      route: "POST /repos/{owner}/{repo}/issues/{index}/comments",
      issue: issue.number,
    });
    const answer = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: "late-2" } })
      .then((c) => ({ status: 201, generation: c.lease.generation }), refusal);
    expect(answer).toEqual({ status: 502, code: "github_failed" });
    // Rolled back and undone: nobody was given a token for it.
    expect({ assignees: issue.assignees, labels: world.labelsOf(issue) }).toEqual({
      assignees: [],
      labels: [],
    });
    const mark = sim.requests.length;
    held.release();
    await until(() => sim.requests.slice(mark).some((r) => r.route.startsWith("POST")));
    expect(markersIn(issue)).toEqual([{ generation: 1, state: "active", author: "claim-hold-bot" }]);

    world.app.clock.now += 60_000;
    await world.app.services.janitor.sweep({ reconcile: true });
    // The store lost everything: the marker is all the App has to go by.
    await world.restartWithFreshStores();
    const other = await world
      .agent("gitea-sim-other-agent-token-0000009")
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: "late-3" } })
      .then((c) => ({ status: 201, generation: c.lease.generation }), refusal);
    // The claim whose claimant was told "nothing was kept" must not hold the issue now.
    expect(other).toEqual({ status: 201, generation: 2 });
  }, 30_000);
});

describe("generations after a rolled-back claim whose comment lands late", () => {
  it("the next claim never takes the rolled-back claim's generation (two generation-1 markers would follow)", async () => {
    const { sim, repo: simRepo } = world.gitea;
    const issue: SimIssue = sim.state.addIssue(simRepo, {
      title: "Reused generation?",
      author: "maintainer",
    });
    const held = sim.hold({
      route: "POST /repos/{owner}/{repo}/issues/{index}/comments",
      issue: issue.number,
    });
    const answer = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: "late-4" } })
      .then((c) => ({ status: 201, generation: c.lease.generation }), refusal);
    expect(answer).toEqual({ status: 502, code: "github_failed" });
    const next = await world
      .agent("gitea-sim-other-agent-token-0000009")
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: "late-5" } });
    const mark = sim.requests.length;
    held.release();
    await until(() => sim.requests.slice(mark).some((r) => r.route.startsWith("POST")));
    const generations = markersIn(issue).map((m) => m.generation);
    expect(new Set(generations).size).toBe(generations.length);
    expect(next.lease.generation).toBeGreaterThan(1);
    await world.agent("gitea-sim-other-agent-token-0000009").release(next.lease, { outcome: "abandoned" });
  }, 30_000);
});
