// What the candidate index knows of one open issue: the facts eligibility and ranking are computed from.

/** An open pull request that closes an indexed issue, as GitHub links them. */
export interface ClosingPullRequest {
  number: number;
  headRefName: string;
  author: string | null;
}

/** What eligibility and ranking need of one open issue (never a pull request, never a closed issue). */
export interface CandidateFacts {
  issue: number;
  title: string;
  /** Creation time, ms since the epoch (`queue.order`). */
  createdAt: number;
  labels: string[];
  /** Logins of the issue's assignees. */
  assignees: string[];
  /** Open issues blocking this one (GitHub issue dependencies, `blocked_by`), as `owner/repo#n`. */
  blockers: string[];
  /** Open sub-issues: a tracking issue is not work. */
  openSubIssues: number;
  /** Open pull requests that close this issue. */
  closingPullRequests: ClosingPullRequest[];
}
