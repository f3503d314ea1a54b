// A Gitea issue and its comments as the lease core reads a subject: assignees, labels, the App's trusted claim comments and its failure summaries (pure).
import { verifyClaimMarker } from "../../domain/claim-marker.js";
import { failureSummaryHeadline } from "../../domain/failure-breaker.js";
import type { MarkerSeal } from "../../domain/marker-seal.js";
import { permissionCanWrite, pullRequestCounts } from "../../domain/trust.js";
import type { ClaimCommentEvidence, SubjectSnapshot } from "../assignment-provider.js";
import { isClaimAuditComment } from "../github/subject-snapshot.js";
import { giteaClosingIssues } from "./gitea-closing-references.js";
import type { AuthorPermission } from "./gitea-collaborator-permissions.js";
import type { GiteaIssueComment, GiteaIssueRead, GiteaPullRequest } from "./gitea-schemas.js";

export interface GiteaMarkerReading {
  seal: MarkerSeal;
  /** The App's own login on the instance: anyone else can paste a marker into their comment. */
  botLogin: string;
  onMarkerRejected?: ((reason: string) => void) | undefined;
}

/**
 * The snapshot of `issue` with all of its `comments` (Gitea answers them in one read, so the marker
 * search is always complete). A user's `nodeId` is its login, as Gitea's assignee writes take it.
 * Pull requests are added by `giteaPullRequestEvidence`, the branch's last commit by the provider.
 */
export function giteaSnapshotOf(
  issue: GiteaIssueRead,
  comments: readonly GiteaIssueComment[],
  reading: GiteaMarkerReading,
): SubjectSnapshot {
  const repo = issue.repository.full_name;
  return {
    repoId: issue.repository.id,
    repo,
    issue: issue.number,
    nodeId: String(issue.id),
    title: issue.title,
    state: issue.state,
    assignees: (issue.assignees ?? []).map((user) => ({ login: user.login, nodeId: user.login })),
    labels: (issue.labels ?? []).map((label) => label.name),
    ...claimCommentsOf(comments, { repo, issue: issue.number }, reading),
    markerSearch: "complete",
    openPullRequests: [],
    branchCommittedAt: null,
    updatedAt: Date.parse(issue.updated_at),
  };
}

/** As on GitHub: only the App's comments count, a marker naming another issue number is not this subject's. */
function claimCommentsOf(
  comments: readonly GiteaIssueComment[],
  subject: { repo: string; issue: number },
  reading: GiteaMarkerReading,
) {
  const claimComments: ClaimCommentEvidence[] = [];
  let rejectedMarkers = 0;
  let rejectedAfterTrusted = 0;
  let auditComments = 0;
  const failureSummaries: string[] = [];
  const bot = reading.botLogin.toLowerCase();
  for (const comment of comments) {
    const byApp = comment.user?.login.toLowerCase() === bot;
    const parsed = verifyClaimMarker(comment.body, reading.seal);
    if (parsed.kind === "none") {
      if (byApp && isClaimAuditComment(comment.body)) auditComments++;
      if (byApp && comment.body.startsWith(failureSummaryHeadline)) failureSummaries.push(comment.body);
      continue;
    }
    if (parsed.kind === "marker" && byApp) {
      if (!parsed.marker.subject.endsWith(`#${subject.issue}`)) continue;
      const marker = { ...parsed.marker, subject: `${subject.repo}#${subject.issue}` };
      claimComments.push({ nodeId: String(comment.id), databaseId: comment.id, marker });
      rejectedAfterTrusted = 0;
      continue;
    }
    if (byApp) {
      rejectedMarkers++;
      rejectedAfterTrusted++;
    }
    reading.onMarkerRejected?.(
      parsed.kind === "rejected" ? parsed.reason : "marker outside the App's comments",
    );
  }
  return { claimComments, rejectedMarkers, rejectedAfterTrusted, auditComments, failureSummaries };
}

/**
 * The open pull requests a subject's read shows: those whose description closes the issue (as
 * Gitea finds keywords; commit messages are not read here, that would cost a read per pull
 * request) and, when a claim names one, those from its `branch`.
 */
export function pullRequestsOfSubject(
  pulls: readonly GiteaPullRequest[],
  subject: { repo: string; issue: number; branch?: string | undefined },
): GiteaPullRequest[] {
  return pulls.filter(
    (pull) =>
      pull.state === "open" &&
      ((subject.branch !== undefined && pull.head.ref === subject.branch) ||
        giteaClosingIssues({ body: pull.body, commitMessages: [] }, subject.repo).includes(subject.issue)),
  );
}

/** Whose pull request it is, for its standing: the base repository's id and the App's own login. */
export interface GiteaPullStandingContext {
  repoId: number;
  /** The App's bot account; null when the caller did not read it (its own permission answers then). */
  botLogin: string | null;
}

/**
 * Whether an open Gitea pull request counts (pr_open, queue skip, awaiting review), by the rule
 * GitHub's follow (`pullRequestCounts`, docs/security.md#trust-model): from the base repository,
 * and opened by the App's account or a login that can write there. A branch of the base
 * repository proves nothing of its author (Gitea's AGit flow lets a reader open one). A permission
 * Gitea did not answer (`unknown`) counts, as an unanswered GitHub read does (pure).
 */
export function giteaPullRequestCounts(
  pull: Pick<GiteaPullRequest, "user" | "head">,
  context: GiteaPullStandingContext,
  permission: AuthorPermission | undefined,
): boolean {
  const author = pull.user?.login.toLowerCase();
  return pullRequestCounts({
    authorFleet: author !== undefined && author === context.botLogin?.toLowerCase(),
    authorCanWrite: permission === "unknown" || (permission !== undefined && permissionCanWrite(permission)),
    headInBase: pull.head.repo_id === context.repoId,
  });
}

/** The authors whose permission decides a standing: of pull requests from the base repository, the App's account aside. */
export function authorsToAsk(
  pulls: readonly GiteaPullRequest[],
  context: GiteaPullStandingContext,
): string[] {
  const bot = context.botLogin?.toLowerCase();
  const logins = pulls
    .filter((pull) => pull.head.repo_id === context.repoId)
    .flatMap((pull) => (pull.user ? [pull.user.login] : []))
    .filter((login) => login.toLowerCase() !== bot);
  return [...new Set(logins)];
}

/**
 * The snapshot's two lists of `pulls`: those that count, and outsiders' (a fork's, or a reader's),
 * listed and blocking nothing. One whose author's permission is `unknown` counts with
 * `writeUnproven`, so a claim asks again before it refuses for it.
 */
export function giteaPullRequestEvidence(
  pulls: readonly GiteaPullRequest[],
  context: GiteaPullStandingContext,
  permissions: ReadonlyMap<string, AuthorPermission>,
): Pick<SubjectSnapshot, "openPullRequests" | "outsiderPullRequests"> {
  const openPullRequests: SubjectSnapshot["openPullRequests"] = [];
  const outsiderPullRequests: NonNullable<SubjectSnapshot["outsiderPullRequests"]> = [];
  for (const pull of pulls) {
    const shown = { number: pull.number, headRef: pull.head.ref, author: pull.user?.login ?? "" };
    const permission = pull.user ? permissions.get(pull.user.login.toLowerCase()) : undefined;
    if (!giteaPullRequestCounts(pull, context, permission)) outsiderPullRequests.push(shown);
    else openPullRequests.push(permission === "unknown" ? { ...shown, writeUnproven: true } : shown);
  }
  return { openPullRequests, outsiderPullRequests };
}
