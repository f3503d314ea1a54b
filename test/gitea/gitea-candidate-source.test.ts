// The pure parts of the Gitea queue and subject reads: which open pull requests a subject's read shows, whose count, which close an indexed issue, and an issue's facts.
import { describe, expect, it } from "vitest";
import {
  closingPullRequestsByIssue,
  giteaFactsOf,
} from "../../src/providers/gitea/gitea-candidate-source.js";
import type { GiteaIssueRead, GiteaPullRequest } from "../../src/providers/gitea/gitea-schemas.js";
import {
  authorsToAsk,
  giteaPullRequestCounts,
  giteaPullRequestEvidence,
  pullRequestsOfSubject,
} from "../../src/providers/gitea/gitea-subject-snapshot.js";

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

describe("pullRequestsOfSubject", () => {
  const subject = { repo: "octo/widgets", issue: 3, branch: "agent/s/10" };
  it.each([
    ["the claim's branch's PR is shown", [pull(10)], subject, [10]],
    ["a PR from another branch that does not close the issue is not shown", [pull(11)], subject, []],
    ["a PR whose description closes the issue is shown", [pull(12, { body: "Fixes #3" })], subject, [12]],
    ["a closing keyword in code is not read", [pull(13, { body: "`Fixes #3`" })], subject, []],
    ["a closed PR is not shown", [pull(10, { state: "closed" })], subject, []],
    [
      "without a branch, a PR closing the issue is shown",
      [pull(12, { body: "Fixes #3" })],
      { repo: "octo/widgets", issue: 3 },
      [12],
    ],
    ["without a branch, no branch matches", [pull(10)], { repo: "octo/widgets", issue: 3 }, []],
  ])("%s", (_, pulls, asked, shown) => {
    expect(pullRequestsOfSubject(pulls, asked).map((pr) => pr.number)).toEqual(shown);
  });
});

describe("giteaPullRequestCounts: whose open PR counts (docs/security.md#trust-model)", () => {
  const context = { repoId, botLogin: "claim-hold-bot" };
  const by = (login: string, headRepo = repoId) => pull(10, { user: { id: 3, login }, headRepo });
  it.each([
    ["a writer's PR from the base repository", by("fleet-bot"), "write", true],
    ["an admin's PR from the base repository", by("maintainer"), "admin", true],
    ["a reader's PR from the base repository (AGit flow)", by("reader"), "read", false],
    ["a PR by a login with no permission", by("stranger"), "none", false],
    ["a PR whose author's permission Gitea did not answer", by("someone"), "unknown", true],
    ["a PR whose author's permission was not read", by("someone"), undefined, false],
    ["the App's own PR, its permission unread", by("Claim-Hold-Bot"), undefined, true],
    ["a writer's PR from a fork", by("fleet-bot", 99), "write", false],
    ["the App's PR from a fork", by("claim-hold-bot", 99), undefined, false],
    [
      "a PR whose head repository is gone",
      pull(10, { head: { ref: "x", sha: "a".repeat(40), repo_id: null } }),
      "write",
      false,
    ],
  ] as const)("%s", (_, pr, permission, counts) => {
    expect(giteaPullRequestCounts(pr, context, permission)).toBe(counts);
  });
});

describe("giteaPullRequestEvidence", () => {
  const context = { repoId, botLogin: "claim-hold-bot" };
  const by = (number: number, login: string, headRepo = repoId) =>
    pull(number, { user: { id: 3, login }, headRepo });
  it("splits the shown PRs: a writer's and the App's count, a reader's and a fork's are outsiders', an unanswered permission counts unproven", () => {
    const permissions = new Map([
      ["fleet-bot", "write"],
      ["reader", "read"],
      ["someone", "unknown"],
    ] as const);
    const evidence = giteaPullRequestEvidence(
      [
        by(1, "fleet-bot"),
        by(2, "reader"),
        by(3, "claim-hold-bot"),
        by(4, "fleet-bot", 99),
        by(5, "Someone"),
      ],
      context,
      permissions,
    );
    expect(evidence).toEqual({
      openPullRequests: [
        { number: 1, headRef: "agent/s/1", author: "fleet-bot" },
        { number: 3, headRef: "agent/s/3", author: "claim-hold-bot" },
        { number: 5, headRef: "agent/s/5", author: "Someone", writeUnproven: true },
      ],
      outsiderPullRequests: [
        { number: 2, headRef: "agent/s/2", author: "reader" },
        { number: 4, headRef: "agent/s/4", author: "fleet-bot" },
      ],
    });
  });

  it("asks the permission of the base repository's authors only, once each, the App's account aside", () => {
    expect(
      authorsToAsk(
        [
          by(1, "fleet-bot"),
          by(2, "reader"),
          by(3, "claim-hold-bot"),
          by(4, "fork-owner", 99),
          by(5, "fleet-bot"),
        ],
        context,
      ),
    ).toEqual(["fleet-bot", "reader"]);
  });
});

describe("closingPullRequestsByIssue", () => {
  const repo = { installationId: 2 ** 48 + 1, repoId, repo: "octo/widgets" };
  it("maps each issue a counted PR's description closes to it; a fork's and a reader's close nothing here", () => {
    const byIssue = closingPullRequestsByIssue(
      [
        pull(20, { body: "Closes #3 and fixes #4" }),
        pull(21, { body: "Fixes #3", headRepo: 99 }),
        pull(22),
        pull(23, { body: "Fixes #5", user: { id: 4, login: "reader" } }),
      ],
      repo,
      new Map([
        ["fleet-bot", "write"],
        ["reader", "read"],
      ] as const),
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
