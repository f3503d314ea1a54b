// The simulator's issue dependencies and sub-issues: REST lists and writes, summaries on issue objects, GraphQL's subIssuesSummary, and their webhooks.
import { generateKeyPairSync } from "node:crypto";
import type { components as Rest } from "@octokit/openapi-types";
import type { components as Hooks } from "@octokit/openapi-webhooks-types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type GitHubSimulator, startGitHubSimulator } from "../tools/github-sim/index.js";
import { createInstallationToken, simGraphql } from "./support/sim-helpers.js";

const appKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;
const repo = "octo/widgets";
const installationId = 42;

let sim: GitHubSimulator;
let token: string;

async function rest<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T; link: string | null }> {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `token ${token}`,
      accept: "application/vnd.github+json",
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : undefined) as T,
    link: response.headers.get("link"),
  };
}

type Issue = Rest["schemas"]["issue"];

beforeEach(async () => {
  sim = await startGitHubSimulator({ appKey });
  sim.seed({
    users: [{ login: "alice" }],
    repos: [
      {
        fullName: repo,
        collaborators: { alice: "maintain" },
        issues: [
          { number: 1, title: "Parser" },
          { number: 2, title: "Lexer" },
          { number: 3, title: "Tracking" },
          { number: 4, title: "Docs" },
        ],
      },
      { fullName: "octo/other", issues: [{ number: 1, title: "Elsewhere" }] },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repo, "octo/other"] }],
  });
  token = await createInstallationToken(sim, appKey, installationId);
});
afterEach(() => sim.close());

describe("the simulator's issue dependencies", () => {
  it("adds, lists and removes blockers by issue id; the summary counts open blockers beside the total", async () => {
    const lexer = sim.state.requireIssue(sim.state.requireRepo(repo), 2);
    const elsewhere = sim.state.requireIssue(sim.state.requireRepo("octo/other"), 1);
    const added = await rest<Issue>("POST", `/repos/${repo}/issues/1/dependencies/blocked_by`, {
      issue_id: lexer.id,
    });
    expect(added.status).toBe(201);
    expect(added.body.number).toBe(2);
    await rest("POST", `/repos/${repo}/issues/1/dependencies/blocked_by`, { issue_id: elsewhere.id });
    sim.closeIssue({ repo: "octo/other", issue: 1, login: "octo" });

    const list = await rest<Issue[]>("GET", `/repos/${repo}/issues/1/dependencies/blocked_by`);
    expect(list.body.map((i) => [i.html_url.split("/").slice(-4).join("/"), i.state])).toEqual([
      ["octo/widgets/issues/2", "open"],
      ["octo/other/issues/1", "closed"],
    ]);
    const issue = await rest<Issue>("GET", `/repos/${repo}/issues/1`);
    expect(issue.body.issue_dependencies_summary).toEqual({
      blocked_by: 1,
      total_blocked_by: 2,
      blocking: 0,
      total_blocking: 0,
    });
    const blocker = await rest<Issue>("GET", `/repos/${repo}/issues/2`);
    expect(blocker.body.issue_dependencies_summary).toMatchObject({ blocking: 1, total_blocking: 1 });
    const blocking = await rest<Issue[]>("GET", `/repos/${repo}/issues/2/dependencies/blocking`);
    expect(blocking.body.map((i) => i.number)).toEqual([1]);

    const removed = await rest<Issue>(
      "DELETE",
      `/repos/${repo}/issues/1/dependencies/blocked_by/${lexer.id}`,
    );
    expect(removed.status).toBe(200);
    const after = await rest<Issue>("GET", `/repos/${repo}/issues/1`);
    expect(after.body.issue_dependencies_summary).toMatchObject({ blocked_by: 0, total_blocked_by: 1 });
    expect((await rest("DELETE", `/repos/${repo}/issues/1/dependencies/blocked_by/${lexer.id}`)).status).toBe(
      404,
    );
  });

  it("refuses what GitHub refuses: itself, a duplicate, a cycle, an unknown id", async () => {
    const self = sim.state.requireIssue(sim.state.requireRepo(repo), 1);
    const lexer = sim.state.requireIssue(sim.state.requireRepo(repo), 2);
    expect(
      (await rest("POST", `/repos/${repo}/issues/1/dependencies/blocked_by`, { issue_id: self.id })).status,
    ).toBe(422);
    expect(
      (await rest("POST", `/repos/${repo}/issues/1/dependencies/blocked_by`, { issue_id: lexer.id })).status,
    ).toBe(201);
    expect(
      (await rest("POST", `/repos/${repo}/issues/1/dependencies/blocked_by`, { issue_id: lexer.id })).status,
    ).toBe(422);
    expect(
      (await rest("POST", `/repos/${repo}/issues/2/dependencies/blocked_by`, { issue_id: self.id })).status,
    ).toBe(422);
    expect(
      (await rest("POST", `/repos/${repo}/issues/1/dependencies/blocked_by`, { issue_id: 999_999 })).status,
    ).toBe(404);
    expect((await rest("POST", `/repos/${repo}/issues/1/dependencies/blocked_by`, {})).status).toBe(422);
  });

  it("sends issue_dependencies blocked_by_added to the blocked issue's repository and blocking_added to the blocker's", async () => {
    sim.setBlockedBy({ repo, issue: 1, blockedBy: { repo: "octo/other", issue: 1 }, login: "alice" });
    const [blockedBy, blocking] = sim.deliveries({ event: "issue_dependencies" });
    const added = blockedBy!
      .payload as unknown as Hooks["schemas"]["webhook-issue-dependencies-blocked-by-added"];
    expect(added.action).toBe("blocked_by_added");
    expect(added.repository.full_name).toBe(repo);
    expect(added.blocked_issue.number).toBe(1);
    expect(added.blocked_issue_id).toBe(added.blocked_issue.id);
    expect(added.blocking_issue.number).toBe(1);
    expect(added.blocking_issue_repo.full_name).toBe("octo/other");
    expect(added.blocked_issue.issue_dependencies_summary).toMatchObject({
      blocked_by: 1,
      total_blocked_by: 1,
    });
    expect(added.installation?.id).toBe(installationId);
    expect(added.sender.login).toBe("alice");
    const mirror = blocking!
      .payload as unknown as Hooks["schemas"]["webhook-issue-dependencies-blocking-added"];
    expect(mirror.action).toBe("blocking_added");
    expect(mirror.repository.full_name).toBe("octo/other");
    expect(mirror.blocked_issue_repo.full_name).toBe(repo);

    sim.setBlockedBy({
      repo,
      issue: 1,
      blockedBy: { repo: "octo/other", issue: 1 },
      login: "alice",
      remove: true,
    });
    expect(sim.deliveries({ event: "issue_dependencies" }).map((d) => d.action)).toEqual([
      "blocked_by_added",
      "blocking_added",
      "blocked_by_removed",
      "blocking_removed",
    ]);
  });
});

