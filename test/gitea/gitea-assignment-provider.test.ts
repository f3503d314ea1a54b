// GiteaAssignmentProvider's reads against the Gitea simulator: a subject's snapshot and trusted markers, listings, repositories, exact requests.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderClaimComment, sealClaimComment } from "../../src/domain/claim-marker.js";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import {
  GiteaAssignmentProvider,
  maxPullRequestPages,
} from "../../src/providers/gitea/gitea-assignment-provider.js";
import { agentClaimRecord } from "../support/claim-record.js";
import { botLogin, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const seal = createMarkerSeal("gitea-provider-test-secret");
const clock = { now: Date.parse("2026-12-01T10:00:00Z") };
let fixture: GiteaSimFixture;
let provider: GiteaAssignmentProvider;
let rejected: string[];

beforeEach(async () => {
  fixture = await startGiteaSimFixture(clock);
  rejected = [];
  provider = new GiteaAssignmentProvider({
    client: fixture.client,
    seal,
    onMarkerRejected: (reason) => rejected.push(reason),
  });
});
afterEach(() => fixture.sim.close());

const ref = (issue: number) => ({ installationId: 1, repo: "octo/widgets", issue });

/** The claim of #issue exactly as a transition writes it: assignee, label and the signed claim comment. */
async function claimOnGitea(issue: number, generation = 3) {
  const record = agentClaimRecord({ repoId: fixture.repo.id, issue, generation });
  const applied = await provider.apply(ref(issue), {
    subjectNodeId: "unused",
    assign: ["fleet-bot"],
    addLabels: ["agent:claimed"],
    createClaimComment: renderClaimComment(record, "active"),
  });
  return { record, commentId: applied.claimComment?.databaseId };
}

describe("GiteaAssignmentProvider.status", () => {
  it("reads a fresh issue: the bot's login once, the issue, no comment read when it has none, the open PRs — 3 requests, then 2", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, {
      title: "Fix the widget",
      author: "octo",
      labels: ["bug"],
    });
    const mark = fixture.sim.requests.length;
    const snapshot = await provider.status(ref(issue.number));
    expect(snapshot).toMatchObject({
      repoId: fixture.repo.id,
      repo: "octo/widgets",
      issue: issue.number,
      title: "Fix the widget",
      state: "open",
      assignees: [],
      labels: ["bug"],
      claimComments: [],
      rejectedMarkers: 0,
      auditComments: 0,
      markerSearch: "complete",
      openPullRequests: [],
      branchCommittedAt: null,
      updatedAt: clock.now,
    });
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /user",
      "GET /repos/{owner}/{repo}/pulls",
    ]);
    const again = fixture.sim.requests.length;
    await provider.status(ref(issue.number));
    expect(fixture.sim.routesSince(again)).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/pulls",
    ]);
  });

  it("reads back a claim it wrote: assignee by login, the label, the trusted claim comment — the issue, the bot's login (first read), the comments, the open PRs", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "Claimed", author: "octo" });
    const { commentId } = await claimOnGitea(issue.number);
    const mark = fixture.sim.requests.length;
    const snapshot = await provider.status(ref(issue.number));
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /user",
      "GET /repos/{owner}/{repo}/issues/{index}/comments",
      "GET /repos/{owner}/{repo}/pulls",
    ]);
    expect(snapshot?.assignees).toEqual([{ login: "fleet-bot", nodeId: "fleet-bot" }]);
    expect(snapshot?.labels).toEqual(["agent:claimed"]);
    expect(snapshot?.claimComments).toHaveLength(1);
    expect(snapshot?.claimComments[0]).toMatchObject({
      nodeId: String(commentId),
      databaseId: commentId,
      marker: { subject: `octo/widgets#${issue.number}`, generation: 3, state: "active" },
    });
  });

  it("trusts no marker a person pasted, and counts a tampered one in the App's own comment", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "Pasted", author: "octo" });
    const record = agentClaimRecord({ repoId: fixture.repo.id, issue: issue.number, generation: 9 });
    const signed = sealClaimComment(renderClaimComment(record, "active"), seal);
    fixture.sim.state.addComment(issue, "reader", signed);
    fixture.sim.state.addComment(issue, botLogin, signed.replace('"generation":9', '"generation":10'));
    fixture.sim.state.addComment(issue, botLogin, "🧹 Reaped: generation 8 had no heartbeat.");
    const snapshot = await provider.status(ref(issue.number));
    expect(snapshot).toMatchObject({
      claimComments: [],
      rejectedMarkers: 1,
      rejectedAfterTrusted: 1,
      auditComments: 1,
    });
    expect(rejected).toEqual(["marker outside the App's comments", "marker signature does not verify"]);
  });

  it("reads every page of open pull requests for a claim's branch: the claim's PR behind 50 newer ones is seen", async () => {
    const { state } = fixture.sim;
    const issue = state.addIssue(fixture.repo, { title: "Claimed", author: "octo" });
    const mine = state.addPullRequest(fixture.repo, {
      title: "mine",
      author: "fleet-bot",
      headRef: "agent/s1/1",
    });
    clock.now += 1000;
    for (let n = 0; n < 54; n++)
      state.addPullRequest(fixture.repo, { title: `other ${n}`, author: "octo", headRef: `o${n}` });
    await provider.status(ref(issue.number)); // the bot's login is known from here on
    const mark = fixture.sim.requests.length;
    const snapshot = await provider.status(ref(issue.number), { branch: "agent/s1/1" });
    expect(snapshot?.openPullRequests).toEqual([
      { number: mine.number, headRef: "agent/s1/1", author: "fleet-bot" },
    ]);
    const pulls = fixture.sim.requests
      .slice(mark)
      .filter((r) => r.route === "GET /repos/{owner}/{repo}/pulls");
    expect(pulls.map((r) => r.query)).toEqual([
      "?state=open&sort=recentupdate&page=1&limit=50",
      "?state=open&sort=recentupdate&page=2&limit=50",
    ]);
    // The issue, then the pages and the branch, and the permission of the claim PR's author (cached after).
    expect(fixture.sim.routesSince(mark)).toHaveLength(5);
    expect(fixture.sim.routesSince(mark).at(-1)).toBe(
      "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission",
    );
  });

  it("a reader's PR from a branch of the issue's repository is an outsider's: listed, not counted — its author's permission read once, cached", async () => {
    const { state } = fixture.sim;
    const issue = state.addIssue(fixture.repo, { title: "Claimed", author: "octo" });
    const readers = state.addPullRequest(fixture.repo, {
      title: "a reader's",
      author: "reader",
      body: `Fixes #${issue.number}`,
      headRef: "agent/s1/1",
    });
    const writers = state.addPullRequest(fixture.repo, {
      title: "a writer's",
      author: "maintainer",
      body: `Closes #${issue.number}`,
      headRef: "feature/x",
    });
    await provider.status(ref(issue.number)); // the bot's login and both permissions are known from here on
    const mark = fixture.sim.requests.length;
    const snapshot = await provider.status(ref(issue.number), { branch: "agent/s1/1" });
    expect(snapshot?.openPullRequests).toEqual([
      { number: writers.number, headRef: "feature/x", author: "maintainer" },
    ]);
    expect(snapshot?.outsiderPullRequests).toEqual([
      { number: readers.number, headRef: "agent/s1/1", author: "reader" },
    ]);
    expect(fixture.sim.routesSince(mark).sort()).toEqual([
      "GET /repos/{owner}/{repo}/branches/{branch}",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/pulls",
    ]);
  });

  it("a claim without a branch sees the open PR that closes the issue (pr_open), as on GitHub", async () => {
    const { state } = fixture.sim;
    const issue = state.addIssue(fixture.repo, { title: "Taken by a PR", author: "octo" });
    const closing = state.addPullRequest(fixture.repo, {
      title: "closes it",
      author: "fleet-bot",
      body: `Fixes #${issue.number}`,
      headRef: "agent/other/1",
    });
    state.addPullRequest(fixture.repo, { title: "unrelated", author: "fleet-bot", headRef: "agent/other/2" });
    const mark = fixture.sim.requests.length;
    const snapshot = await provider.status(ref(issue.number));
    expect(snapshot?.openPullRequests).toEqual([
      { number: closing.number, headRef: "agent/other/1", author: "fleet-bot" },
    ]);
    expect(snapshot?.branchCommittedAt).toBeNull();
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /user",
      "GET /repos/{owner}/{repo}/pulls",
      "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission",
    ]);
  });

  it("stops at a short page (exactly 50: one empty page more) and at 10 pages", async () => {
    const { state } = fixture.sim;
    const issue = state.addIssue(fixture.repo, { title: "Claimed", author: "octo" });
    for (let n = 0; n < 50; n++)
      state.addPullRequest(fixture.repo, { title: `p${n}`, author: "octo", headRef: `p${n}` });
    await provider.status(ref(issue.number));
    const pullReads = async () => {
      const mark = fixture.sim.requests.length;
      await provider.status(ref(issue.number), { branch: "agent/s1/1" });
      return fixture.sim.routesSince(mark).filter((r) => r === "GET /repos/{owner}/{repo}/pulls").length;
    };
    expect(await pullReads()).toBe(2);
    for (let n = 50; n < 520; n++)
      state.addPullRequest(fixture.repo, { title: `p${n}`, author: "octo", headRef: `p${n}` });
    expect(await pullReads()).toBe(maxPullRequestPages);
  });

  it("answers null for a pull request and for an issue Gitea does not have", async () => {
    const pull = fixture.sim.state.addIssue(fixture.repo, { title: "A PR", author: "octo", isPull: true });
    expect(await provider.status(ref(pull.number))).toBeNull();
    expect(await provider.status(ref(999))).toBeNull();
  });
});

