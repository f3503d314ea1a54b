// What each webhook does to the candidate index, decided from the payload alone (fixtures from the official examples).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  decideDependencyEvent,
  decideIssueEvent,
  decidePullRequestEvent,
  decideSubIssueEvent,
  type FeedAction,
} from "../../src/handlers/queue-feed.js";

// biome-ignore lint/suspicious/noExplicitAny: fixtures are read as GitHub sent them
function fixture(name: string): any {
  return JSON.parse(readFileSync(new URL(`../fixtures/queue/${name}.json`, import.meta.url), "utf8"));
}

const repo = { installationId: 957387, repoId: 186853002, repo: "Codertocat/Hello-World" };
const steps = (action: FeedAction | null) => action?.steps ?? null;

describe("issues events", () => {
  it("opened: put from the payload alone (no blockers yet, no PR can close it yet)", () => {
    const payload = fixture("issues.opened-with-a-priority-label");
    const action = decideIssueEvent(payload);
    expect(action?.repo).toEqual(repo);
    expect(steps(action)).toEqual([
      { op: "put", issue: payload.issue, readBlockers: false, readClosingPullRequests: false },
    ]);
  });

  it("labeled (and assigned, unassigned, unlabeled, edited): patch the surface from the payload", () => {
    const payload = fixture("issues.labeled-p0");
    expect(steps(decideIssueEvent(payload))).toEqual([
      {
        op: "patch",
        issue: 1,
        patch: { title: payload.issue.title, labels: ["p0"], assignees: ["Codertocat"] },
      },
    ]);
    for (const action of ["assigned", "unassigned", "unlabeled", "edited"]) {
      expect(steps(decideIssueEvent({ ...payload, action }))?.[0]?.op).toBe("patch");
    }
    // A closed issue is not in the index: its label changes change nothing.
    expect(decideIssueEvent({ ...payload, issue: { ...payload.issue, state: "closed" } })).toBeNull();
  });

  it("closed (and deleted, transferred): drop it, and drop it as a blocker of every candidate", () => {
    const payload = fixture("issues.closed-a-blocker");
    const drop = [{ op: "drop", issue: 2, blocker: "Codertocat/Hello-World#2" }];
    expect(steps(decideIssueEvent(payload))).toEqual(drop);
    expect(steps(decideIssueEvent({ ...payload, action: "deleted" }))).toEqual(drop);
    expect(steps(decideIssueEvent({ ...payload, action: "transferred" }))).toEqual(drop);
  });

  it("closed sub-issue: its parent's open count is read once", () => {
    const payload = fixture("issues.closed-a-blocker");
    payload.issue.parent_issue_url = "https://api.github.com/repos/Codertocat/Hello-World/issues/3";
    expect(steps(decideIssueEvent(payload))).toEqual([
      { op: "drop", issue: 2, blocker: "Codertocat/Hello-World#2" },
      { op: "read-sub-issues", issue: 3 },
    ]);
    // A parent in another repository is not this index's.
    payload.issue.parent_issue_url = "https://api.github.com/repos/Codertocat/Other/issues/3";
    expect(steps(decideIssueEvent(payload))).toHaveLength(1);
  });

  it("reopened: put with its blockers and closing PRs read, and re-read the blockers of what it blocks", () => {
    const payload = fixture("issues.reopened-blocked-and-blocking");
    expect(steps(decideIssueEvent(payload))).toEqual([
      { op: "put", issue: payload.issue, readBlockers: true, readClosingPullRequests: true },
      { op: "read-blocked", issue: 1 },
    ]);
  });

  it("an event without an installation, or an action the queue ignores, does nothing", () => {
    const payload = fixture("issues.labeled-p0");
    expect(decideIssueEvent({ ...payload, installation: undefined })).toBeNull();
    expect(decideIssueEvent({ ...payload, action: "milestoned" })).toBeNull();
    expect(decideIssueEvent({ ...payload, action: "pinned" })).toBeNull();
  });
});

describe("issue_dependencies events", () => {
  const added = () => fixture("issue_dependencies.blocked_by_added");

  it("blocked_by_added with one open blocker: the payload names it", () => {
    expect(steps(decideDependencyEvent(added()))).toEqual([
      { op: "patch", issue: 1, patch: { blockers: ["Codertocat/Hello-World#2"] } },
    ]);
  });

  it("blocked_by_added with more than one open blocker: the list is read", () => {
    const payload = added();
    payload.blocked_issue.issue_dependencies_summary.blocked_by = 2;
    expect(steps(decideDependencyEvent(payload))).toEqual([{ op: "read-blockers", issue: 1 }]);
  });

  it("blocked_by_added with a closed blocker or no summary: the list is read", () => {
    const closed = added();
    closed.blocking_issue.state = "closed";
    expect(steps(decideDependencyEvent(closed))).toEqual([{ op: "read-blockers", issue: 1 }]);
    const bare = added();
    delete bare.blocked_issue.issue_dependencies_summary;
    expect(steps(decideDependencyEvent(bare))).toEqual([{ op: "read-blockers", issue: 1 }]);
  });

  it("blocked_by_removed leaving none open: blockers cleared without a read", () => {
    expect(steps(decideDependencyEvent(fixture("issue_dependencies.blocked_by_removed")))).toEqual([
      { op: "patch", issue: 1, patch: { blockers: [] } },
    ]);
  });

  it("blocking_added/removed (the blocker's side) and a closed blocked issue: nothing", () => {
    expect(decideDependencyEvent({ ...added(), action: "blocking_added" })).toBeNull();
    expect(decideDependencyEvent({ ...added(), action: "blocking_removed" })).toBeNull();
    const payload = added();
    payload.blocked_issue.state = "closed";
    expect(decideDependencyEvent(payload)).toBeNull();
  });
});

