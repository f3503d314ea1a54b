// The janitor and a person's own assignment on Gitea (invariant 5), with Gitea failing or slow mid-reap. (The held-PATCH round trip is a known limit: docs/reference/gitea-surfaces.md, assignees and request timeouts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { markersIn, type ReviewWorld, repo, startReviewWorld, until } from "./review-world.js";

const hour = 3_600_000;
const patchIssue = "PATCH /repos/{owner}/{repo}/issues/{index}";
let world: ReviewWorld;
let issue: SimIssue;
let session = 0;

beforeAll(async () => {
  world = await startReviewWorld();
});
afterAll(async () => world?.close());
beforeEach(() => {
  world.gitea.sim.clearFaults();
  issue = world.gitea.sim.state.addIssue(world.gitea.repo, { title: "Task", author: "maintainer" });
});

async function silentClaim() {
  const claimed = await world
    .agent()
    .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: `j-${++session}` } });
  expect(issue.assignees).toEqual(["fleet-bot"]);
  return claimed;
}

const reapsOf = (report: { actions: { subject: string; action: string }[] }) =>
  report.actions.filter((a) => a.subject === `${repo}#${issue.number}`).map((a) => a.action);

describe("the janitor meets a person's assignment", () => {
  it("a person who assigned themselves beside a silent agent claim stays assigned through the reap", async () => {
    await silentClaim();
    world.gitea.sim.people.assign({
      repo,
      issue: issue.number,
      login: "maintainer",
      assignees: ["maintainer"],
    });
    world.app.clock.now += 24 * hour;
    await world.app.services.janitor.sweep();
    await world.app.services.janitor.sweep({ reconcile: true });
    // A person beside a live agent claim is `conflicted`: surfaced only, nobody unassigned.
    expect(issue.assignees).toEqual(["fleet-bot", "maintainer"]);
  });

  it("a reap whose PATCH Gitea answers 503: the retry by reconcile keeps a person who assigned themselves meanwhile", async () => {
    await silentClaim();
    world.app.clock.now += 24 * hour;
    world.gitea.sim.fail({ route: patchIssue, issue: issue.number, status: 503 });
    const report = await world.app.services.janitor.sweep();
    expect(reapsOf(report).length).toBeGreaterThan(0);
    expect(issue.assignees).toEqual(["fleet-bot"]);
    world.gitea.sim.people.assign({
      repo,
      issue: issue.number,
      login: "maintainer",
      assignees: ["maintainer"],
    });
    await world.app.services.janitor.sweep({ reconcile: true });
    expect(issue.assignees).toEqual(["maintainer"]);
    expect(markersIn(issue).at(-1)).toMatchObject({ state: "reaped" });
  });

  it("a late reap PATCH (held past the 8 s timeout) landing after a new claim by another agent leaves that claim assigned after reconcile", async () => {
    await silentClaim();
    world.app.clock.now += 24 * hour;
    const held = world.gitea.sim.hold({ route: patchIssue, issue: issue.number });
    await world.app.services.janitor.sweep();
    // The reap's write was abandoned (504): its record waits for reconcile.
    const other = await world
      .agent("gitea-sim-other-agent-token-0000009")
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: `j-${++session}` } });
    expect(issue.assignees).toEqual(["other-bot"]);
    const mark = world.gitea.sim.requests.length;
    held.release();
    await until(() => world.gitea.sim.requests.slice(mark).some((r) => r.route === patchIssue));
    expect(issue.assignees).toEqual([]);
    // The reap's list, read before the new claim, lands: Gitea replaces the whole list.
    await world.app.services.janitor.sweep({ reconcile: true });
    await world.app.services.janitor.sweep({ reconcile: true });
    const record = await world.stores.claims.get(world.keyOf(issue));
    expect(record).toMatchObject({ state: "active", generation: other.lease.generation });
    expect(issue.assignees).toEqual(["other-bot"]);
    expect(await world.agent("gitea-sim-other-agent-token-0000009").verify(other.lease)).toMatchObject({
      holder: true,
    });
  }, 30_000);
});
