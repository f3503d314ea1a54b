// Reading a subject from GitHub's answer: the snapshot of an issue, its trusted claim comments, and paging back for an older one.

import { verifyClaimMarker } from "../../domain/claim-marker.js";
import { failureSummaryHeadline } from "../../domain/failure-breaker.js";
import type { MarkerSeal } from "../../domain/marker-seal.js";
import { associationCanWrite, pullRequestCounts } from "../../domain/trust.js";
import type { ClaimCommentEvidence, SubjectRef, SubjectSnapshot } from "../assignment-provider.js";
import type { RequestCounter, SendRequest } from "./counted-requests.js";
import {
  type ClaimIssueNode,
  type PullRequestNode,
  SUBJECT_COMMENTS_QUERY,
  type SubjectCommentsResponse,
} from "./graphql/index.js";
import type { OctokitLike } from "./octokit-like.js";
import { splitRepo } from "./split-repo.js";

/** Pages of 100 earlier comments recovery reads at most before it calls the claim state unknown. */
export const maxRecoveryPages = 100;

/** How claim markers are checked: the App's seal, and who hears of an untrusted one. */
export interface MarkerReading {
  seal: MarkerSeal;
  /** Called for every marker read that is not trusted (unsigned, forged, misplaced, foreign). */
  onMarkerRejected?: ((reason: string) => void) | undefined;
}

interface ClaimCommentsFound {
  claimComments: ClaimCommentEvidence[];
  rejectedMarkers: number;
  rejectedAfterTrusted: number;
  auditComments: number;
  failureSummaries: string[];
}

/** The snapshot of one issue node as a read or a listing returned it (branch evidence not filled in). */
export function snapshotOf(
  ref: SubjectRef,
  repository: { databaseId: number; nameWithOwner: string },
  issue: ClaimIssueNode,
  reading: MarkerReading,
): SubjectSnapshot {
  const { claimComments, rejectedMarkers, rejectedAfterTrusted, auditComments, failureSummaries } =
    claimCommentsOf(issue.comments, { repo: repository.nameWithOwner, issue: ref.issue }, reading);
  return {
    repoId: repository.databaseId,
    repo: repository.nameWithOwner,
    issue: ref.issue,
    nodeId: issue.id,
    title: issue.title,
    state: issue.state === "OPEN" ? "open" : "closed",
    assignees: (issue.assignees.nodes ?? []).flatMap((a) => (a ? [{ login: a.login, nodeId: a.id }] : [])),
    labels: (issue.labels?.nodes ?? []).flatMap((l) => (l ? [l.name] : [])),
    claimComments,
    rejectedMarkers,
    rejectedAfterTrusted,
    auditComments,
    failureSummaries,
    markerSearch:
      claimComments.length > 0 || !issue.comments.pageInfo?.hasPreviousPage ? "complete" : "truncated",
    ...pullRequestsOf(issue.closedByPullRequestsReferences?.nodes ?? []),
    branchCommittedAt: null,
    updatedAt: Date.parse(issue.updatedAt),
  };
}

/**
 * The trusted claim comments of a page, oldest first; every other marker is counted and ignored.
 * A marker names its subject as `owner/name#n` at the time it was written: one of this issue's
 * number is this subject's (the repository may have been renamed since) and is read under the
 * current name; another number's (an issue transferred here) is not this subject's evidence.
 */
function claimCommentsOf(
  comments: ClaimIssueNode["comments"],
  subject: { repo: string; issue: number },
  reading: MarkerReading,
): ClaimCommentsFound {
  const claimComments: ClaimCommentEvidence[] = [];
  let rejectedMarkers = 0;
  let rejectedAfterTrusted = 0;
  let auditComments = 0;
  const failureSummaries: string[] = [];
  for (const comment of comments.nodes ?? []) {
    if (!comment) continue;
    const parsed = verifyClaimMarker(comment.body, reading.seal);
    if (parsed.kind === "none") {
      if (comment.viewerDidAuthor && isClaimAuditComment(comment.body)) auditComments++;
      if (comment.viewerDidAuthor && comment.body.startsWith(failureSummaryHeadline)) {
        failureSummaries.push(comment.body);
      }
      continue;
    }
    // Only the App's own comments can carry evidence; anyone can paste a marker into theirs.
    if (parsed.kind === "marker" && comment.viewerDidAuthor && comment.databaseId !== null) {
      if (!parsed.marker.subject.endsWith(`#${subject.issue}`)) continue;
      const marker = { ...parsed.marker, subject: `${subject.repo}#${subject.issue}` };
      claimComments.push({ nodeId: comment.id, databaseId: comment.databaseId, marker });
      rejectedAfterTrusted = 0;
      continue;
    }
    const reason = parsed.kind === "rejected" ? parsed.reason : "marker outside the App's comments";
    if (comment.viewerDidAuthor) {
      rejectedMarkers++;
      rejectedAfterTrusted++;
    }
    reading.onMarkerRejected?.(reason);
  }
  return { claimComments, rejectedMarkers, rejectedAfterTrusted, auditComments, failureSummaries };
}

