// A Gitea issue and its comments as the lease core reads a subject: assignees, labels, the App's trusted claim comments and its failure summaries (pure).
import { verifyClaimMarker } from "../../domain/claim-marker.js";
import { failureSummaryHeadline } from "../../domain/failure-breaker.js";
import type { MarkerSeal } from "../../domain/marker-seal.js";
import type { ClaimCommentEvidence, SubjectSnapshot } from "../assignment-provider.js";
import { isClaimAuditComment } from "../github/subject-snapshot.js";
import { giteaClosingIssues } from "./gitea-closing-references.js";
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
 * Pull requests and branch evidence are added by `giteaBranchEvidence` when a branch is asked for.
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
 * The open pull requests a claim's branch evidence shows: those from `branch` and those whose
 * description closes the issue (as Gitea finds keywords; commit messages are not read here, that
 * would cost a read per pull request). One from a branch of the issue's own repository counts:
 * only a writer can push there. One from a fork is an outsider's, listed and blocking nothing.
 */
export function giteaBranchEvidence(
  pulls: readonly GiteaPullRequest[],
  subject: { repoId: number; repo: string; issue: number; branch: string },
): Pick<SubjectSnapshot, "openPullRequests" | "outsiderPullRequests"> {
  const openPullRequests: SubjectSnapshot["openPullRequests"] = [];
  const outsiderPullRequests: NonNullable<SubjectSnapshot["outsiderPullRequests"]> = [];
  for (const pull of pulls) {
    if (pull.state !== "open") continue;
    const fromBranch = pull.head.ref === subject.branch;
    const closes = giteaClosingIssues({ body: pull.body, commitMessages: [] }, subject.repo).includes(
      subject.issue,
    );
    if (!fromBranch && !closes) continue;
    const shown = { number: pull.number, headRef: pull.head.ref, author: pull.user?.login ?? "" };
    if (pull.head.repo_id === subject.repoId) openPullRequests.push(shown);
    else outsiderPullRequests.push(shown);
  }
  return { openPullRequests, outsiderPullRequests };
}
