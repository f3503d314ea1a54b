// The fence on Gitea end to end: `pull_request` deliveries → the `claim-hold` commit status on the PR head, re-written when the claim changes hands; exact Gitea requests.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ClaimRecord, leaseIdOf } from "../../src/domain/claim.js";
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

const secret = "gitea-webhook-secret-for-fence-tests";
const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
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
  // The bot's login is read once per process: read here, so every test pins the same requests.
  const warmUp = fixture.sim.state.addIssue(fixture.repo, { title: "warm up", author: "octo" });
  await deliver("issues", fixture.sim.payloads.issues(fixture.repo, warmUp, "octo", "closed"));
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
});

const deliver = (event: string, payload: unknown) =>
  fixture.sim.deliver({ url: `${app.url}/api/gitea/webhooks`, secret, event, payload });

/** A live agent claim of `issue` as the lease core leaves it on Gitea (record, assignee, label, signed comment). */
async function claimOnGitea(issue: SimIssue): Promise<{ record: ClaimRecord; token: string }> {
  return seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
}

/** The holder vouches for a head (`POST /leases/{id}/attest`, here through the fence the App serves it with). */
const attest = (record: ClaimRecord, token: string, sha: string) =>
  app.services.fence.attest(leaseIdOf(record, record.generation), token, sha);

/** The `claim-hold` statuses on a head, oldest first, as `state: description`. */
const statusesOn = (sha: string) =>
  (fixture.sim.state.repos[0]?.statuses.get(sha) ?? [])
    .filter((s) => s.context === "claim-hold")
    .map((s) => `${s.state}: ${s.description}`);

/** One evaluation: the repository config (`.gitea/` then `.github/`), the PR, its commits, the head's statuses. */
const evaluationReads = [
  "GET /repos/{owner}/{repo}/raw/{filepath}",
  "GET /repos/{owner}/{repo}/raw/{filepath}",
  "GET /repos/{owner}/{repo}/pulls/{index}",
  "GET /repos/{owner}/{repo}/pulls/{index}/commits",
  "GET /repos/{owner}/{repo}/statuses/{sha}",
];

let issue: SimIssue;
let claimed: ClaimRecord;
let token: string;
let mark: number;
beforeEach(async () => {
  issue = fixture.sim.state.addIssue(fixture.repo, { title: "Fix the widget", author: "octo" });
  ({ record: claimed, token } = await claimOnGitea(issue));
  mark = fixture.sim.requests.length;
});