/**
 * Invariant 12: when the page read holds no trusted claim comment but the thread goes further
 * back, pages back (100 comments a request) until it meets one or the thread's start. Past
 * `maxRecoveryPages` the search stops and the snapshot says `truncated` (claim state unknown).
 */
export async function searchEarlierComments(
  send: SendRequest,
  octokit: OctokitLike,
  ref: SubjectRef,
  issue: ClaimIssueNode,
  snapshot: SubjectSnapshot,
  reading: MarkerReading,
): Promise<void> {
  let pageInfo = issue.comments.pageInfo;
  const { owner, name } = splitRepo(ref.repo);
  const counter: RequestCounter = { requests: 0 };
  for (let page = 0; snapshot.claimComments.length === 0 && pageInfo?.hasPreviousPage; page++) {
    if (page >= maxRecoveryPages || !pageInfo.startCursor) return;
    const before = pageInfo.startCursor;
    const data = await send(counter, "subject-comments", () =>
      octokit.graphql<SubjectCommentsResponse>(SUBJECT_COMMENTS_QUERY, {
        owner,
        name,
        number: ref.issue,
        before,
      }),
    );
    const comments = data.repository?.issue?.comments;
    if (!comments) return;
    const found = claimCommentsOf(comments, snapshot, reading);
    snapshot.claimComments = found.claimComments;
    snapshot.rejectedMarkers += found.rejectedMarkers;
    snapshot.auditComments += found.auditComments;
    snapshot.failureSummaries = [...found.failureSummaries, ...(snapshot.failureSummaries ?? [])];
    // Rejected markers of this page that come after its newest trusted one are older than the
    // later pages' rejected ones: all of those stay "after the latest trusted".
    snapshot.rejectedAfterTrusted += found.rejectedAfterTrusted;
    pageInfo = comments.pageInfo;
  }
  snapshot.markerSearch = "complete";
}

/** Open pull requests by number, once each (an issue's closing references and a branch's PRs overlap). */
/** The snapshot's two lists of open PRs. */
export function pullRequestsOf(nodes: (PullRequestNode | null)[]) {
  const { counted, outsiders } = uniquePullRequests(nodes);
  return { openPullRequests: counted, ...(outsiders.length ? { outsiderPullRequests: outsiders } : {}) };
}

/**
 * Open PRs by number, split by standing (docs/security.md#trust-model): those that count (a bot's,
 * or a writer's from the base repository) and outsiders' (a fork's, or a reader's), which block nothing.
 */
export function uniquePullRequests(nodes: (PullRequestNode | null)[]) {
  const byNumber = new Map<number, { pr: OpenPullRequest; counts: boolean }>();
  for (const node of nodes) {
    if (node) byNumber.set(node.number, { pr: openPullRequestOf(node), counts: standingOf(node) });
  }
  const all = [...byNumber.values()];
  return {
    counted: all.filter((p) => p.counts).map((p) => p.pr),
    outsiders: all.filter((p) => !p.counts).map((p) => p.pr),
  };
}

type OpenPullRequest = { number: number; headRef: string; author: string; writeUnproven?: boolean };

function openPullRequestOf(node: PullRequestNode): OpenPullRequest {
  const unproven =
    node.author?.__typename !== "Bot" &&
    (node.authorAssociation === "COLLABORATOR" || node.authorAssociation === "MEMBER");
  return {
    number: node.number,
    headRef: node.headRefName,
    author: node.author?.login ?? "ghost",
    ...(unproven ? { writeUnproven: true } : {}),
  };
}

/** Whether an open PR counts, from what GitHub says of its author and head (an answer without them counts). */
export function standingOf(
  node: Pick<PullRequestNode, "author" | "isCrossRepository" | "authorAssociation">,
) {
  return pullRequestCounts({
    authorFleet: node.author?.__typename === "Bot",
    authorCanWrite: node.authorAssociation === undefined || associationCanWrite(node.authorAssociation),
    headInBase: node.isCrossRepository !== true,
  });
}

/** The App's audit comments of a claim's life (supersede, stale, reap, release, revoke, /reclaim). */
const auditHeadlines = ["↪️ Superseded", "⏸️ No heartbeat", "🧹 Reaped", "📝 ", "⛔ ", "🔁 "];

export function isClaimAuditComment(body: string): boolean {
  return auditHeadlines.some((headline) => body.startsWith(headline));
}
