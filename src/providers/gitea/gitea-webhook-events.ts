// Gitea and Forgejo webhook payloads (modules/structs: IssueCommentPayload, IssuePayload, PushPayload, PullRequestPayload, CommitStatusPayload) read into the few forge-neutral facts the handlers act on (pure).
import { z } from "zod";
import { checkRunName } from "../checks-provider.js";
import type { GiteaUserRef } from "./gitea-person.js";
import type { HeaderReader } from "./gitea-webhook-signature.js";

/** Forgejo sends its own event header and Gitea's; both name the event the same way. */
export const eventHeaders = ["x-forgejo-event", "x-gitea-event"] as const;

/** A payload's user keeps its id: Gitea's ghost and Actions users have ones that are not positive (gitea-person.ts). */
const PayloadUser = z.object({ id: z.number().int(), login: z.string().min(1) });
const PayloadRepository = z.object({ id: z.number().int().positive(), full_name: z.string().min(3) });

/**
 * `issue_comment` (`created`, `edited`, `deleted`): Gitea sends it for pull request comments too,
 * with `is_pull` and `issue.pull_request`; a deletion carries the comment as it was.
 */
const IssueCommentPayload = z.object({
  action: z.string(),
  issue: z.object({ number: z.number().int().positive(), pull_request: z.unknown().nullish() }),
  comment: z.object({
    id: z.number().int().positive(),
    body: z.string(),
    user: PayloadUser,
    html_url: z.string().optional(),
  }),
  repository: PayloadRepository,
  sender: PayloadUser,
  is_pull: z.boolean().optional(),
});

/** `issues`: the issue's index is `number` (`IssuePayload.Index`). */
const IssuePayload = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  repository: PayloadRepository,
  sender: PayloadUser,
});

/** `issues` label and assignee changes: `issue.labels` and `issue.assignees` are the lists after the change (null: none). */
const IssueListsPayload = IssuePayload.extend({
  issue: z.object({
    labels: z.array(z.object({ name: z.string() })).nullable(),
    assignees: z.array(PayloadUser).nullable(),
  }),
});

/** The `issues` actions whose payload carries the issue's labels or assignees as they now are. */
const listChanges: Record<string, "labels" | "assignees"> = {
  label_updated: "labels",
  label_cleared: "labels",
  unassigned: "assignees",
};

const PushPayload = z.object({
  ref: z.string(),
  after: z.string(),
  repository: PayloadRepository,
  sender: PayloadUser,
});

/** `pull_request` (`PullRequestPayload`): the PR is a swagger `PullRequest`, its head a `PRBranchInfo`. */
const PullRequestPayload = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  /** `ChangesPayload` on `edited`: which of the title, the description and the base branch (`ref`) changed. */
  changes: z
    .object({ title: z.unknown().optional(), body: z.unknown().optional(), ref: z.unknown().optional() })
    .nullish(),
  pull_request: z.object({
    number: z.number().int().positive(),
    state: z.enum(["open", "closed"]),
    user: PayloadUser.nullish(),
    /** `repo_id`: the repository the head branch lives in (a fork's differs from the base's). */
    head: z.object({ ref: z.string().min(1), sha: z.string().min(1), repo_id: z.number().int().nullish() }),
  }),
  repository: PayloadRepository,
  sender: PayloadUser,
});

/** `status` (`CommitStatusPayload`): the status just written to `sha`, its writer the `sender`; no action. */
const CommitStatusPayload = z.object({
  sha: z.string().min(1),
  context: z.string(),
  repository: PayloadRepository,
  sender: PayloadUser,
});

/** The `pull_request` actions that change what a PR's `claim-hold` status says. */
export const pullRequestFenceActions = ["opened", "synchronized", "reopened", "edited", "closed"] as const;

export interface GiteaRepoRef {
  id: number;
  fullName: string;
}

