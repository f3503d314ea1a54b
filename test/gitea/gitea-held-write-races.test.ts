// A second transition racing a held Gitea write, and Gitea 5xx in the middle of a heartbeat or a /reclaim.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { markersIn, type ReviewWorld, refusal, repo, startReviewWorld } from "./review-world.js";

let world: ReviewWorld;
let issue: SimIssue;
let session = 0;
const sid = () => `r-${++session}`;

beforeAll(async () => {
  world = await startReviewWorld();
  const first = world.gitea.sim.state.addIssue(world.gitea.repo, { title: "Warm-up", author: "maintainer" });
  const claimed = await world
    .agent()
    .claim({ repo, issue: first.number, actor: { runtime: "codex", sessionId: "warm" } });
  await world.agent().release(claimed.lease, { outcome: "abandoned" });
});
afterAll(async () => world?.close());
beforeEach(() => {
  world.gitea.sim.clearFaults();
  issue = world.gitea.sim.state.addIssue(world.gitea.repo, { title: "Task", author: "maintainer" });
});

const reclaim = async (login = "maintainer", body = "/reclaim") => {
  const command = world.gitea.sim.state.addComment(issue, login, body);
  const answer = await world.deliver(
    "issue_comment",
    world.gitea.sim.payloads.issueComment(world.gitea.repo, issue, command.id, login),
  );
  await world.app.settled();
  return answer;
};

describe("a /reclaim racing an agent's claim whose label write Gitea holds", () => {
  it("ends with the person's claim on Gitea: maintainer assigned, agent off, no claimed label, agent superseded", async () => {
    const held = world.gitea.sim.hold({
      route: "POST /repos/{owner}/{repo}/issues/{index}/labels",
      issue: issue.number,
    });
    const claim = world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: sid() } })
      .then((c) => c, refusal);
    await held.arrived;
    const reclaimed = reclaim();
    await new Promise((resolve) => setTimeout(resolve, 200));
    held.release();
    const [claimed] = await Promise.all([claim, reclaimed]);
    await world.app.settled();
    await world.app.services.janitor.sweep({ reconcile: true });
    const record = await world.stores.claims.get(world.keyOf(issue));
    expect(record).toMatchObject({ state: "human", actor: { login: "maintainer" } });
    expect({ assignees: issue.assignees, labels: world.labelsOf(issue) }).toEqual({
      assignees: ["maintainer"],
      labels: [],
    });
    const markers = markersIn(issue);
    expect(markers.filter((m) => m.state === "active" && m.generation !== record!.generation)).toEqual([]);
    if ("lease" in claimed) {
      expect(
        await world
          .agent()
          .heartbeat(claimed.lease)
          .then(() => null, refusal),
      ).toEqual({
        status: 409,
        code: "superseded",
      });
    }
  }, 20_000);
});

describe("Gitea failing in the middle", () => {
  it("a heartbeat with a phase change while Gitea answers 503 to the comment edit keeps the lease alive", async () => {
    const claimed = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: sid() } });
    world.app.clock.now += 2 * 60_000;
    world.gitea.sim.fail({
      route: "PATCH /repos/{owner}/{repo}/issues/comments/{id}",
      status: 503,
      times: 5,
    });
    const beat = await world
      .agent()
      .heartbeat(claimed.lease, { phase: "testing" })
      .then((b) => b, refusal);
    world.gitea.sim.clearFaults();
    expect(beat).toMatchObject({ generation: claimed.lease.generation, state: "active" });
    await world.agent().release(claimed.lease, { outcome: "abandoned" });
  });

  it("a /reclaim whose assignee write Gitea answers 504 (applied anyway) is finished, not undone, and the agent is superseded", async () => {
    const claimed = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: sid() } });
    world.gitea.sim.fail({
      route: "PATCH /repos/{owner}/{repo}/issues/{index}",
      issue: issue.number,
      status: 504,
      applied: true,
    });
    await reclaim();
    world.gitea.sim.clearFaults();
    await world.app.services.janitor.sweep({ reconcile: true });
    expect(await world.stores.claims.get(world.keyOf(issue))).toMatchObject({
      state: "human",
      generation: 2,
    });
    expect({ assignees: issue.assignees, labels: world.labelsOf(issue) }).toEqual({
      assignees: ["maintainer"],
      labels: [],
    });
    expect(
      await world
        .agent()
        .heartbeat(claimed.lease)
        .then(() => null, refusal),
    ).toEqual({
      status: 409,
      code: "superseded",
    });
  });

  it("a /reclaim whose label delete Gitea refuses 503 (not applied): the agent is not left half-unassigned for good", async () => {
    const claimed = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: sid() } });
    world.gitea.sim.fail({
      route: "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}",
      issue: issue.number,
      status: 503,
    });
    await reclaim();
    world.gitea.sim.clearFaults();
    await world.app.services.janitor.sweep({ reconcile: true });
    const record = await world.stores.claims.get(world.keyOf(issue));
    // Either the take-back is finished, or the agent's claim stands whole again.
    if (record?.state === "human") {
      expect({ assignees: issue.assignees, labels: world.labelsOf(issue) }).toEqual({
        assignees: ["maintainer"],
        labels: [],
      });
    } else {
      expect(record).toMatchObject({ state: "active", generation: claimed.lease.generation });
      expect({ assignees: issue.assignees, labels: world.labelsOf(issue) }).toEqual({
        assignees: ["fleet-bot"],
        labels: ["agent:claimed"],
      });
    }
  });

  it("a /reclaim release by the assignee, refused 422 after the unassign landed, puts the person back", async () => {
    world.gitea.sim.people.assign({
      repo,
      issue: issue.number,
      login: "maintainer",
      assignees: ["maintainer"],
    });
    world.gitea.sim.fail({
      route: "POST /repos/{owner}/{repo}/issues/{index}/comments",
      issue: issue.number,
      status: 422,
      times: 2,
    });
    await reclaim("maintainer", "/reclaim release");
    world.gitea.sim.clearFaults();
    await world.app.services.janitor.sweep({ reconcile: true });
    const record = await world.stores.claims.get(world.keyOf(issue));
    if (record?.state !== "released") expect(issue.assignees).toEqual(["maintainer"]);
  });
});