describe("the claim-hold commit status on Gitea", () => {
  it("the holder's PR: red until attested, then green; after a /reclaim it turns red, written once each", async () => {
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Fix the widget",
      author: "fleet-bot",
      body: `Closes #${issue.number}`,
      headRef: claimed.branch ?? "",
    });
    const head = pull.pull?.headSha ?? "";
    const opened = await deliver(
      "pull_request",
      fixture.sim.payloads.pullRequest(fixture.repo, pull, "fleet-bot", "opened"),
    );
    expect(opened).toMatchObject({ status: 200, body: { status: "processed" } });
    expect(statusesOn(head)).toEqual(["failure: Not attested by the current holder"]);
    expect(fixture.sim.routesSince(mark)).toEqual([
      ...evaluationReads,
      "POST /repos/{owner}/{repo}/statuses/{sha}",
    ]);

    // The holder attests the head: the check of the PR on it runs again.
    mark = fixture.sim.requests.length;
    await attest(claimed, token, head);
    expect(statusesOn(head)).toEqual([
      "failure: Not attested by the current holder",
      expect.stringMatching(/^success: /),
    ]);
    // The attestation checks the holder still has write, on Gitea (its record's forge).
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission",
      ...evaluationReads.slice(2),
      "POST /repos/{owner}/{repo}/statuses/{sha}",
    ]);

    // The same verdict again (an edit of the description): read, not written.
    mark = fixture.sim.requests.length;
    const edited = fixture.sim.payloads.pullRequest(fixture.repo, pull, "fleet-bot", "edited", { body: "" });
    expect((await deliver("pull_request", edited)).status).toBe(200);
    expect(statusesOn(head)).toHaveLength(2);
    expect(fixture.sim.routesSince(mark)).toEqual(evaluationReads.slice(2));

    // A maintainer takes the issue back: the superseded holder's PR goes red.
    const command = fixture.sim.state.addComment(issue, "maintainer", "/reclaim");
    mark = fixture.sim.requests.length;
    const reclaimed = await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, command.id, "maintainer"),
    );
    expect(reclaimed.status).toBe(200);
    await app.settled();
    expect(
      await stores.claims.get({
        installationId: giteaInstallation,
        repoId: fixture.repo.id,
        issue: issue.number,
      }),
    ).toMatchObject({ state: "human", generation: claimed.generation + 1 });
    expect(statusesOn(head).at(-1)).toBe("failure: Superseded holder");
    expect(statusesOn(head)).toHaveLength(3);
    // The take-back (the bot's login and the config read already) and the re-check of the PR, which
    // runs as soon as the store has the new claim (its requests may interleave with the take-back's).
    const routes = fixture.sim.routesSince(mark);
    const fenceRoute = (route: string) => /\/(pulls|statuses)\//.test(route);
    expect(routes.filter(fenceRoute)).toEqual([
      ...evaluationReads.slice(2),
      "POST /repos/{owner}/{repo}/statuses/{sha}",
    ]);
    expect(routes.filter((route) => !fenceRoute(route))).toEqual([
      // the `/reclaim` comment's author and body as Gitea serves them
      "GET /repos/{owner}/{repo}/issues/comments/{id}",
      "POST /repos/{owner}/{repo}/issues/comments/{id}/reactions",
      "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/issues/{index}/comments",
      // The take-back's read shows the holder's PR, which counts only while its author can write:
      // the holder's permission, read when it claimed, comes from the instance's one cache.
      "GET /repos/{owner}/{repo}/pulls",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "PATCH /repos/{owner}/{repo}/issues/{index}",
      "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}",
      "PATCH /repos/{owner}/{repo}/issues/comments/{id}",
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
    ]);
    expect(fixture.sim.state.repos[0]?.statuses.get(head)?.at(-1)).toMatchObject({ creator: botLogin });
  });

  it("a person's PR that closes no claimed issue, off the agent branches, gets success", async () => {
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Docs",
      author: "octo",
      body: "Just docs, see #1",
      headRef: "docs-typo",
    });
    const opened = await deliver(
      "pull_request",
      fixture.sim.payloads.pullRequest(fixture.repo, pull, "octo", "opened"),
    );
    expect(opened.status).toBe(200);
    expect(statusesOn(pull.pull?.headSha ?? "")).toEqual(["success: No agent claim involved"]);
  });

  it("a closing keyword in a commit message links the issue; a new push is judged at its new head", async () => {
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Widget work",
      author: "fleet-bot",
      body: "",
      headRef: claimed.branch ?? "",
      commits: [`Fix the widget\n\nfixes #${issue.number}`],
    });
    const opened = fixture.sim.payloads.pullRequest(fixture.repo, pull, "fleet-bot", "opened");
    expect((await deliver("pull_request", opened)).status).toBe(200);
    const first = pull.pull?.headSha ?? "";
    await attest(claimed, token, first);
    expect(statusesOn(first).at(-1)).toMatch(/^success: /);
    const next = fixture.sim.state.pushCommit(pull, "more work");
    mark = fixture.sim.requests.length;
    const pushed = fixture.sim.payloads.pullRequest(fixture.repo, pull, "fleet-bot", "synchronized");
    expect((await deliver("pull_request", pushed)).status).toBe(200);
    expect(statusesOn(next)).toEqual(["failure: Not attested by the current holder"]);
    expect(fixture.sim.routesSince(mark)).toEqual([
      ...evaluationReads.slice(2),
      "POST /repos/{owner}/{repo}/statuses/{sha}",
    ]);
  });

  it("a `claim-hold` status someone else posted on top is not the App's: the next evaluation writes its own over it", async () => {
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Typo",
      author: "octo",
      headRef: "typo",
    });
    const head = pull.pull?.headSha ?? "";
    await deliver("pull_request", fixture.sim.payloads.pullRequest(fixture.repo, pull, "octo", "opened"));
    fixture.sim.state.repos[0]?.statuses.get(head)?.push({
      id: fixture.sim.state.nextId(),
      state: "failure",
      context: "claim-hold",
      description: "spoofed",
      target_url: "",
      creator: "maintainer",
      createdAt: clock.now,
    });
    await deliver("pull_request", fixture.sim.payloads.pullRequest(fixture.repo, pull, "octo", "reopened"));
    expect(statusesOn(head)).toEqual([
      "success: No agent claim involved",
      "failure: spoofed",
      "success: No agent claim involved",
    ]);
  });

  it("an edit of the title alone and a closed PR read nothing from Gitea; label and assignee changes are ignored", async () => {
    const pull = fixture.sim.state.addPullRequest(fixture.repo, { title: "T", author: "octo", headRef: "t" });
    mark = fixture.sim.requests.length;
    const retitled = fixture.sim.payloads.pullRequest(fixture.repo, pull, "octo", "edited", { title: "old" });
    expect((await deliver("pull_request", retitled)).status).toBe(200);
    pull.state = "closed";
    const closed = fixture.sim.payloads.pullRequest(fixture.repo, pull, "octo", "closed");
    expect((await deliver("pull_request", closed)).status).toBe(200);
    // Gitea's pull_request_label and pull_request_assign events: nothing claim-hold decides reads a
    // pull request's labels or assignees (docs/reference/gitea-surfaces.md), as on GitHub.
    for (const action of ["label_updated", "label_cleared", "assigned", "unassigned"]) {
      const changed = fixture.sim.payloads.pullRequest(fixture.repo, pull, "octo", action);
      expect(await deliver("pull_request", changed)).toMatchObject({
        status: 202,
        body: { status: "ignored", event: `pull_request.${action}` },
      });
    }
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });
});

describe("the App's log", () => {
  it("holds no warning or error, and never the bot's token", () => {
    const problems = app.logs.filter((line) => /"level":(40|50|60)\b/.test(line));
    expect(problems).toEqual([]);
    expect(app.logs.join("\n")).not.toContain(botToken);
  });
});