/** What a delivery tells, as the handlers need it; `ignored` for everything they do not act on. */
export type GiteaWebhookEvent =
  | {
      kind: "comment-created";
      repository: GiteaRepoRef;
      issue: number;
      onPullRequest: boolean;
      comment: { id: number; body: string; author: GiteaUserRef; htmlUrl?: string };
      sender: GiteaUserRef;
    }
  | {
      kind: "issue-lists-now";
      repository: GiteaRepoRef;
      issue: number;
      action: string;
      /** Which list the change was to; `now` is that list as it is after it. */
      changed: "labels" | "assignees";
      now: string[];
      sender: GiteaUserRef;
    }
  | {
      /** Someone edited or deleted a comment: the claim comment's repair decides whether it was the App's. */
      kind: "comment-changed";
      action: "edited" | "deleted";
      repository: GiteaRepoRef;
      issue: number;
      /** The comment as it is after an edit, or as it was when deleted. */
      comment: { id: number; body: string };
      sender: GiteaUserRef;
    }
  | { kind: "issue-closed"; repository: GiteaRepoRef; issue: number; sender: GiteaUserRef }
  | { kind: "push"; repository: GiteaRepoRef; ref: string; deleted: boolean; sender: GiteaUserRef }
  | {
      kind: "pull-request";
      action: (typeof pullRequestFenceActions)[number];
      repository: GiteaRepoRef;
      pullRequest: {
        number: number;
        state: "open" | "closed";
        headSha: string;
        headRef: string;
        /** The head branch's repository (null: Gitea did not say). */
        headRepoId: number | null;
        /** null: Gitea names no author (a deleted account's). */
        author: GiteaUserRef | null;
      };
      /** On `edited`: whether the description or the base branch changed (a title alone changes nothing). */
      changed: { body: boolean; base: boolean };
      sender: GiteaUserRef;
    }
  | {
      /** A `claim-hold` status written to a commit: unless the App wrote it, its PRs are evaluated again. */
      kind: "fence-status";
      repository: GiteaRepoRef;
      sha: string;
      sender: GiteaUserRef;
    }
  | { kind: "ignored"; event: string };

/** The event's name from Forgejo's header, else Gitea's; null when neither is sent. */
export function giteaEventName(header: HeaderReader): string | null {
  for (const name of eventHeaders) {
    const value = header(name)?.trim();
    if (value) return value;
  }
  return null;
}

/** A payload of a handled event that does not have the fields Gitea sends: the path of the first bad one. */
export class GiteaPayloadError extends Error {
  constructor(
    readonly event: string,
    readonly field: string,
  ) {
    super(`the ${event} payload has no valid ${field || "body"}`);
    this.name = "GiteaPayloadError";
  }
}

const zeroCommit = /^0+$/;

/**
 * Reads a delivery's JSON. Only the events and actions the handlers act on are parsed; any other
 * is `ignored` without looking at its body.
 * @throws GiteaPayloadError for a handled event whose payload lacks what Gitea always sends.
 */
export function readGiteaEvent(event: string, body: unknown): GiteaWebhookEvent {
  const action = (body as { action?: unknown } | null)?.action;
  if (event === "issue_comment" && action === "created") {
    const payload = parse(IssueCommentPayload, event, body);
    return {
      kind: "comment-created",
      repository: repositoryOf(payload.repository),
      issue: payload.issue.number,
      onPullRequest: payload.is_pull === true || Boolean(payload.issue.pull_request),
      comment: {
        id: payload.comment.id,
        body: payload.comment.body,
        author: userRef(payload.comment.user),
        ...(payload.comment.html_url ? { htmlUrl: payload.comment.html_url } : {}),
      },
      sender: userRef(payload.sender),
    };
  }
  if (event === "issue_comment" && (action === "edited" || action === "deleted")) {
    const payload = parse(IssueCommentPayload, event, body);
    return {
      kind: "comment-changed",
      action,
      repository: repositoryOf(payload.repository),
      issue: payload.issue.number,
      comment: { id: payload.comment.id, body: payload.comment.body },
      sender: userRef(payload.sender),
    };
  }
  if (event === "issues" && action === "closed") {
    const payload = parse(IssuePayload, event, body);
    return {
      kind: "issue-closed",
      repository: repositoryOf(payload.repository),
      issue: payload.number,
      sender: userRef(payload.sender),
    };
  }
  const changed =
    event === "issues" && typeof action === "string" && Object.hasOwn(listChanges, action)
      ? listChanges[action]
      : undefined;
  if (changed) {
    const payload = parse(IssueListsPayload, event, body);
    const now =
      changed === "labels"
        ? (payload.issue.labels ?? []).map((label) => label.name)
        : (payload.issue.assignees ?? []).map((user) => user.login);
    return {
      kind: "issue-lists-now",
      repository: repositoryOf(payload.repository),
      issue: payload.number,
      action: payload.action,
      changed,
      now,
      sender: userRef(payload.sender),
    };
  }
  if (event === "push") {
    const payload = parse(PushPayload, event, body);
    return {
      kind: "push",
      repository: repositoryOf(payload.repository),
      ref: payload.ref,
      deleted: zeroCommit.test(payload.after),
      sender: userRef(payload.sender),
    };
  }
  if (event === "pull_request" && isFenceAction(action)) return readPullRequestEvent(action, body);
  if (event === "status" && (body as { context?: unknown } | null)?.context === checkRunName) {
    const payload = parse(CommitStatusPayload, event, body);
    return {
      kind: "fence-status",
      repository: repositoryOf(payload.repository),
      sha: payload.sha,
      sender: userRef(payload.sender),
    };
  }
  return { kind: "ignored", event: typeof action === "string" ? `${event}.${action}` : event };
}