describe("GiteaAssignmentProvider listings", () => {
  it("lists open issues most recently updated first, reading comments only of issues that have some", async () => {
    const { state } = fixture.sim;
    const older = state.addIssue(fixture.repo, { title: "older", author: "octo" });
    clock.now += 1000;
    const claimed = state.addIssue(fixture.repo, { title: "claimed", author: "octo" });
    await claimOnGitea(claimed.number);
    state.addIssue(fixture.repo, { title: "a PR", author: "octo", isPull: true });
    await provider.status(ref(older.number)); // the bot's login is known from here on
    const mark = fixture.sim.requests.length;
    const page = await provider.listOpenIssues({ installationId: 1, repo: "octo/widgets" }, { first: 10 });
    expect(page.issues.map((i) => i.issue)).toEqual([claimed.number, older.number]);
    expect(page).toMatchObject({ repoId: fixture.repo.id, hasNextPage: false, endCursor: null });
    expect(page.issues[0]?.claimComments).toHaveLength(1);
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/issues",
      "GET /repos/{owner}/{repo}/issues/{index}/comments",
    ]);
    expect(fixture.sim.requests.at(mark)?.query).toBe("?state=open&type=issues&page=1&limit=10");
  });

  it("filters one label on Gitea's side and several (any of them) on its own; pages by number", async () => {
    const { state } = fixture.sim;
    const claimed = state.addIssue(fixture.repo, { title: "c", author: "octo", labels: ["agent:claimed"] });
    const stale = state.addIssue(fixture.repo, { title: "s", author: "octo", labels: ["agent:stale"] });
    state.addIssue(fixture.repo, { title: "bug", author: "octo", labels: ["bug"] });
    const repoRef = { installationId: 1, repo: "octo/widgets" };
    const one = await provider.listOpenIssues(repoRef, { first: 50, labels: ["agent:claimed"] });
    expect(one.issues.map((i) => i.issue)).toEqual([claimed.number]);
    const any = await provider.listOpenIssues(repoRef, {
      first: 50,
      labels: ["agent:claimed", "agent:stale"],
    });
    expect(any.issues.map((i) => i.issue).sort()).toEqual([claimed.number, stale.number].sort());
    const first = await provider.listOpenIssues(repoRef, { first: 2 });
    expect(first).toMatchObject({ hasNextPage: true, endCursor: "2" });
    const second = await provider.listOpenIssues(repoRef, { first: 2, after: first.endCursor });
    expect(second.issues).toHaveLength(1);
    expect(second).toMatchObject({ hasNextPage: false, endCursor: null });
  });

  it("reads the repository's id when it has no open issue, and answers null for one the bot cannot see", async () => {
    const mark = fixture.sim.requests.length;
    const empty = await provider.listOpenIssues({ installationId: 1, repo: "octo/widgets" }, { first: 10 });
    expect(empty).toEqual({ repoId: fixture.repo.id, issues: [], hasNextPage: false, endCursor: null });
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/issues",
      "GET /repos/{owner}/{repo}",
    ]);
    const missing = await provider.listOpenIssues({ installationId: 1, repo: "octo/nope" }, { first: 10 });
    expect(missing.repoId).toBeNull();
  });

  it("lists the bot's repositories and names a repository by id (null when unknown)", async () => {
    fixture.sim.state.addRepo("octo/gadgets");
    expect(await provider.listRepositories(1)).toEqual(["octo/widgets", "octo/gadgets"]);
    expect(await provider.repositoryName(1, fixture.repo.id)).toBe("octo/widgets");
    expect(await provider.repositoryName(1, 424242)).toBeNull();
  });
});
