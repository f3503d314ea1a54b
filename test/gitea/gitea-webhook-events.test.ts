// Reading Gitea and Forgejo deliveries into the facts the handlers act on (pure, by table).
import { describe, expect, it } from "vitest";
import {
  GiteaPayloadError,
  giteaEventName,
  readGiteaEvent,
  readGiteaIssueTouch,
} from "../../src/providers/gitea/gitea-webhook-events.js";

const user = (login: string, id = 5) => ({ id, login, login_name: "", email: `${login}@x`, is_admin: false });
const repository = { id: 77, name: "widgets", full_name: "octo/widgets", owner: user("octo", 2) };
const commentPayload = (over: Record<string, unknown> = {}) => ({
  action: "created",
  issue: { id: 900, number: 12, title: "t", state: "open", pull_request: null },
  comment: { id: 301, body: "/reclaim", user: user("maintainer"), html_url: "" },
  repository,
  sender: user("maintainer"),
  is_pull: false,
  ...over,
});

const issuesPayload = (action: string, issue: { labels: unknown; assignees: unknown }) => ({
  action,
  number: 12,
  issue: { id: 900, number: 12, title: "t", state: "open", pull_request: null, ...issue },
  repository,
  sender: user("maintainer"),
  commit_id: "",
});

describe("readGiteaEvent", () => {
  it.each([
    [
      "issue_comment created",
      "issue_comment",
      commentPayload(),
      {
        kind: "comment-created",
        repository: { id: 77, fullName: "octo/widgets" },
        issue: 12,
        onPullRequest: false,
        comment: { id: 301, body: "/reclaim", author: { id: 5, login: "maintainer" } },
        sender: { id: 5, login: "maintainer" },
      },
    ],
    [
      "a workflow's comment keeps Gitea's Actions user id (-2)",
      "issue_comment",
      commentPayload({
        comment: { id: 302, body: "CI passed", user: user("gitea-actions", -2), html_url: "" },
        sender: user("gitea-actions", -2),
      }),
      expect.objectContaining({
        comment: { id: 302, body: "CI passed", author: { id: -2, login: "gitea-actions" } },
        sender: { id: -2, login: "gitea-actions" },
      }),
    ],
    [
      "a comment on a pull request",
      "issue_comment",
      commentPayload({ is_pull: true }),
      expect.objectContaining({ kind: "comment-created", onPullRequest: true }),
    ],
    [
      "issues closed (the index is `number`)",
      "issues",
      { action: "closed", number: 12, issue: { number: 12 }, repository, sender: user("octo") },
      {
        kind: "issue-closed",
        repository: { id: 77, fullName: "octo/widgets" },
        issue: 12,
        sender: { id: 5, login: "octo" },
      },
    ],
    [
      "push",
      "push",
      {
        ref: "refs/heads/agent/s1/12-x",
        before: "0".repeat(40),
        after: "a".repeat(40),
        repository,
        sender: user("fleet-bot"),
      },
      {
        kind: "push",
        repository: { id: 77, fullName: "octo/widgets" },
        ref: "refs/heads/agent/s1/12-x",
        deleted: false,
        sender: { id: 5, login: "fleet-bot" },
      },
    ],
    [
      "a push that deletes the branch",
      "push",
      { ref: "refs/heads/x", after: "0".repeat(40), repository, sender: user("fleet-bot") },
      expect.objectContaining({ kind: "push", deleted: true }),
    ],
    [
      "issue_comment edited (the body after the edit)",
      "issue_comment",
      commentPayload({ action: "edited", changes: { body: { from: "before" } } }),
      {
        kind: "comment-changed",
        action: "edited",
        repository: { id: 77, fullName: "octo/widgets" },
        issue: 12,
        comment: { id: 301, body: "/reclaim" },
        sender: { id: 5, login: "maintainer" },
      },
    ],
    [
      "issue_comment deleted (the comment as it was)",
      "issue_comment",
      commentPayload({ action: "deleted" }),
      expect.objectContaining({
        kind: "comment-changed",
        action: "deleted",
        comment: { id: 301, body: "/reclaim" },
      }),
    ],
    [
      "issue_comment of another action",
      "issue_comment",
      commentPayload({ action: "pinned" }),
      { kind: "ignored", event: "issue_comment.pinned" },
    ],
    ["issues opened", "issues", { action: "opened" }, { kind: "ignored", event: "issues.opened" }],
    [
      "an assignment (nothing taken off)",
      "issues",
      { action: "assigned" },
      { kind: "ignored", event: "issues.assigned" },
    ],
    [
      "a label change (Gitea sends it as `issues`, X-Gitea-Event-Type `issue_label`): the labels as they now are",
      "issues",
      issuesPayload("label_updated", { labels: [{ id: 1, name: "bug", color: "ee0701" }], assignees: null }),
      {
        kind: "issue-lists-now",
        repository: { id: 77, fullName: "octo/widgets" },
        issue: 12,
        action: "label_updated",
        changed: "labels",
        now: ["bug"],
        sender: { id: 5, login: "maintainer" },
      },
    ],
    [
      "labels cleared: Gitea sends an empty list (or null)",
      "issues",
      issuesPayload("label_cleared", { labels: null, assignees: [user("fleet-bot")] }),
      expect.objectContaining({ kind: "issue-lists-now", changed: "labels", now: [] }),
    ],
    [
      "an unassignment: the assignees as they now are",
      "issues",
      issuesPayload("unassigned", { labels: [], assignees: [user("maintainer")] }),
      expect.objectContaining({ kind: "issue-lists-now", changed: "assignees", now: ["maintainer"] }),
    ],
    [
      "an action named like an object's own property is ignored",
      "issues",
      { action: "constructor" },
      { kind: "ignored", event: "issues.constructor" },
    ],
    ["an event without action", "repository", {}, { kind: "ignored", event: "repository" }],
  ])("%s", (_, event, body, expected) => {
    expect(readGiteaEvent(event, body)).toEqual(expected);
  });

  it("refuses a handled event's payload without what Gitea always sends, naming the field", () => {
    const { comment: _, ...noComment } = commentPayload();
    expect(() => readGiteaEvent("issue_comment", noComment)).toThrow(GiteaPayloadError);
    expect(() => readGiteaEvent("issue_comment", noComment)).toThrow(
      "the issue_comment payload has no valid comment",
    );
    expect(() =>
      readGiteaEvent("issues", { action: "closed", number: "12", repository, sender: user("o") }),
    ).toThrow("no valid number");
    const noIssue = { action: "label_updated", number: 12, repository, sender: user("o") };
    expect(() => readGiteaEvent("issues", noIssue)).toThrow("the issues payload has no valid issue");
  });
});

