// A signed Gitea delivery is a hint, not evidence (docs/reference/gitea-surfaces.md#what-a-delivery-is-trusted-for): what a handler would act on is read from Gitea now first.
//
// One webhook secret serves every repository's hook, and a late or replayed delivery names a state
// that has passed. So before a handler acts, the fact it acts on is read back: the issue's state
// (`issues.closed`), the comment's author and body (`/reclaim`, `/budget`, a person's answer). A
// delivery no handler would act on costs no read.
import type { Logger } from "pino";
import type { WebhookHandler } from "../handlers/webhook-guard.js";
import type { GiteaUserRef } from "../providers/gitea/gitea-person.js";
import type { GiteaCommentRead, GiteaIssueRead, GiteaPullRequest } from "../providers/gitea/gitea-schemas.js";

/** What the intake reads from Gitea to confirm a delivery (the App's own token). */
export interface GiteaReads {
  readIssue(owner: string, repo: string, index: number): Promise<GiteaIssueRead>;
  /** The comment as Gitea answers it now; null when it no longer exists (404). */
  readComment(owner: string, repo: string, id: number): Promise<GiteaCommentRead | null>;
  /** One page of the repository's open pull requests (`giteaPageSize` at most). */
  listOpenPullRequests(owner: string, repo: string, page: number): Promise<GiteaPullRequest[]>;
}

export function ownerAndName(fullName: string): [string, string] {
  const [owner = "", name = ""] = fullName.split("/");
  return [owner, name];
}

/**
 * `issues.closed` acted on only while Gitea still shows the issue closed: a replayed or late
 * delivery of a close that was since reopened completes nothing.
 */
export function whileClosed<P, A>(
  handler: WebhookHandler<P, A>,
  reads: Pick<GiteaReads, "readIssue">,
  subject: { fullName: string; issue: number },
  log: Logger,
): WebhookHandler<P, A> {
  return {
    async decide(payload, guardLog) {
      const action = await handler.decide(payload, guardLog);
      if (action === null) return null;
      const [owner, name] = ownerAndName(subject.fullName);
      const issue = await reads.readIssue(owner, name, subject.issue);
      if (issue.state === "closed") return action;
      log.info({ issue: subject.issue }, "issues.closed delivery ignored: Gitea shows the issue open again");
      return null;
    },
    apply: (action, log) => handler.apply(action, log),
  };
}

/** The fields of a comment payload a handler reads, as the intake shapes Gitea's. */
export interface CommentFacts {
  issue: { number: number };
  comment: { id: number; body: string; user?: unknown; html_url?: string };
  sender: unknown;
}

/** A comment as Gitea serves it now. */
export interface CommentNow {
  /** null: Gitea names no author (a deleted account's): no person. */
  author: GiteaUserRef | null;
  body: string;
  htmlUrl?: string;
}

/**
 * Reads the delivery's comment from Gitea at most once, however many handlers ask: its author and
 * body as Gitea answers them now, or null when it no longer exists or is not the issue's.
 */
export function commentFromGitea(
  reads: Pick<GiteaReads, "readComment">,
  subject: { fullName: string; issue: number; commentId: number },
): () => Promise<CommentNow | null> {
  let read: Promise<CommentNow | null> | undefined;
  return () => {
    read ??= (async () => {
      const [owner, name] = ownerAndName(subject.fullName);
      const comment = await reads.readComment(owner, name, subject.commentId);
      if (!comment || !commentOfIssue(comment.issue_url, subject.issue)) return null;
      return {
        author: comment.user ? { id: comment.user.id, login: comment.user.login } : null,
        body: comment.body,
        ...(comment.html_url ? { htmlUrl: comment.html_url } : {}),
      };
    })();
    return read;
  };
}

/** Gitea's `issue_url` is the issue's page (`…/issues/{index}`); a PR's comment has none. */
function commentOfIssue(issueUrl: string | null | undefined, issue: number): boolean {
  return typeof issueUrl === "string" && issueUrl.replace(/\/+$/, "").endsWith(`/issues/${issue}`);
}

/**
 * A comment handler decided on what Gitea shows: the delivery only says which comment to read.
 * When the handler would act on the payload, the comment is read and the handler decides again on
 * its author and body from Gitea; a comment gone, or no longer holding what it acted on, does nothing.
 */
export function withCommentFromGitea<P extends CommentFacts, A>(
  handler: WebhookHandler<P, A>,
  comment: () => Promise<CommentNow | null>,
  user: (account: GiteaUserRef | null) => unknown,
  log: Logger,
): WebhookHandler<P, A> {
  return {
    async decide(payload, guardLog) {
      if ((await handler.decide(payload, guardLog)) === null) return null;
      const now = await comment();
      if (!now) {
        log.info({ comment: payload.comment.id }, "comment delivery ignored: Gitea has no such comment now");
        return null;
      }
      const author = user(now.author);
      const fromGitea = {
        ...payload.comment,
        body: now.body,
        user: author,
        ...(now.htmlUrl ? { html_url: now.htmlUrl } : {}),
      };
      const confirmed = { ...payload, comment: fromGitea };
      const action = await handler.decide({ ...confirmed, sender: author }, guardLog);
      if (action === null) {
        log.info(
          { comment: payload.comment.id },
          "comment delivery ignored: the comment as Gitea shows it now does not act",
        );
      }
      return action;
    },
    apply: (action, log) => handler.apply(action, log),
  };
}
