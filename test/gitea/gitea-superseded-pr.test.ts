// The `claim-hold` commit status of a superseded holder's PR head on Gitea — reap, API takeover, a failed status write, a spoofed status.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ClaimResponse } from "../../src/agent/client/index.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { otherToken, type ReviewWorld, repo, startReviewWorld, until } from "./review-world.js";

const hour = 3_600_000;
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

const statusesOn = (sha: string) =>
  (world.gitea.repo.statuses.get(sha) ?? [])
    .filter((s) => s.context === "claim-hold")
    .map((s) => `${s.state}: ${s.description} (${s.creator})`);

/** fleet-bot claims on a branch, opens a PR from it closing the issue, and attests its head (green). */
async function holderWithGreenPr(): Promise<{ claimed: ClaimResponse; head: string; pull: SimIssue }> {
  const sessionId = `f${++session}`;
  const branch = `agent/${sessionId}/${issue.number}-work`;
  const claimed = await world
    .agent()
    .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId }, branch });
  const pull = world.gitea.sim.state.addPullRequest(world.gitea.repo, {
    title: "Work",
    author: "fleet-bot",
    body: `Closes #${issue.number}`,
    headRef: branch,
  });
  const head = pull.pull!.headSha;
  await world.deliver(
    "pull_request",
    world.gitea.sim.payloads.pullRequest(world.gitea.repo, pull, "fleet-bot", "opened"),
  );
  await world.agent().attest(claimed.lease, head);
  await until(() => statusesOn(head).at(-1)?.startsWith("success") ?? false);
  return { claimed, head, pull };
}

describe("a superseded holder's PR head on Gitea", () => {
  it("goes red when the janitor reaps the silent holder (its PR closed, then reopened on the same head)", async () => {
    const { head, pull } = await holderWithGreenPr();
    pull.state = "closed";
    await world.deliver(
      "pull_request",
      world.gitea.sim.payloads.pullRequest(world.gitea.repo, pull, "fleet-bot", "closed"),
    );
    world.app.clock.now += 24 * hour;
    const report = await world.app.services.janitor.sweep();
    expect(report.actions).toContainEqual(
      expect.objectContaining({ subject: `${repo}#${issue.number}`, action: "reap" }),
    );
    pull.state = "open";
    await world.deliver(
      "pull_request",
      world.gitea.sim.payloads.pullRequest(world.gitea.repo, pull, "fleet-bot", "reopened"),
    );
    await world.app.settled();
    expect(statusesOn(head).at(-1)).toMatch(/^failure/);
  });

  it("goes red when another agent takes over through the API", async () => {
    const { head, pull } = await holderWithGreenPr();
    pull.state = "closed"; // the holder's PR closed: the claim can go stale and be taken over
    await world.deliver(
      "pull_request",
      world.gitea.sim.payloads.pullRequest(world.gitea.repo, pull, "fleet-bot", "closed"),
    );
    pull.state = "open";
    world.app.clock.now += 61 * 60_000;
    const b = await world.agent(otherToken).claim({
      repo,
      issue: issue.number,
      actor: { runtime: "pi", sessionId: `f${++session}` },
      takeover: true,
    });
    expect(b.lease.generation).toBe(2);
    // The old PR reopened on the old head: judged against the new holder.
    await world.deliver(
      "pull_request",
      world.gitea.sim.payloads.pullRequest(world.gitea.repo, pull, "fleet-bot", "reopened"),
    );
    await world.app.settled();
    expect(statusesOn(head).at(-1)).toMatch(/^failure/);
  });

  it("a /reclaim whose status write Gitea refuses 503 is re-written red by a later sweep", async () => {
    const { head } = await holderWithGreenPr();
    world.gitea.sim.fail({ route: "POST /repos/{owner}/{repo}/statuses/{sha}", status: 503, times: 3 });
    const command = world.gitea.sim.state.addComment(issue, "maintainer", "/reclaim");
    const answer = await world.deliver(
      "issue_comment",
      world.gitea.sim.payloads.issueComment(world.gitea.repo, issue, command.id, "maintainer"),
    );
    await world.app.settled();
    expect(await world.stores.claims.get(world.keyOf(issue))).toMatchObject({ state: "human" });
    void answer;
    // The App's newest status on the head is still the superseded holder's green.
    world.gitea.sim.clearFaults();
    world.app.clock.now += 10 * 60_000;
    await world.app.services.janitor.sweep();
    await world.app.services.janitor.sweep({ reconcile: true });
    await world.app.settled();
    expect(statusesOn(head).at(-1)).toMatch(/^failure: Superseded holder/);
  });

  it("a person's `success` posted over the App's red is answered by the App's red again (status webhook)", async () => {
    const { head } = await holderWithGreenPr();
    const command = world.gitea.sim.state.addComment(issue, "maintainer", "/reclaim");
    await world.deliver(
      "issue_comment",
      world.gitea.sim.payloads.issueComment(world.gitea.repo, issue, command.id, "maintainer"),
    );
    await world.app.settled();
    expect(statusesOn(head).at(-1)).toMatch(/^failure: Superseded holder/);
    const spoof = {
      id: world.gitea.sim.state.nextId(),
      state: "success",
      context: "claim-hold",
      description: "looks fine",
      target_url: "",
      creator: "maintainer",
      createdAt: world.clock.now,
    };
    world.gitea.repo.statuses.get(head)!.push(spoof);
    const payload = world.gitea.sim.payloads.status(world.gitea.repo, head, spoof);
    const delivered = await world.deliver("status", payload);
    expect(delivered.status).toBe(200);
    await world.app.settled();
    expect(statusesOn(head).at(-1)).toMatch(/^failure: Superseded holder \(claim-hold-bot\)/);
  });
});
