// The bounded refresh of the candidate index: what it reads from GitHub (counted exactly), what it writes, and where it stops.
import { generateKeyPairSync } from "node:crypto";
import { Octokit } from "@octokit/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubCandidateSource } from "../../src/providers/github/github-candidate-source.js";
import { createQueueRefresh } from "../../src/providers/github/refresh-candidates.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { QueueRepo } from "../../src/providers/queue-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { type GitHubSimulator, startGitHubSimulator } from "../../tools/github-sim/index.js";
import { createInstallationToken } from "../support/sim-helpers.js";

const appKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;
const repoName = "octo/widgets";
const installationId = 42;
const ranking = { priority: ["p0", "p1"], order: "oldest" as const };

let sim: GitHubSimulator;
let stores: Stores;
let repo: QueueRepo;
let refresh: ReturnType<typeof createQueueRefresh>;
let now = 1_800_000_000_000;

async function everything() {
  return (await stores.queue.rankedCandidates(repo, ranking, { offset: 0, limit: 500 })).candidates;
}

beforeEach(async () => {
  sim = await startGitHubSimulator({ appKey });
  sim.seed({
    users: [{ login: "alice" }, { login: "bob" }],
    repos: [
      // Bob can write: his PRs count (an outsider's would block nothing).
      { fullName: repoName, id: 777, collaborators: { alice: "maintain", bob: "write" } },
      { fullName: "octo/other", id: 778, issues: [{ number: 1, title: "Upstream" }] },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repoName, "octo/other"] }],
  });
  const token = await createInstallationToken(sim, appKey, installationId);
  const octokit = new Octokit({ auth: token, baseUrl: sim.baseUrl });
  stores = createMemoryStores();
  repo = { installationId, repoId: 777, repo: repoName };
  refresh = createQueueRefresh({
    source: new GitHubCandidateSource({ octokitFor: async () => octokit }),
    feed: stores.queue,
    now: () => now,
  });
});
afterEach(() => sim.close());