describe("the simulator's sub-issues", () => {
  it("adds, lists and removes sub-issues; the parent's summary, parent_issue_url and GraphQL's subIssuesSummary agree", async () => {
    const [parser, lexer] = [1, 2].map((n) => sim.state.requireIssue(sim.state.requireRepo(repo), n));
    expect(
      (await rest("POST", `/repos/${repo}/issues/3/sub_issues`, { sub_issue_id: parser!.id })).status,
    ).toBe(201);
    expect(
      (await rest("POST", `/repos/${repo}/issues/3/sub_issues`, { sub_issue_id: lexer!.id })).status,
    ).toBe(201);
    sim.closeIssue({ repo, issue: 2, login: "alice" });

    const list = await rest<Issue[]>("GET", `/repos/${repo}/issues/3/sub_issues`);
    expect(list.body.map((i) => i.number)).toEqual([1, 2]);
    const parent = await rest<Issue>("GET", `/repos/${repo}/issues/3`);
    expect(parent.body.sub_issues_summary).toEqual({ total: 2, completed: 1, percent_completed: 50 });
    const child = await rest<Issue>("GET", `/repos/${repo}/issues/1`);
    expect(child.body.parent_issue_url).toBe(`${sim.baseUrl}/repos/${repo}/issues/3`);

    const github = simGraphql(sim, token);
    const answer = await github<{
      repository: {
        issue: { subIssuesSummary: { total: number; completed: number; percentCompleted: number } };
      };
    }>(
      `query SubIssues($owner: String!, $name: String!) {
        repository(owner: $owner, name: $name) { issue(number: 3) { subIssuesSummary { total completed percentCompleted } } }
      }`,
      { owner: "octo", name: "widgets" },
    );
    expect(answer.repository.issue.subIssuesSummary).toEqual({
      total: 2,
      completed: 1,
      percentCompleted: 50,
    });

    // A sub-issue has one parent unless replace_parent moves it.
    expect(
      (await rest("POST", `/repos/${repo}/issues/4/sub_issues`, { sub_issue_id: parser!.id })).status,
    ).toBe(422);
    expect(
      (
        await rest("POST", `/repos/${repo}/issues/4/sub_issues`, {
          sub_issue_id: parser!.id,
          replace_parent: true,
        })
      ).status,
    ).toBe(201);
    const moved = await rest<Issue>("GET", `/repos/${repo}/issues/3`);
    expect(moved.body.sub_issues_summary).toMatchObject({ total: 1, completed: 1 });

    expect(
      (await rest("DELETE", `/repos/${repo}/issues/4/sub_issue`, { sub_issue_id: parser!.id })).status,
    ).toBe(200);
    expect(
      (await rest("DELETE", `/repos/${repo}/issues/4/sub_issue`, { sub_issue_id: parser!.id })).status,
    ).toBe(404);
    expect((await rest<Issue>("GET", `/repos/${repo}/issues/1`)).body.parent_issue_url).toBeNull();
  });

  it("sends sub_issues sub_issue_added to the parent's repository and parent_issue_added to the sub-issue's", async () => {
    sim.setSubIssue({ repo, parent: 3, subIssue: 1, login: "alice" });
    const [added, mirror] = sim.deliveries({ event: "sub_issues" });
    const payload = added!.payload as unknown as Hooks["schemas"]["webhook-sub-issues-sub-issue-added"];
    expect(payload.action).toBe("sub_issue_added");
    expect(payload.parent_issue.number).toBe(3);
    expect(payload.parent_issue.sub_issues_summary).toEqual({ total: 1, completed: 0, percent_completed: 0 });
    expect(payload.sub_issue.number).toBe(1);
    expect(payload.sub_issue_repo.full_name).toBe(repo);
    expect(payload.repository?.full_name).toBe(repo);
    expect(mirror!.action).toBe("parent_issue_added");
    sim.setSubIssue({ repo, parent: 3, subIssue: 1, login: "alice", remove: true });
    expect(sim.deliveries({ event: "sub_issues" }).map((d) => d.action)).toEqual([
      "sub_issue_added",
      "parent_issue_added",
      "sub_issue_removed",
      "parent_issue_removed",
    ]);
  });
});

