// POST /api/gitea/webhooks end to end: the App against the Gitea simulator — signature, events, `/reclaim`, closing, pushes, exact Gitea requests.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ClaimRecord } from "../../src/domain/claim.js";
import { parseClaimMarker, renderClaimComment } from "../../src/domain/claim-marker.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { seedGiteaClaim } from "./seed-gitea-claim.js";
import {
  botLogin,
  botToken,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const secret = "gitea-webhook-secret-for-tests";
const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
let fixture: GiteaSimFixture;
let app: AppHarness;
let stores: Stores;

beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
  stores = createMemoryStores();
  app = await startApp({
    stores,
    now: clock.now,
    gitea: handMadeHooksGitea(fixture.sim, secret),
  });
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
});

const hookUrl = () => `${app.url}/api/gitea/webhooks`;
const deliver = (event: string, payload: unknown, extra: { deliveryId?: string; forgejo?: boolean } = {}) =>
  fixture.sim.deliver({ url: hookUrl(), secret, event, payload, ...extra });

/** A live agent claim of `issue`, as the lease core leaves it on Gitea: the store's record, the assignee, the label and the signed claim comment. */
async function claimOnGitea(issue: SimIssue): Promise<ClaimRecord> {
  return (await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue)).record;
}

const labelsOf = (issue: SimIssue) =>
  issue.labelIds.map((id) => fixture.repo.labels.find((l) => l.id === id)?.name);
const recordOf = (issue: SimIssue) =>
  stores.claims.get({ installationId: giteaInstallation, repoId: fixture.repo.id, issue: issue.number });

let issue: SimIssue;
let claimed: ClaimRecord;
let mark: number;
beforeEach(async () => {
  issue = fixture.sim.state.addIssue(fixture.repo, { title: "Fix the widget", author: "octo" });
  claimed = await claimOnGitea(issue);
  mark = fixture.sim.requests.length;
});

describe("POST /api/gitea/webhooks: the delivery", () => {
  it("refuses a wrong signature with 401 {error, message}: no Gitea request, nothing changed", async () => {
    const comment = fixture.sim.state.addComment(issue, "maintainer", "/reclaim");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer");
    mark = fixture.sim.requests.length;
    const forged = await fixture.sim.deliver({
      url: hookUrl(),
      secret: "not-the-secret-at-all",
      event: "issue_comment",
      payload,
    });
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({
      error: "unauthorized",
      message: expect.stringContaining("does not verify"),
    });
    const unsigned = await fetch(hookUrl(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gitea-event": "issue_comment",
        "x-gitea-delivery": "d-1",
      },
      body: JSON.stringify(payload),
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({
      error: "unauthorized",
      message: expect.stringContaining("no X-Gitea-Signature"),
    });
    expect(fixture.sim.routesSince(mark)).toEqual([]);
    expect(await recordOf(issue)).toEqual(claimed);
  });

  it("refuses a body over 1 MiB with 413 before reading it", async () => {
    const answer = await deliver("push", { padding: "x".repeat(1024 * 1024) });
    expect(answer).toMatchObject({
      status: 413,
      body: { error: "payload_too_large", message: "Gitea deliveries are limited to 1 MiB." },
    });
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });

  it("answers an event no handler acts on with 202 ignored, reading nothing", async () => {
    const milestoned = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "milestoned");
    const answer = await fixture.sim.deliver({
      url: hookUrl(),
      secret,
      event: "issues",
      eventType: "issue_milestone",
      payload: milestoned,
    });
    expect(answer).toMatchObject({
      status: 202,
      body: { status: "ignored", event: "issues.milestoned" },
    });
    const opened = await deliver(
      "issues",
      fixture.sim.payloads.issues(fixture.repo, issue, "octo", "opened"),
    );
    expect(opened).toMatchObject({ status: 202, body: { status: "ignored", event: "issues.opened" } });
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });

  it("answers 400 invalid_request for a handled event without its fields, or without event or delivery headers", async () => {
    const answer = await deliver("issues", { action: "closed", repository: { id: 1 } });
    expect(answer).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    const body = "{}";
    const { createHmac } = await import("node:crypto");
    const noEvent = await fetch(hookUrl(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gitea-signature": createHmac("sha256", secret).update(body).digest("hex"),
      },
      body,
    });
    expect(noEvent.status).toBe(400);
    expect(await noEvent.json()).toMatchObject({ error: "invalid_request" });
    expect(await recordOf(issue)).toEqual(claimed);
  });
});