function isFenceAction(action: unknown): action is (typeof pullRequestFenceActions)[number] {
  return (pullRequestFenceActions as readonly unknown[]).includes(action);
}

function readPullRequestEvent(
  action: (typeof pullRequestFenceActions)[number],
  body: unknown,
): GiteaWebhookEvent {
  const payload = parse(PullRequestPayload, "pull_request", body);
  const pr = payload.pull_request;
  return {
    kind: "pull-request",
    action,
    repository: repositoryOf(payload.repository),
    pullRequest: {
      number: pr.number,
      state: pr.state,
      headSha: pr.head.sha,
      headRef: pr.head.ref,
      headRepoId: pr.head.repo_id ?? null,
      author: pr.user ? userRef(pr.user) : null,
    },
    changed: { body: payload.changes?.body != null, base: payload.changes?.ref != null },
    sender: userRef(payload.sender),
  };
}

function parse<T extends z.ZodType>(schema: T, event: string, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new GiteaPayloadError(event, parsed.error.issues[0]?.path.join(".") ?? "");
}

/** `issues` actions that change what the candidate index knows of an issue. */
const candidateActions = new Set([
  "opened",
  "reopened",
  "edited",
  "closed",
  "assigned",
  "unassigned",
  "label_updated",
  "label_cleared",
]);

/** The issue of an `issues` payload as the candidate index reads it (`Issue`). */
const CandidateIssuePayload = IssuePayload.extend({
  issue: z.object({
    title: z.string(),
    state: z.enum(["open", "closed"]),
    created_at: z.string(),
    labels: z.array(z.object({ name: z.string() })).nullable(),
    assignees: z.array(PayloadUser).nullable(),
    pull_request: z.object({}).passthrough().nullish(),
  }),
});

/** An issue of the repository as an `issues` delivery shows it after the change. */
export interface GiteaIssueTouch {
  repository: GiteaRepoRef;
  action: string;
  issue: number;
  title: string;
  state: "open" | "closed";
  createdAt: number;
  labels: string[];
  assignees: string[];
}

/**
 * The issue an `issues` delivery changed, for the candidate index; null for another event or
 * action, or a pull request.
 * @throws GiteaPayloadError when the payload lacks what Gitea always sends.
 */
export function readGiteaIssueTouch(event: string, body: unknown): GiteaIssueTouch | null {
  const action = (body as { action?: unknown } | null)?.action;
  if (event !== "issues" || typeof action !== "string" || !candidateActions.has(action)) return null;
  const payload = parse(CandidateIssuePayload, event, body);
  if (payload.issue.pull_request) return null;
  return {
    repository: repositoryOf(payload.repository),
    action,
    issue: payload.number,
    title: payload.issue.title,
    state: payload.issue.state,
    createdAt: Date.parse(payload.issue.created_at),
    labels: (payload.issue.labels ?? []).map((label) => label.name),
    assignees: (payload.issue.assignees ?? []).map((user) => user.login),
  };
}

/** The id and login only: the rest of a payload's user is not read. */
function userRef(user: GiteaUserRef): GiteaUserRef {
  return { id: user.id, login: user.login };
}

function repositoryOf(repository: { id: number; full_name: string }): GiteaRepoRef {
  return { id: repository.id, fullName: repository.full_name };
}
