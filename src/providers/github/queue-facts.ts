// Pure translations from GitHub's issue objects (REST answers and webhook payloads share the shape) into the candidate index's facts.
import type { CandidateFacts, ClosingPullRequest } from "../queue-store.js";
import type { QueueClosingPullRequestNode } from "./graphql/queue-pull-requests.js";
import { standingOf } from "./subject-snapshot.js";

/** The fields of a REST or webhook issue object the index reads (`@octokit/openapi-types` `issue`). */
export interface IssueObject {
  number: number;
  title: string;
  created_at: string;
  state?: string;
  html_url?: string;
  repository_url?: string;
  labels?: (string | { name?: string | null } | null)[];
  assignees?: ({ login: string } | null)[] | null;
  /** Set when the "issue" is a pull request (REST lists both). */
  pull_request?: unknown;
  sub_issues_summary?: { total: number; completed: number } | null;
  issue_dependencies_summary?: { blocked_by: number; blocking: number } | null;
  parent_issue_url?: string | null;
}

export function isPullRequest(issue: IssueObject): boolean {
  return issue.pull_request !== undefined && issue.pull_request !== null;
}

/** Open sub-issues from `sub_issues_summary` (absent: none). */
export function openSubIssuesOf(issue: IssueObject): number {
  const summary = issue.sub_issues_summary;
  return summary ? Math.max(0, summary.total - summary.completed) : 0;
}

/** Open blockers from `issue_dependencies_summary.blocked_by` (absent: none). */
export function openBlockerCount(issue: IssueObject): number {
  return issue.issue_dependencies_summary?.blocked_by ?? 0;
}

/** Open issues this one blocks, from `issue_dependencies_summary.blocking` (absent: none). */
export function openBlockingCount(issue: IssueObject): number {
  return issue.issue_dependencies_summary?.blocking ?? 0;
}

/** `owner/repo` of an API URL `…/repos/{owner}/{repo}[/issues/{n}]`, or null. */
function repoOfApiUrl(url: string | null | undefined): string | null {
  const match = /\/repos\/([^/]+)\/([^/]+?)(?:\/issues\/\d+)?\/?$/.exec(url ?? "");
  return match ? `${match[1]}/${match[2]}` : null;
}

/** `owner/repo#n`: how the index names an issue of any repository (a blocker). */
export function subjectOf(issue: IssueObject): string | null {
  const repo =
    repoOfApiUrl(issue.repository_url) ??
    /\/\/[^/]+\/([^/]+\/[^/]+)\/(?:issues|pull)\/\d+$/.exec(issue.html_url ?? "")?.[1] ??
    null;
  return repo ? `${repo}#${issue.number}` : null;
}

/** The parent of a sub-issue, from `parent_issue_url`, or null. */
export function parentOf(issue: IssueObject): { repo: string; issue: number } | null {
  const url = issue.parent_issue_url;
  const number = /\/issues\/(\d+)\/?$/.exec(url ?? "")?.[1];
  const repo = repoOfApiUrl(url);
  return repo && number ? { repo, issue: Number(number) } : null;
}

function labelNames(issue: IssueObject): string[] {
  return (issue.labels ?? []).flatMap((label) => {
    const name = typeof label === "string" ? label : label?.name;
    return name ? [name] : [];
  });
}

/** One open issue's facts: what the object carries, plus the blockers and closing PRs read beside it. */
export function factsFromIssue(
  issue: IssueObject,
  read: { blockers: string[]; closingPullRequests: ClosingPullRequest[] },
): CandidateFacts {
  return {
    issue: issue.number,
    title: issue.title,
    createdAt: Date.parse(issue.created_at),
    labels: labelNames(issue),
    assignees: (issue.assignees ?? []).flatMap((a) => (a ? [a.login] : [])),
    blockers: read.blockers,
    openSubIssues: openSubIssuesOf(issue),
    closingPullRequests: read.closingPullRequests,
  };
}

/** The parts of an issue event that change without anything but the payload: labels, assignees, title. */
export function surfaceOf(issue: IssueObject): Pick<CandidateFacts, "title" | "labels" | "assignees"> {
  const { title, labels, assignees } = factsFromIssue(issue, { blockers: [], closingPullRequests: [] });
  return { title, labels, assignees };
}

/** A closing PR as the index keeps it; null for an outsider's, which blocks nothing (docs/security.md#trust-model). */
export function closingPullRequestOf(node: QueueClosingPullRequestNode): ClosingPullRequest | null {
  if (!standingOf(node)) return null;
  return { number: node.number, headRefName: node.headRefName, author: node.author?.login ?? null };
}

/** Whether a `link` header offers a next page. */
export function hasNextPage(link: string | number | undefined): boolean {
  return typeof link === "string" && /<[^>]*>;\s*rel="next"/.test(link);
}