describe("the simulator's issue list", () => {
  it("pages with per_page, page and a Link header, and lists pull requests with pull_request set, as GitHub does", async () => {
    for (let n = 0; n < 4; n++) sim.addIssue(repo, { title: `more ${n}` });
    sim.openPull({ repo, author: "alice", head: "feature" });
    const first = await rest<Issue[]>(
      "GET",
      `/repos/${repo}/issues?state=open&per_page=5&page=1&direction=asc`,
    );
    expect(first.body.map((i) => i.number)).toEqual([1, 2, 3, 4, 5]);
    expect(first.link).toContain('rel="next"');
    expect(first.link).toContain("page=2");
    const second = await rest<Issue[]>(
      "GET",
      `/repos/${repo}/issues?state=open&per_page=5&page=2&direction=asc`,
    );
    expect(second.body.map((i) => [i.number, i.pull_request !== undefined])).toEqual([
      [6, false],
      [7, false],
      [8, false],
      [9, true],
    ]);
    expect(second.link).not.toContain('rel="next"');
  });

  it("answers the control routes for dependencies and sub-issues over HTTP", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${sim.url}${path}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
    expect(
      (await post("/_sim/issues/blocked-by", { repo, issue: 1, blockedBy: 2, login: "alice" })).status,
    ).toBe(200);
    expect(
      (await post("/_sim/issues/sub-issues", { repo, parent: 3, subIssue: 4, login: "alice" })).status,
    ).toBe(200);
    expect(
      (await post("/_sim/issues/blocked-by", { repo, issue: 1, blockedBy: 2, login: "alice" })).status,
    ).toBe(400);
    const summary = await rest<Issue>("GET", `/repos/${repo}/issues/1`);
    expect(summary.body.issue_dependencies_summary?.blocked_by).toBe(1);
  });
});
