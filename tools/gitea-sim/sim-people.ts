// People acting on the simulated Gitea, and the repository hook's events for every change (theirs, and the REST API's).
import type { GiteaSimState, SimIssue, SimRepo } from "./gitea-state.js";
import type { GiteaWebhookQueue } from "./webhook-queue.js";

/** A change of an issue's assignees, by whom (the App's bot account or a person). */
export interface GiteaAssigneeChange {
  repo: string;
  issue: number;
  login: string;
  action: "assigned" | "unassigned";
  by: string;
}

/** The simulator's payload builders the events need. */
interface HookPayloads {
  issueComment(
    repo: SimRepo,
    issue: SimIssue,
    commentId: number,
    sender: string,
    action?: string,
  ): Record<string, unknown>;
  issues(repo: SimRepo, issue: SimIssue, sender: string, action: string): Record<string, unknown>;
}

/**
 * One event a change sends, as Gitea's notifier names it: `issues` with `X-Gitea-Event-Type`
 * `issue_assign` (one per assignee added or removed), `issue_label`, or `issues` (closed, reopened);
 * `issue_comment` (created, edited).
 */
export type HookEvent =
  | { kind: "issues"; eventType: "issues" | "issue_label"; action: string }
  | { kind: "issues"; eventType: "issue_assign"; action: "assigned" | "unassigned"; login: string }
  | { kind: "issue_comment"; action: "created" | "edited"; commentId: number };

export interface IssueBefore {
  assignees: string[];
  state: "open" | "closed";
}

const lower = (logins: string[]) => logins.map((l) => l.toLowerCase());

function assigneeEvents(before: string[], after: string[]): HookEvent[] {
  const removed = before.filter((login) => !lower(after).includes(login.toLowerCase()));
  const added = after.filter((login) => !lower(before).includes(login.toLowerCase()));
  return [
    ...removed.map(
      (login) => ({ kind: "issues", eventType: "issue_assign", action: "unassigned", login }) as const,
    ),
    ...added.map(
      (login) => ({ kind: "issues", eventType: "issue_assign", action: "assigned", login }) as const,
    ),
  ];
}

/** The events a REST write that was carried out sends. */
export function hookEventsOfWrite(
  route: string,
  target: { repo: SimRepo; issue: SimIssue },
  before: IssueBefore | null,
  body: Record<string, unknown>,
  caller: string,
): HookEvent[] {
  const { issue } = target;
  switch (route) {
    case "PATCH /repos/{owner}/{repo}/issues/{index}": {
      const events = before ? assigneeEvents(before.assignees, issue.assignees) : [];
      if (before && before.state !== issue.state)
        events.push({
          kind: "issues",
          eventType: "issues",
          action: issue.state === "closed" ? "closed" : "reopened",
        });
      return events;
    }
    case "POST /repos/{owner}/{repo}/issues/{index}/labels":
    case "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}":
      return [{ kind: "issues", eventType: "issue_label", action: "label_updated" }];
    case "POST /repos/{owner}/{repo}/issues/{index}/comments": {
      const created = [...issue.comments]
        .reverse()
        .find((c) => c.author === caller && c.body === String(body.body ?? ""));
      return created ? [{ kind: "issue_comment", action: "created", commentId: created.id }] : [];
    }
    case "PATCH /repos/{owner}/{repo}/issues/comments/{id}": {
      const edited = issue.comments.find((c) => c.body === String(body.body ?? ""));
      return edited ? [{ kind: "issue_comment", action: "edited", commentId: edited.id }] : [];
    }
    default:
      return [];
  }
}

export type GiteaPeople = ReturnType<typeof giteaPeople>;

export function giteaPeople(
  state: GiteaSimState,
  payloads: HookPayloads,
  webhooks: GiteaWebhookQueue,
  assigneeChanges: GiteaAssigneeChange[],
) {
  const repoOf = (fullName: string) => {
    const [owner, name] = fullName.split("/") as [string, string];
    const repo = state.repo(owner, name);
    if (!repo) throw new Error(`no simulated Gitea repository ${fullName}`);
    return repo;
  };
  const issueOf = (fullName: string, number: number) => {
    const repo = repoOf(fullName);
    const issue = repo.issues.find((i) => i.number === number);
    if (!issue) throw new Error(`no issue #${number} in ${fullName}`);
    return { repo, issue };
  };
  function emit(repo: SimRepo, issue: SimIssue, sender: string, event: HookEvent): void {
    if (event.kind === "issue_comment") {
      const payload = payloads.issueComment(repo, issue, event.commentId, sender, event.action);
      webhooks.enqueue("issue_comment", "issue_comment", payload);
      return;
    }
    if (event.eventType === "issue_assign")
      assigneeChanges.push({
        repo: `${repo.owner}/${repo.name}`,
        issue: issue.number,
        login: event.login,
        action: event.action,
        by: sender,
      });
    webhooks.enqueue("issues", event.eventType, payloads.issues(repo, issue, sender, event.action));
  }
  const touch = (issue: SimIssue) => {
    issue.updatedAt = state.now();
  };
  return {
    emit,
    /** `login` comments `body` on the issue. */
    comment(a: { repo: string; issue: number; login: string; body: string }): void {
      const { repo, issue } = issueOf(a.repo, a.issue);
      const comment = state.addComment(issue, a.login, a.body);
      emit(repo, issue, a.login, { kind: "issue_comment", action: "created", commentId: comment.id });
    },
    /** `login` adds `assignees` to the issue. */
    assign(a: { repo: string; issue: number; login: string; assignees: string[] }): void {
      const { repo, issue } = issueOf(a.repo, a.issue);
      const before = [...issue.assignees];
      issue.assignees = [...before, ...a.assignees.filter((l) => !lower(before).includes(l.toLowerCase()))];
      state.recordAssignees(issue, before, a.login);
      touch(issue);
      for (const event of assigneeEvents(before, issue.assignees)) emit(repo, issue, a.login, event);
    },
    /** `login` takes `assignees` off the issue. */
    unassign(a: { repo: string; issue: number; login: string; assignees: string[] }): void {
      const { repo, issue } = issueOf(a.repo, a.issue);
      const before = [...issue.assignees];
      issue.assignees = before.filter((l) => !lower(a.assignees).includes(l.toLowerCase()));
      state.recordAssignees(issue, before, a.login);
      touch(issue);
      for (const event of assigneeEvents(before, issue.assignees)) emit(repo, issue, a.login, event);
    },
    /** `login` sets the issue's labels to `labels` (`label_cleared` when none are left). */
    setLabels(a: { repo: string; issue: number; login: string; labels: string[] }): void {
      const { repo, issue } = issueOf(a.repo, a.issue);
      const before = issue.labelIds;
      issue.labelIds = a.labels.map((name) => state.label(repo, name).id);
      state.recordLabels(issue, before, a.login);
      touch(issue);
      const action = a.labels.length === 0 ? "label_cleared" : "label_updated";
      emit(repo, issue, a.login, { kind: "issues", eventType: "issue_label", action });
    },
    /** `login` closes the issue. */
    close(a: { repo: string; issue: number; login: string }): void {
      const { repo, issue } = issueOf(a.repo, a.issue);
      if (issue.state === "closed") return;
      issue.state = "closed";
      issue.closedAt = state.now();
      touch(issue);
      emit(repo, issue, a.login, { kind: "issues", eventType: "issues", action: "closed" });
    },
  };
}
