// Store loss on Gitea (fresh memory stores) and markers that are not the App's: forged MACs, copies by people, tampered bot comments.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { botLogin } from "../gitea/sim-fixture.js";
import {
  botComments,
  otherToken,
  type ReviewWorld,
  refusal,
  repo,
  startReviewWorld,
} from "./review-world.js";

let world: ReviewWorld;
let issue: SimIssue;
let session = 0;
const sid = () => `sl-${++session}`;

beforeAll(async () => {
  world = await startReviewWorld();
});
afterAll(async () => world?.close());
beforeEach(() => {
  world.gitea.sim.clearFaults();
  issue = world.gitea.sim.state.addIssue(world.gitea.repo, { title: "Task", author: "maintainer" });
});

/** The bot's current claim comment's marker JSON, and the body. */
function botMarker(): { body: string; json: Record<string, unknown> } {
  const comment = botComments(issue)
    .filter((c) => c.body.includes("claim-hold:v1"))
    .at(-1)!;
  const match = /<!-- claim-hold:v1 (\{.*\}) -->/.exec(comment.body)!;
  return { body: comment.body, json: JSON.parse(match[1]!) as Record<string, unknown> };
}

const forged = (json: Record<string, unknown>) =>
  `Totally the App.\n\n<!-- claim-hold:v1 ${JSON.stringify(json)} -->`;

describe("store loss on Gitea", () => {
  it("a heartbeat restores the lease from the bot's marker; a person's copies and forgeries change nothing", async () => {
    const a = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    const { body, json } = botMarker();
    // A maintainer pastes the bot's marker verbatim (valid MAC) and a forged one (generation 50, MAC kept).
    world.gitea.sim.state.addComment(issue, "maintainer", body);
    world.gitea.sim.state.addComment(
      issue,
      "maintainer",
      forged({ ...json, generation: 50, state: "released" }),
    );
    await world.restartWithFreshStores();

    expect(await world.agent().heartbeat(a.lease)).toMatchObject({ generation: 1, state: "active" });
    const other = await world
      .agent(otherToken)
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } })
      .then(() => null, refusal);
    expect(other).toEqual({ status: 409, code: "held" });
    await world.agent().release(a.lease, { outcome: "abandoned" });
    const next = await world
      .agent(otherToken)
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    expect(next.lease.generation).toBe(2);
    await world.agent(otherToken).release(next.lease, { outcome: "abandoned" });
  });

  it("a forged marker by a person on an unclaimed issue neither blocks a claim nor lifts its generation", async () => {
    const body = forged({
      subject: `${repo}#${issue.number}`,
      generation: 2 ** 31 - 1,
      state: "active",
      actor: { kind: "agent", login: "other-bot", sessionId: "x" },
      taskClass: "author",
      claimedAt: new Date(world.app.clock.now).toISOString(),
      ttlSeconds: 1800,
      appAssigned: true,
      mac: "0".repeat(64),
    });
    world.gitea.sim.state.addComment(issue, "maintainer", body);
    await world.restartWithFreshStores();
    const claimed = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    expect(claimed.lease.generation).toBe(1);
    await world.agent().release(claimed.lease, { outcome: "abandoned" });
  });

  it("an old holder whose active marker a person copied stays superseded after store loss; the new holder's lease comes back", async () => {
    const a = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    const copy = botMarker().body;
    world.app.clock.now += 31 * 60_000;
    // a goes stale; other-bot takes over through the grace protocol.
    const b = await world
      .agent(otherToken)
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: sid() }, takeover: true });
    expect(b.lease.generation).toBe(2);
    world.gitea.sim.state.addComment(issue, "maintainer", copy);
    await world.restartWithFreshStores();
    expect(
      await world
        .agent()
        .heartbeat(a.lease)
        .then(() => null, refusal),
    ).toEqual({
      status: 409,
      code: "superseded",
    });
    expect(await world.agent(otherToken).heartbeat(b.lease)).toMatchObject({ generation: 2 });
    expect(issue.assignees).toEqual(["other-bot"]);
    await world.agent(otherToken).release(b.lease, { outcome: "abandoned" });
  });

  it("a Gitea 500 on the comments read during recovery is not a lost lease: a retry recovers", async () => {
    const a = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    await world.restartWithFreshStores();
    world.gitea.sim.fail({ route: "GET /repos/{owner}/{repo}/issues/{index}/comments", status: 500 });
    const first = await world
      .agent()
      .heartbeat(a.lease)
      .then(() => null, refusal);
    expect(first).not.toBeNull();
    expect([409, 410]).not.toContain((first as { status: number }).status);
    expect(await world.agent().heartbeat(a.lease)).toMatchObject({ generation: 1, state: "active" });
    await world.agent().release(a.lease, { outcome: "abandoned" });
  });

  it("a Gitea 504 on the timeline read (assignment gone) is not a lost lease either", async () => {
    const a = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    await world.restartWithFreshStores();
    world.gitea.sim.people.unassign({ repo, issue: issue.number, login: botLogin, assignees: ["fleet-bot"] });
    world.gitea.sim.fail({ route: "GET /repos/{owner}/{repo}/issues/{index}/timeline", status: 504 });
    const first = await world
      .agent()
      .heartbeat(a.lease)
      .then(() => null, refusal);
    expect([409, 410]).not.toContain((first as { status: number } | null)?.status);
    // The bot itself removed it (an older write): the lease comes back live.
    expect(await world.agent().heartbeat(a.lease)).toMatchObject({ generation: 1, state: "active" });
    await world.agent().release(a.lease, { outcome: "abandoned" });
  });

  it("a claim after store loss by another session is refused held, and generations go on", async () => {
    const a = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    await world.restartWithFreshStores();
    const refused = await world
      .agent(otherToken)
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: sid() } })
      .then(() => null, refusal);
    expect(refused).toEqual({ status: 409, code: "held" });
    expect(await world.agent().verify(a.lease)).toMatchObject({ holder: true, generation: 1 });
    await world.agent().release(a.lease, { outcome: "abandoned" });
  });

  it("the bot's claim comment edited by an admin (marker no longer verifies) fails closed after store loss", async () => {
    const a = await world
      .agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "pi", sessionId: sid() } });
    const comment = botComments(issue)
      .filter((c) => c.body.includes("claim-hold:v1"))
      .at(-1)!;
    comment.body = comment.body.replace('"state":"active"', '"state":"released"');
    await world.restartWithFreshStores();
    const refused = await world
      .agent(otherToken)
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: sid() } })
      .then(() => null, refusal);
    expect(refused).toEqual({ status: 503, code: "claim_state_unknown" });
    // The janitor leaves it alone.
    world.app.clock.now += 48 * 3_600_000;
    await world.app.services.janitor.sweep({ reconcile: true });
    expect(issue.assignees).toEqual(["fleet-bot"]);
    void a;
  });
});