describe("the queue refresh", () => {
  it("indexes every open issue with its labels, assignees, open blockers, open sub-issues and open closing PRs", async () => {
    sim.addIssue(repoName, { number: 1, title: "Parser", labels: ["p1"], assignees: ["bob"] });
    sim.addIssue(repoName, { number: 2, title: "Lexer" });
    sim.addIssue(repoName, { number: 3, title: "Tracking" });
    sim.addIssue(repoName, { number: 4, title: "Done", state: "closed" });
    sim.addIssue(repoName, { number: 5, title: "Sub A" });
    sim.addIssue(repoName, { number: 6, title: "Sub B" });
    sim.setBlockedBy({ repo: repoName, issue: 2, blockedBy: 1, login: "alice" });
    sim.setBlockedBy({
      repo: repoName,
      issue: 2,
      blockedBy: { repo: "octo/other", issue: 1 },
      login: "alice",
    });
    sim.setBlockedBy({ repo: repoName, issue: 1, blockedBy: 4, login: "alice" });
    sim.setSubIssue({ repo: repoName, parent: 3, subIssue: 5, login: "alice" });
    sim.setSubIssue({ repo: repoName, parent: 3, subIssue: 6, login: "alice" });
    sim.closeIssue({ repo: repoName, issue: 6, login: "alice" });
    sim.openPull({ repo: repoName, number: 7, author: "bob", head: "fix-lexer", body: "Fixes #2" });
    const closed = sim.openPull({ repo: repoName, number: 8, author: "bob", head: "old", body: "Fixes #1" });
    sim.closePull(repoName, closed.number, "bob");

    const report = await refresh(repo);

    expect(report).toEqual({ repo: repoName, candidates: 4, githubRequests: 3, truncated: false });
    const byIssue = new Map((await everything()).map((c) => [c.issue, c]));
    expect([...byIssue.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 5]);
    expect(byIssue.get(1)).toMatchObject({
      title: "Parser",
      labels: ["p1"],
      assignees: ["bob"],
      blockers: [],
      closingPullRequests: [],
    });
    expect(byIssue.get(2)).toMatchObject({
      blockers: ["octo/widgets#1", "octo/other#1"],
      closingPullRequests: [{ number: 7, headRefName: "fix-lexer", author: "bob" }],
    });
    expect(byIssue.get(3)?.openSubIssues).toBe(1);
    expect(await stores.queue.refreshedAt(repo)).toBe(now);
  });

  it("costs the listing pages, one GraphQL page when an open PR exists, and one read per blocked issue — exactly", async () => {
    for (let n = 1; n <= 250; n++) sim.addIssue(repoName, { title: `Issue ${n}` });
    sim.setBlockedBy({ repo: repoName, issue: 10, blockedBy: 11, login: "alice" });
    sim.setBlockedBy({ repo: repoName, issue: 20, blockedBy: 21, login: "alice" });
    const mark = sim.requests.mark();

    const quiet = await refresh(repo);

    expect(quiet).toMatchObject({ candidates: 250, githubRequests: 5, truncated: false });
    expect(sim.requests.counts(mark)).toEqual({
      "GET /repos/{owner}/{repo}/issues": 3,
      "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by": 2,
    });

    sim.openPull({ repo: repoName, author: "bob", head: "feature", body: "Closes #30" });
    const withPull = sim.requests.mark();
    const report = await refresh(repo);
    expect(report.githubRequests).toBe(6);
    expect(sim.requests.counts(withPull)).toEqual({
      "GET /repos/{owner}/{repo}/issues": 3,
      "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by": 2,
      "graphql:QueueOpenPullRequests": 1,
    });
    expect((await everything()).find((c) => c.issue === 30)?.closingPullRequests).toMatchObject([
      { author: "bob" },
    ]);
  });

  it("concurrent refreshes of one repository share one read of GitHub", async () => {
    for (let n = 1; n <= 120; n++) sim.addIssue(repoName, { title: `Issue ${n}` });
    const mark = sim.requests.mark();
    const reports = await Promise.all(Array.from({ length: 5 }, () => refresh(repo)));
    expect(new Set(reports).size).toBe(1);
    expect(sim.requests.counts(mark)).toEqual({ "GET /repos/{owner}/{repo}/issues": 2 });
    // Once it ended, the next caller refreshes again.
    await refresh(repo);
    expect(sim.requests.count({}, mark)).toBe(4);
  });

  it("stops at its page cap: the index holds the oldest issues, the report says truncated", async () => {
    for (let n = 1; n <= 101; n++) sim.addIssue(repoName, { title: `Issue ${n}` });
    const token = await createInstallationToken(sim, appKey, installationId);
    const octokit = new Octokit({ auth: token, baseUrl: sim.baseUrl });
    const capped = createQueueRefresh({
      source: new GitHubCandidateSource({ octokitFor: async () => octokit }),
      feed: stores.queue,
      now: () => now,
      maxPages: 1,
    });
    const mark = sim.requests.mark();

    expect(await capped(repo)).toEqual({
      repo: repoName,
      candidates: 100,
      githubRequests: 1,
      truncated: true,
    });
    expect(sim.requests.count({}, mark)).toBe(1);
    const issues = (await everything()).map((c) => c.issue);
    expect(issues).toHaveLength(100);
    expect(issues).not.toContain(101);
  });

  it("a second refresh replaces the index: closed issues leave, new ones enter, facts follow GitHub", async () => {
    sim.addIssue(repoName, { number: 1, title: "Parser" });
    sim.addIssue(repoName, { number: 2, title: "Lexer" });
    await refresh(repo);
    sim.closeIssue({ repo: repoName, issue: 1, login: "alice" });
    sim.addIssue(repoName, { number: 3, title: "New" });
    sim.assign({ repo: repoName, issue: 2, login: "alice", labels: ["p0"] });
    now += 60_000;

    await refresh(repo);

    const candidates = await everything();
    expect(candidates.map((c) => c.issue)).toEqual([2, 3]);
    expect(candidates[0]?.labels).toEqual(["p0"]);
    expect(await stores.queue.refreshedAt(repo)).toBe(now);
  });
});
