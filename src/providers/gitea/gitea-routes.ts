// The Gitea REST v1 routes the provider calls, the path filling, and the error a refused (or unanswered) request throws.

/** The routes the Gitea provider calls, as Gitea's swagger names them (checked against it in a test). */
export const giteaRoutes = {
  "get-user": { method: "GET", path: "/user" },
  "get-permission": { method: "GET", path: "/repos/{owner}/{repo}/collaborators/{collaborator}/permission" },
  "get-repository": { method: "GET", path: "/repos/{owner}/{repo}" },
  "get-raw-file": { method: "GET", path: "/repos/{owner}/{repo}/raw/{filepath}" },
  "get-issue": { method: "GET", path: "/repos/{owner}/{repo}/issues/{index}" },
  "edit-issue": { method: "PATCH", path: "/repos/{owner}/{repo}/issues/{index}" },
  "list-labels": { method: "GET", path: "/repos/{owner}/{repo}/labels" },
  "create-label": { method: "POST", path: "/repos/{owner}/{repo}/labels" },
  "add-issue-labels": { method: "POST", path: "/repos/{owner}/{repo}/issues/{index}/labels" },
  "remove-issue-label": { method: "DELETE", path: "/repos/{owner}/{repo}/issues/{index}/labels/{id}" },
  "create-comment": { method: "POST", path: "/repos/{owner}/{repo}/issues/{index}/comments" },
  "edit-comment": { method: "PATCH", path: "/repos/{owner}/{repo}/issues/comments/{id}" },
  "get-comment": { method: "GET", path: "/repos/{owner}/{repo}/issues/comments/{id}" },
  "list-comments": { method: "GET", path: "/repos/{owner}/{repo}/issues/{index}/comments" },
  "list-issue-timeline": { method: "GET", path: "/repos/{owner}/{repo}/issues/{index}/timeline" },
  "list-issues": { method: "GET", path: "/repos/{owner}/{repo}/issues" },
  "list-my-repositories": { method: "GET", path: "/user/repos" },
  "get-repository-by-id": { method: "GET", path: "/repositories/{id}" },
  "add-comment-reaction": { method: "POST", path: "/repos/{owner}/{repo}/issues/comments/{id}/reactions" },
  "list-issue-dependencies": { method: "GET", path: "/repos/{owner}/{repo}/issues/{index}/dependencies" },
  "list-issue-blocks": { method: "GET", path: "/repos/{owner}/{repo}/issues/{index}/blocks" },
  "list-statuses": { method: "GET", path: "/repos/{owner}/{repo}/statuses/{sha}" },
  "create-status": { method: "POST", path: "/repos/{owner}/{repo}/statuses/{sha}" },
  "get-pull-request": { method: "GET", path: "/repos/{owner}/{repo}/pulls/{index}" },
  "list-pull-request-commits": { method: "GET", path: "/repos/{owner}/{repo}/pulls/{index}/commits" },
  "list-pull-requests": { method: "GET", path: "/repos/{owner}/{repo}/pulls" },
  "get-branch": { method: "GET", path: "/repos/{owner}/{repo}/branches/{branch}" },
  "list-hooks": { method: "GET", path: "/repos/{owner}/{repo}/hooks" },
  "create-hook": { method: "POST", path: "/repos/{owner}/{repo}/hooks" },
  "edit-hook": { method: "PATCH", path: "/repos/{owner}/{repo}/hooks/{id}" },
  "delete-hook": { method: "DELETE", path: "/repos/{owner}/{repo}/hooks/{id}" },
} as const;

export type GiteaRequestKind = keyof typeof giteaRoutes;

/** Requests made by one provider call (for `AppliedWrite.requests`). */
export interface RequestCounter {
  requests: number;
}

/**
 * Gitea answered a request with an error status, or did not answer in time (504, as a gateway
 * would); the message names the route, never a token.
 */
export class GiteaHttpError extends Error {
  constructor(
    readonly kind: GiteaRequestKind,
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "GiteaHttpError";
  }
}

/** The route's path with each `{param}` filled in; a file path and a branch name keep their slashes (Gitea routes them as `*`). */
export function fillPath(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${template}`);
    const encoded = encodeURIComponent(String(value));
    return name === "filepath" || name === "branch" ? encoded.replace(/%2F/g, "/") : encoded;
  });
}

/** The HTTP status of a Gitea error, if it is one. */
export function giteaStatusOf(error: unknown): number | undefined {
  return error instanceof GiteaHttpError ? error.status : undefined;
}