describe("sub_issues events", () => {
  it("sub_issue_added/removed: the parent's open count from its summary", () => {
    const payload = fixture("sub_issues.sub_issue_added");
    expect(steps(decideSubIssueEvent(payload))).toEqual([
      { op: "patch", issue: 3, patch: { openSubIssues: 1 } },
    ]);
    expect(steps(decideSubIssueEvent({ ...payload, action: "sub_issue_removed" }))?.[0]?.op).toBe("patch");
    delete payload.parent_issue.sub_issues_summary;
    expect(steps(decideSubIssueEvent(payload))).toEqual([{ op: "read-sub-issues", issue: 3 }]);
  });

  it("parent_issue_added/removed (the sub-issue's side): nothing", () => {
    const payload = fixture("sub_issues.sub_issue_added");
    expect(decideSubIssueEvent({ ...payload, action: "parent_issue_added" })).toBeNull();
    expect(decideSubIssueEvent({ ...payload, action: "parent_issue_removed" })).toBeNull();
  });
});

describe("pull_request events", () => {
  const pull = { number: 2, headRefName: "changes", author: "Codertocat" };

  it("opened and reopened link the PR to the issues its body closes; closed unlinks them — from the payload alone", () => {
    const payload = fixture("pull_request.opened-closing-issue-1");
    expect(steps(decidePullRequestEvent(payload))).toEqual([
      { op: "link-pull", issues: [1], pullRequest: pull },
    ]);
    expect(steps(decidePullRequestEvent({ ...payload, action: "reopened" }))).toEqual([
      { op: "link-pull", issues: [1], pullRequest: pull },
    ]);
    expect(steps(decidePullRequestEvent({ ...payload, action: "closed" }))).toEqual([
      { op: "unlink-pull", issues: [1], pullRequest: 2 },
    ]);
  });

  it("reads closing keywords as GitHub does: URLs and owner/repo#n of this repository, not other repositories or code", () => {
    const payload = fixture("pull_request.opened-closing-issue-1");
    const body = (text: string) => ({ ...payload, pull_request: { ...payload.pull_request, body: text } });
    const issues = (text: string) => steps(decidePullRequestEvent(body(text)))?.[0];
    expect(
      issues(
        "Resolves: https://github.com/Codertocat/Hello-World/issues/7 and fixes Codertocat/Hello-World#8",
      ),
    ).toEqual({
      op: "link-pull",
      issues: [7, 8],
      pullRequest: pull,
    });
    expect(decidePullRequestEvent(body("Fixes octo/other#3, see #4, `fixes #5`"))).toBeNull();
    expect(decidePullRequestEvent(body(""))).toBeNull();
  });

  it("a PR into another branch than the default closes nothing", () => {
    const payload = fixture("pull_request.opened-closing-issue-1");
    const intoDev = {
      ...payload,
      pull_request: { ...payload.pull_request, base: { ...payload.pull_request.base, ref: "dev" } },
    };
    expect(decidePullRequestEvent(intoDev)).toBeNull();
  });

  it("edited: a body change moves the links; a title edit, synchronize or a label decide nothing", () => {
    const payload = fixture("pull_request.edited-title-only");
    expect(decidePullRequestEvent(payload)).toBeNull();
    const edited = (from: string, to: string) => ({
      ...payload,
      changes: { body: { from } },
      pull_request: { ...payload.pull_request, body: to },
    });
    expect(steps(decidePullRequestEvent(edited("", "Fixes #1")))).toEqual([
      { op: "link-pull", issues: [1], pullRequest: pull },
    ]);
    expect(steps(decidePullRequestEvent(edited("Fixes #1", "Fixes #2")))).toEqual([
      { op: "unlink-pull", issues: [1], pullRequest: 2 },
      { op: "link-pull", issues: [2], pullRequest: pull },
    ]);
    expect(steps(decidePullRequestEvent(edited("Fixes #1", "Nothing to close")))).toEqual([
      { op: "unlink-pull", issues: [1], pullRequest: 2 },
    ]);
    const rebased = {
      ...payload,
      changes: { base: { ref: { from: "master" } } },
      pull_request: {
        ...payload.pull_request,
        body: "Fixes #1",
        base: { ...payload.pull_request.base, ref: "dev" },
      },
    };
    expect(steps(decidePullRequestEvent(rebased))).toEqual([
      { op: "unlink-pull", issues: [1], pullRequest: 2 },
    ]);
    expect(decidePullRequestEvent({ ...payload, action: "synchronize" })).toBeNull();
    expect(decidePullRequestEvent({ ...payload, action: "labeled" })).toBeNull();
  });
});