describe("`/reclaim` on Gitea", () => {
  it("a maintainer takes the issue back: 👀, config, permission, the issue, then the take-back's writes — the holder's claim superseded", async () => {
    const comment = fixture.sim.state.addComment(issue, "maintainer", "/reclaim");
    const answer = await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer"),
    );
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    const record = await recordOf(issue);
    expect(record).toMatchObject({
      state: "human",
      generation: claimed.generation + 1,
      actor: { kind: "human", login: "maintainer" },
    });
    expect(issue.assignees).toEqual(["maintainer"]);
    expect(labelsOf(issue)).not.toContain("agent:claimed");
    expect(comment.reactions).toEqual([{ login: botLogin, content: "eyes" }]);
    const markers = issue.comments
      .map((c) => parseClaimMarker(c.body))
      .flatMap((p) => (p.kind === "marker" ? [p.marker] : []));
    expect(markers.map((m) => [m.generation, m.state])).toEqual([
      [claimed.generation, "superseded"],
      [claimed.generation + 1, "active"],
    ]);
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /user",
      // the comment's author and body as Gitea shows them now, read once for every handler
      "GET /repos/{owner}/{repo}/issues/comments/{id}",
      "POST /repos/{owner}/{repo}/issues/comments/{id}/reactions",
      "GET /repos/{owner}/{repo}/raw/{filepath}",
      "GET /repos/{owner}/{repo}/raw/{filepath}",
      "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/issues/{index}/comments",
      "GET /repos/{owner}/{repo}/pulls",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "PATCH /repos/{owner}/{repo}/issues/{index}",
      "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}",
      "PATCH /repos/{owner}/{repo}/issues/comments/{id}",
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
    ]);
  });

  it("acts once per comment: the same delivery again, or the comment under a new delivery id, changes nothing", async () => {
    const comment = fixture.sim.state.addComment(issue, "maintainer", "/reclaim");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer");
    const first = await deliver("issue_comment", payload, { forgejo: true });
    expect(first.status).toBe(200);
    const after = await recordOf(issue);
    const comments = issue.comments.length;
    mark = fixture.sim.requests.length;
    expect((await deliver("issue_comment", payload, { deliveryId: first.deliveryId })).status).toBe(200);
    expect((await deliver("issue_comment", payload)).status).toBe(200);
    expect(await recordOf(issue)).toEqual(after);
    expect(issue.comments).toHaveLength(comments);
    // Each delivery reads the comment once before the handled delivery id or comment is known to it.
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/issues/comments/{id}",
      "GET /repos/{owner}/{repo}/issues/comments/{id}",
    ]);
  });

  it("Gitea failing before anything changed answers 500 without a token, and a replay acts", async () => {
    const comment = fixture.sim.state.addComment(issue, "maintainer", "/reclaim");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer");
    fixture.sim.failNext("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", 500);
    const failed = await deliver("issue_comment", payload);
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ error: "internal", message: expect.stringMatching(/^Internal error/) });
    expect(JSON.stringify(failed.body)).not.toContain(botToken);
    expect(await recordOf(issue)).toEqual(claimed);
    // The same delivery id stays handled (as on GitHub); Gitea's replay is a new delivery, a new id,
    // and the comment was not marked handled, so it acts.
    expect((await deliver("issue_comment", payload, { deliveryId: failed.deliveryId })).status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
    const replay = await deliver("issue_comment", payload);
    expect(replay.status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "human", actor: { login: "maintainer" } });
  });

  it("a reader's `/reclaim` is refused in a reply: the agent keeps its claim", async () => {
    const comment = fixture.sim.state.addComment(issue, "reader", "/reclaim");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "reader"),
    );
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: claimed.generation });
    expect(issue.assignees).toEqual(["fleet-bot"]);
    expect(issue.comments.at(-1)).toMatchObject({
      author: botLogin,
      body: expect.stringContaining("`/reclaim` needs write permission on octo/widgets (you have read)"),
    });
  });

  it("the App's own comment and a comment on a pull request are not commands", async () => {
    const own = fixture.sim.state.addComment(issue, botLogin, "/reclaim");
    await deliver("issue_comment", fixture.sim.payloads.issueComment(fixture.repo, issue, own.id, botLogin));
    const pull = fixture.sim.state.addIssue(fixture.repo, { title: "PR", author: "octo", isPull: true });
    const onPull = fixture.sim.state.addComment(pull, "maintainer", "/reclaim");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, pull, onPull.id, "maintainer"),
    );
    expect(await recordOf(issue)).toEqual(claimed);
    expect(fixture.sim.routesSince(mark).filter((r) => r !== "GET /user")).toEqual([]);
  });
});

