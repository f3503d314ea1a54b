// The two Octokit calls the GitHub providers use, so tests and callers can hand in any client that has them.

export interface OctokitResponseLike {
  status: number;
  data: unknown;
  /** Response headers (Octokit lower-cases them), e.g. `link` on a paged list. */
  headers?: Record<string, string | number | undefined>;
}

/** What the providers need from a Probot/Octokit client (an installation client or the App's JWT client). */
export interface OctokitLike {
  /** Resolves to the response's `data`; rejects (with `errors` and partial `data`) when GitHub answered with errors. */
  graphql<T = unknown>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Rejects with a `status` for any HTTP status of 400 or above. */
  request(route: string, params?: Record<string, unknown>): Promise<OctokitResponseLike>;
}

/** The HTTP status of an Octokit error, if it has one. */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "status" in error) {
    const status = (error as { status: unknown }).status;
    if (typeof status === "number" && status > 0) return status;
  }
  return undefined;
}

/** The kinds of GitHub request the providers make, as reported to their `onRequest` callbacks. */
export type GitHubRequestKind =
  | "subject-status"
  | "subject-comments"
  | "open-issues"
  | "list-repositories"
  | "get-repository"
  | "apply-transition"
  | "resolve-labels"
  | "get-label"
  | "create-label"
  | "get-user"
  | "get-installation"
  | "get-permission"
  | "get-config"
  | "list-open-issues"
  | "list-blocked-by"
  | "list-blocking"
  | "get-issue"
  | "list-issue-events"
  | "queue-pull-requests"
  | "closing-pull-requests";
