// a person unassigns the agent, or takes the claimed label off, while the claim's own Gitea write is still on its way; Gitea's deliveries reach the App as they happen.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import {
  markersIn,
  type ReviewWorld,
  refusal,
  repo,
  startReviewWorld,
  webhookSecret,
} from "./review-world.js";

let world: ReviewWorld;
let issue: SimIssue;
let session = 0;

beforeAll(async () => {
  world = await startReviewWorld();
  const first = world.gitea.sim.state.addIssue(world.gitea.repo, { title: "Warm-up", author: "maintainer" });
  const claimed = await world
    .agent()
    .claim({ repo, issue: first.number, actor: { runtime: "codex", sessionId: "warm" } });
  await world.agent().release(claimed.lease, { outcome: "abandoned" });
  world.gitea.sim.hook(`${world.app.url}/api/gitea/webhooks`, webhookSecret);
});
afterAll(async () => world?.close());
beforeEach(() => {
  world.gitea.sim.clearFaults();
  issue = world.gitea.sim.state.addIssue(world.gitea.repo, { title: "Task", author: "maintainer" });
});

async function claimWithHeldWrite(route: string, act: () => void, holdMs = 300) {
  const held = world.gitea.sim.hold({ route, issue: issue.number });
  const claim = world
    .agent()
    .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: `p${++session}` } })
    .then((c) => c, refusal);
  await held.arrived;
  act();
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  held.release();
  const claimed = await claim;
  await world.gitea.sim.webhooks.flush();
  await world.app.settled();
  return claimed;
}

describe("a person acts while the claim's write is in flight", () => {
  it("unassigning the agent (label write held) revokes the claim: no live claim without its assignee", async () => {
    const claimed = await claimWithHeldWrite("POST /repos/{owner}/{repo}/issues/{index}/labels", () =>
      world.gitea.sim.people.unassign({
        repo,
        issue: issue.number,
        login: "maintainer",
        assignees: ["fleet-bot"],
      }),
    );
    await world.app.services.janitor.sweep({ reconcile: true });
    const record = await world.stores.claims.get(world.keyOf(issue));
    expect(issue.assignees).toEqual([]);
    expect(record?.state).not.toBe("active");
    expect(world.labelsOf(issue)).toEqual([]);
    if ("lease" in claimed) {
      expect(
        await world
          .agent()
          .heartbeat(claimed.lease)
          .then(() => null, refusal),
      ).toMatchObject({
        status: expect.any(Number),
      });
    }
    expect(markersIn(issue).filter((m) => m.state === "active")).toEqual([]);
  });

  it("the same with the write held past Gitea's 3 s delivery wait", async () => {
    await claimWithHeldWrite(
      "POST /repos/{owner}/{repo}/issues/{index}/labels",
      () =>
        world.gitea.sim.people.unassign({
          repo,
          issue: issue.number,
          login: "maintainer",
          assignees: ["fleet-bot"],
        }),
      4_000,
    );
    // The person's unassignment stands after the claim's write landed; the delivery was left undecided.
    expect(issue.assignees).toEqual([]);
    expect(await world.stores.claims.get(world.keyOf(issue))).toMatchObject({ state: "active" });
    world.app.clock.now += 60_000;
    await world.app.services.janitor.sweep({ reconcile: true });
    const record = await world.stores.claims.get(world.keyOf(issue));
    // Never a live agent claim the App re-assigns over the person's unassignment.
    const changes = world.gitea.sim.assigneeChanges.filter((c) => c.issue === issue.number);
    expect(changes.at(-1)).toEqual({
      repo,
      issue: issue.number,
      login: "fleet-bot",
      action: "unassigned",
      by: "maintainer",
    });
    expect(issue.assignees).toEqual([]);
    expect(record?.state).not.toBe("active");
  }, 20_000);

  it("taking agent:claimed off while the claim comment is held revokes the claim", async () => {
    await claimWithHeldWrite("POST /repos/{owner}/{repo}/issues/{index}/comments", () =>
      world.gitea.sim.people.setLabels({ repo, issue: issue.number, login: "maintainer", labels: [] }),
    );
    await world.app.services.janitor.sweep({ reconcile: true });
    const record = await world.stores.claims.get(world.keyOf(issue));
    expect(record?.state).not.toBe("active");
    expect(world.labelsOf(issue)).toEqual([]);
    expect(issue.assignees).toEqual([]);
  });

  it("a person assigning themselves while the label write is held stays assigned, and the agent is not assigned over a person by reconcile", async () => {
    await claimWithHeldWrite("POST /repos/{owner}/{repo}/issues/{index}/labels", () =>
      world.gitea.sim.people.assign({
        repo,
        issue: issue.number,
        login: "maintainer",
        assignees: ["maintainer"],
      }),
    );
    await world.app.services.janitor.sweep({ reconcile: true });
    expect(issue.assignees).toContain("maintainer");
  });
});