describe("the claim comment on Gitea", () => {
  const claimComment = () => issue.comments.find((c) => c.id === claimed.commentId);
  /** The bot's login is read once per App: not a repair's request. */
  const routes = () => fixture.sim.routesSince(mark).filter((r) => r !== "GET /user");

  it("edited by a person: edited back to the record's marker (one PATCH), and the App's own edit is not repaired again", async () => {
    const comment = claimComment()!;
    const sealed = comment.body;
    comment.body = '<!-- claim-hold {"generation":99} -->\nmine now';
    const answer = await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "reader", "edited", {
        body: sealed,
      }),
    );
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    expect(comment.body).toBe(sealed);
    expect(routes()).toEqual(["PATCH /repos/{owner}/{repo}/issues/comments/{id}"]);
    const own = await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, botLogin, "edited", { body: "x" }),
    );
    expect(own.status).toBe(200);
    expect(routes()).toEqual(["PATCH /repos/{owner}/{repo}/issues/comments/{id}"]);
    expect(await recordOf(issue)).toEqual(claimed);
  });

  it("deleted by a person: posted anew and the record points at the new comment", async () => {
    const comment = claimComment()!;
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "reader", "deleted");
    issue.comments.splice(issue.comments.indexOf(comment), 1);
    const answer = await deliver("issue_comment", payload);
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    expect(routes()).toEqual(["POST /repos/{owner}/{repo}/issues/{index}/comments"]);
    const posted = issue.comments.at(-1)!;
    expect(posted).toMatchObject({ author: botLogin, body: comment.body });
    expect(await recordOf(issue)).toEqual({
      ...claimed,
      commentId: posted.id,
      commentNodeId: String(posted.id),
    });
  });

  it("another comment edited or deleted, or the claim comment edited to what it says: nothing written", async () => {
    const other = fixture.sim.state.addComment(issue, "octo", "a note");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, other.id, "octo", "edited", { body: "a nite" }),
    );
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, other.id, "octo", "deleted"),
    );
    const comment = claimComment()!;
    const unchanged = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "octo", "edited", {
      body: comment.body,
    });
    await deliver("issue_comment", {
      ...unchanged,
      comment: { ...unchanged.comment, body: renderClaimComment(claimed, "active") },
    });
    expect(routes()).toEqual([]);
    expect(await recordOf(issue)).toEqual(claimed);
  });
});

describe("closing and pushing on Gitea", () => {
  it("a person closing the issue completes the claim; the assignee stays as the record, the claimed label goes", async () => {
    issue.state = "closed";
    const answer = await deliver(
      "issues",
      fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "closed"),
    );
    expect(answer.status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "completed", generation: claimed.generation });
    expect(issue.assignees).toEqual(["fleet-bot"]);
    expect(labelsOf(issue)).not.toContain("agent:claimed");
  });

  it("a push to the claim's branch is recorded as activity, with no Gitea request", async () => {
    app.clock.now += 60_000;
    const answer = await deliver(
      "push",
      fixture.sim.payloads.push(fixture.repo, `refs/heads/${claimed.branch}`, "fleet-bot"),
    );
    expect(answer.status).toBe(200);
    expect((await recordOf(issue))?.lastPushAt).toBe(app.clock.now);
    expect(fixture.sim.routesSince(mark).filter((r) => r !== "GET /user")).toEqual([]);
  });
});

describe("the App's log", () => {
  it("holds no warning or error but the simulated failure's: nothing reached for GitHub on a Gitea subject", () => {
    const problems = app.logs.filter((line) => /"level":(40|50|60)\b/.test(line));
    expect(problems.length).toBe(2); // "/reclaim failed" and the answer's "internal error"
    expect(problems.filter((line) => !line.includes("Gitea answered 500: simulated failure"))).toEqual([]);
    expect(app.logs.join("\n")).not.toContain(botToken);
  });
});

describe("without Gitea configured", () => {
  it("the route does not exist", async () => {
    const plain = await startApp({ stores: createMemoryStores() });
    try {
      const answer = await fetch(`${plain.url}/api/gitea/webhooks`, { method: "POST", body: "{}" });
      expect(answer.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