describe("giteaEventName", () => {
  it("prefers Forgejo's header, takes Gitea's, and is null without either", () => {
    const headers = (values: Record<string, string>) => (name: string) => values[name];
    expect(giteaEventName(headers({ "x-gitea-event": "push" }))).toBe("push");
    expect(giteaEventName(headers({ "x-forgejo-event": "issues", "x-gitea-event": "issues" }))).toBe(
      "issues",
    );
    expect(giteaEventName(headers({}))).toBeNull();
  });
});

describe("readGiteaIssueTouch", () => {
  const touched = (action: string, issue: Record<string, unknown> = {}) => ({
    ...issuesPayload(action, {
      labels: [{ id: 1, name: "needs:gpu" }],
      assignees: [user("fleet-bot")],
    }),
    issue: {
      id: 900,
      number: 12,
      title: "t",
      state: "open",
      created_at: "2026-11-29T10:00:00Z",
      pull_request: null,
      labels: [{ id: 1, name: "needs:gpu" }],
      assignees: [user("fleet-bot")],
      ...issue,
    },
  });

  it.each(["opened", "reopened", "edited", "assigned", "unassigned", "label_updated", "label_cleared"])(
    "`issues` `%s`: the issue as it now is",
    (action) => {
      expect(readGiteaIssueTouch("issues", touched(action))).toEqual({
        repository: { id: 77, fullName: "octo/widgets" },
        action,
        issue: 12,
        title: "t",
        state: "open",
        createdAt: Date.parse("2026-11-29T10:00:00Z"),
        labels: ["needs:gpu"],
        assignees: ["fleet-bot"],
      });
    },
  );

  it.each([
    ["another action", "issues", touched("milestoned")],
    ["another event", "issue_comment", touched("created")],
    ["a pull request", "issues", touched("opened", { pull_request: { merged: false } })],
  ])("%s is not the index's", (_, event, body) => {
    expect(readGiteaIssueTouch(event, body)).toBeNull();
  });

  it("a closed issue says so; a payload without the issue's creation time is refused naming it", () => {
    expect(readGiteaIssueTouch("issues", touched("closed", { state: "closed" }))).toMatchObject({
      state: "closed",
    });
    expect(() => readGiteaIssueTouch("issues", touched("opened", { created_at: undefined }))).toThrow(
      GiteaPayloadError,
    );
  });
});
