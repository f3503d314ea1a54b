// The pure parts of the Gitea queue and branch reads: which open pull requests a claim's branch evidence shows, which close an indexed issue, and an issue's facts.
import { describe, expect, it } from "vitest";
import {
  closingPullRequestsByIssue,
  giteaFactsOf,
} from "../../src/providers/gitea/gitea-candidate-source.js";
import type { GiteaIssueRead, GiteaPullRequest } from "../../src/providers/gitea/gitea-schemas.js";
import { giteaBranchEvidence } from "../../src/providers/gitea/gitea-subject-snapshot.js";

const repoId = 7;
const pull = (
  number: number,
  over: Partial<GiteaPullRequest> & { headRepo?: number } = {},
): GiteaPullRequest => ({
  number,
  state: "open",
  title: `PR ${number}`,
  body: "",
  user: { id: 1, login: "fleet-bot" },
  head: { ref: `agent/s/${number}`, sha: "a".repeat(40), repo_id: over.headRepo ?? repoId },
  ...over,
});

describe("giteaBranchEvidence", () => {
  const subject = { repoId, repo: "octo/widgets", issue: 3, branch: "agent/s/10" };
  it.each([
    ["the branch's PR from the repository counts", [pull(10)], [10], []],
    ["a PR from another branch that does not close the issue is not shown", [pull(11)], [], []],
    ["a PR whose description closes the issue counts", [pull(12, { body: "Fixes #3" })], [12], []],
    ["a closing keyword in code is not read", [pull(13, { body: "`Fixes #3`" })], [], []],
    ["a fork's PR from the branch is an outsider's", [pull(10, { headRepo: 99 })], [], [10]],
    ["a closed PR is not shown", [pull(10, { state: "closed" })], [], []],
  ])("%s", (_, pulls, counted, outsiders) => {
    const evidence = giteaBranchEvidence(pulls, subject);
    expect(evidence.openPullRequests.map((pr) => pr.number)).toEqual(counted);
    expect(evidence.outsiderPullRequests?.map((pr) => pr.number)).toEqual(outsiders);
  });

  it("shows the head branch and the author", () => {
    expect(giteaBranchEvidence([pull(10)], subject).openPullRequests).toEqual([
      { number: 10, headRef: "agent/s/10", author: "fleet-bot" },
    ]);
  });
});

describe("closingPullRequestsByIssue", () => {
  const repo = { installationId: 2 ** 48 + 1, repoId, repo: "octo/widgets" };
  it("maps each issue a repository PR's description closes to it; a fork's closes nothing here", () => {
    const byIssue = closingPullRequestsByIssue(
      [pull(20, { body: "Closes #3 and fixes #4" }), pull(21, { body: "Fixes #3", headRepo: 99 }), pull(22)],
      repo,
    );
    expect([...byIssue.keys()]).toEqual([3, 4]);
    expect(byIssue.get(3)).toEqual([{ number: 20, headRefName: "agent/s/20", author: "fleet-bot" }]);
  });
});

describe("giteaFactsOf", () => {
  const issue: GiteaIssueRead = {
    id: 100,
    number: 3,
    state: "open",
    title: "Task",
    created_at: "2026-11-29T10:00:00Z",
    updated_at: "2026-11-29T11:00:00Z",
    comments: 0,
    labels: [{ id: 1, name: "needs:gpu" }],
    assignees: [{ id: 2, login: "octo" }],
    repository: { id: repoId, full_name: "octo/widgets" },
  };
  it("takes labels, assignees and the creation time; Gitea has no sub-issues", () => {
    expect(giteaFactsOf(issue, { blockers: ["octo/widgets#1"], closingPullRequests: [] })).toEqual({
      issue: 3,
      title: "Task",
      createdAt: Date.parse("2026-11-29T10:00:00Z"),
      labels: ["needs:gpu"],
      assignees: ["octo"],
      blockers: ["octo/widgets#1"],
      openSubIssues: 0,
      closingPullRequests: [],
    });
  });
  it("falls back to the update time when the creation time is absent", () => {
    const { created_at: _, ...withoutCreated } = issue;
    expect(giteaFactsOf(withoutCreated, { blockers: [], closingPullRequests: [] }).createdAt).toBe(
      Date.parse("2026-11-29T11:00:00Z"),
    );
  });
});
