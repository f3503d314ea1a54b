// A narrow Gitea (and Forgejo) REST v1 client: plain fetch, one function per route the provider uses, every request counted.
import { z } from "zod";
import type { WriteLimiter } from "./serial-write-limiter.js";

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

export interface GiteaClientOptions {
  /** The instance's root (`https://gitea.example.com`, or with a sub-path); `/api/v1` is appended. */
  baseUrl: string;
  /** The App's bot account token (`GITEA_TOKEN`): never logged, never part of an error. */
  token: string;
  fetch?: typeof fetch;
  /** Called once for every HTTP request (metrics, tests). */
  onRequest?: (kind: GiteaRequestKind) => void;
  /** Every request but a GET goes through it (`serialWriteLimiter`: one at a time, spaced). */
  writeLimiter?: WriteLimiter;
}

/** Gitea answered a request with an error status; the message names the route, never a token. */
export class GiteaHttpError extends Error {
  constructor(
    readonly kind: GiteaRequestKind,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "GiteaHttpError";
  }
}

export const GiteaUser = z.object({ id: z.number().int().positive(), login: z.string().min(1) });
export type GiteaUser = z.infer<typeof GiteaUser>;
export const GiteaLabel = z.object({ id: z.number().int().positive(), name: z.string() });
export type GiteaLabel = z.infer<typeof GiteaLabel>;
export const GiteaIssue = z.object({
  number: z.number().int().positive(),
  state: z.enum(["open", "closed"]),
  assignees: z.array(GiteaUser).nullish(),
  labels: z.array(GiteaLabel).nullish(),
});
export type GiteaIssue = z.infer<typeof GiteaIssue>;
/** An issue as the reads take it: the write fields, and what a snapshot shows (`RepositoryMeta` for its repository). */
export const GiteaIssueRead = GiteaIssue.extend({
  id: z.number().int().positive(),
  title: z.string(),
  /** When it was opened (`queue.order`); optional so a read never fails for want of it. */
  created_at: z.string().optional(),
  updated_at: z.string(),
  /** How many comments the issue has: a listing reads the comments of an issue only when it has some. */
  comments: z.number().int().nonnegative(),
  /** Set on a pull request (Gitea's issue routes serve both). */
  pull_request: z.object({}).passthrough().nullish(),
  repository: z.object({ id: z.number().int().positive(), full_name: z.string() }),
});
export type GiteaIssueRead = z.infer<typeof GiteaIssueRead>;
/** An issue another one links to (a dependency): its state and where it lives. */
export const GiteaLinkedIssue = z.object({
  number: z.number().int().positive(),
  state: z.enum(["open", "closed"]),
  repository: z.object({ id: z.number().int().positive(), full_name: z.string() }),
});
export type GiteaLinkedIssue = z.infer<typeof GiteaLinkedIssue>;
export const GiteaComment = z.object({ id: z.number().int().positive() });
/** A comment as the marker search reads it: who wrote it decides whether its marker can be trusted. */
export const GiteaIssueComment = GiteaComment.extend({
  body: z.string(),
  user: GiteaUser.nullish(),
});
export type GiteaIssueComment = z.infer<typeof GiteaIssueComment>;
/** One comment as `GET …/issues/comments/{id}` answers it: `issue_url` names its issue (empty on a PR's). */
export const GiteaCommentRead = GiteaIssueComment.extend({
  issue_url: z.string().nullish(),
  html_url: z.string().nullish(),
});
export type GiteaCommentRead = z.infer<typeof GiteaCommentRead>;
export const GiteaRepository = z.object({ id: z.number().int().positive(), full_name: z.string() });
/** A repository of `GET /user/repos` with the bot account's rights on it (`Permission`). */
export const GiteaOwnRepository = GiteaRepository.extend({
  permissions: z.object({ admin: z.boolean() }).nullish(),
});
export type GiteaOwnRepository = z.infer<typeof GiteaOwnRepository>;
/** A repository webhook (`Hook`): Gitea never answers its secret. */
export const GiteaHook = z.object({
  id: z.number().int().positive(),
  type: z.string(),
  active: z.boolean(),
  events: z.array(z.string()).nullish(),
  config: z.record(z.string(), z.string()).nullish(),
});
export type GiteaHook = z.infer<typeof GiteaHook>;
/** What `create-hook` sends (`CreateHookOption`) and `edit-hook` (`EditHookOption`, without `type`). */
export interface GiteaHookOption {
  type: "gitea";
  active: boolean;
  events: string[];
  /** `url`, `content_type` and `secret`. */
  config: Record<string, string>;
}
export const GiteaPermission = z.object({ permission: z.string(), role_name: z.string().optional() });
export const GiteaCommitStatus = z.object({
  id: z.number().int(),
  context: z.string(),
  status: z.string(),
  description: z.string().nullish(),
  target_url: z.string().nullish(),
  /** Who wrote it: anyone with write access can post a status under any context. */
  creator: GiteaUser.nullish(),
});
export type GiteaCommitStatus = z.infer<typeof GiteaCommitStatus>;
/** A pull request as the fence reads it (`PullRequest`, its head a `PRBranchInfo`). */
export const GiteaPullRequest = z.object({
  number: z.number().int().positive(),
  state: z.enum(["open", "closed"]),
  title: z.string(),
  body: z.string().nullish(),
  user: GiteaUser.nullish(),
  /** `repo_id`: the repository the head branch lives in (a fork's differs from the base's). */
  head: z.object({ ref: z.string(), sha: z.string(), repo_id: z.number().int().nullish() }),
});
export type GiteaPullRequest = z.infer<typeof GiteaPullRequest>;
/** A commit of a pull request (`Commit`), its message in `commit` (`RepoCommit`). */
export const GiteaPullCommit = z.object({
  sha: z.string(),
  commit: z.object({ message: z.string() }),
});

/** A branch (`Branch`) and its head commit (`PayloadCommit`): when it last received a commit. */
export const GiteaBranch = z.object({
  name: z.string(),
  commit: z.object({ id: z.string(), timestamp: z.string() }),
});
export type GiteaBranch = z.infer<typeof GiteaBranch>;

/** Gitea's page size ceiling (`[api] MAX_RESPONSE_ITEMS` defaults to 50). */
export const giteaPageSize = 50;

const noCounter = (): RequestCounter => ({ requests: 0 });

export class GiteaClient {
  /** HTTP requests made so far, all calls together. */
  requests = 0;
  readonly #root: string;
  readonly #fetch: typeof fetch;
  /** Private, so serialising or logging the client cannot show the token. */
  readonly #options: GiteaClientOptions;

  constructor(options: GiteaClientOptions) {
    this.#options = options;
    this.#root = `${options.baseUrl.replace(/\/+$/, "")}/api/v1`;
    this.#fetch = options.fetch ?? fetch;
  }

  /** `GET /user` with `token` (an agent's), or the App's own account without it. */
  async getUser(token?: string, counter = noCounter()): Promise<GiteaUser> {
    return GiteaUser.parse(await this.#call(counter, "get-user", {}, { token }));
  }

  async getPermission(owner: string, repo: string, collaborator: string, counter = noCounter()) {
    const data = await this.#call(counter, "get-permission", { owner, repo, collaborator });
    return GiteaPermission.parse(data);
  }

  async getRepository(owner: string, repo: string, counter = noCounter()) {
    return GiteaRepository.parse(await this.#call(counter, "get-repository", { owner, repo }));
  }

  /** A file's raw text on the default branch. */
  async getRawFile(owner: string, repo: string, filepath: string, counter = noCounter()): Promise<string> {
    const data = await this.#call(counter, "get-raw-file", { owner, repo, filepath }, { text: true });
    return data as string;
  }

  async getIssue(owner: string, repo: string, index: number, counter = noCounter()): Promise<GiteaIssue> {
    return GiteaIssue.parse(await this.#call(counter, "get-issue", { owner, repo, index }));
  }

  /** The issue with what a snapshot shows; a pull request answers too (`pull_request` set). */
  async readIssue(
    owner: string,
    repo: string,
    index: number,
    counter = noCounter(),
  ): Promise<GiteaIssueRead> {
    return GiteaIssueRead.parse(await this.#call(counter, "get-issue", { owner, repo, index }));
  }

  /** Every comment of an issue, oldest first: Gitea's route takes no page (only `since`/`before`). */
  async listComments(owner: string, repo: string, index: number, counter = noCounter()) {
    const data = await this.#call(counter, "list-comments", { owner, repo, index });
    return z.array(GiteaIssueComment).parse(data);
  }

  /** One comment of the repository by its id; null when there is none (Gitea answers 404). */
  async getComment(owner: string, repo: string, id: number, counter = noCounter()) {
    try {
      return GiteaCommentRead.parse(await this.#call(counter, "get-comment", { owner, repo, id }));
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /** One page of a repository's open issues (pull requests left out), optionally only those with any of `labels`. */
  async listOpenIssues(
    owner: string,
    repo: string,
    page: { page: number; limit: number; labels?: string[] | null },
    counter = noCounter(),
  ): Promise<GiteaIssueRead[]> {
    const query: Record<string, string> = {
      state: "open",
      type: "issues",
      page: String(page.page),
      limit: String(page.limit),
      ...(page.labels?.length ? { labels: page.labels.join(",") } : {}),
    };
    const data = await this.#call(counter, "list-issues", { owner, repo }, { query });
    return z.array(GiteaIssueRead).parse(data);
  }

  /**
   * One page of the issues blocking `index` (`dependencies`) or blocked by it (`blocks`), of any
   * repository: Gitea answers them as issues with their `repository`.
   */
  async listIssueDependencies(
    owner: string,
    repo: string,
    index: number,
    which: "dependencies" | "blocks",
    page: number,
    counter = noCounter(),
  ): Promise<GiteaLinkedIssue[]> {
    const kind = which === "dependencies" ? "list-issue-dependencies" : "list-issue-blocks";
    const query = { page: String(page), limit: String(giteaPageSize) };
    return z
      .array(GiteaLinkedIssue)
      .parse(await this.#call(counter, kind, { owner, repo, index }, { query }));
  }

  /** One page of the repositories the bot account can see. */
  async listMyRepositories(page: number, counter = noCounter()) {
    const query = { page: String(page), limit: String(giteaPageSize) };
    const data = await this.#call(counter, "list-my-repositories", {}, { query });
    return z.array(GiteaRepository).parse(data);
  }

  /** One page of the repositories the bot account can see, with its rights on each. */
  async listMyRepositoryRights(page: number, counter = noCounter()): Promise<GiteaOwnRepository[]> {
    const query = { page: String(page), limit: String(giteaPageSize) };
    const data = await this.#call(counter, "list-my-repositories", {}, { query });
    return z.array(GiteaOwnRepository).parse(data);
  }

  /** One page of a repository's webhooks. */
  async listHooks(owner: string, repo: string, page: number, counter = noCounter()): Promise<GiteaHook[]> {
    const query = { page: String(page), limit: String(giteaPageSize) };
    return z.array(GiteaHook).parse(await this.#call(counter, "list-hooks", { owner, repo }, { query }));
  }

  async createHook(owner: string, repo: string, hook: GiteaHookOption, counter = noCounter()) {
    return GiteaHook.parse(await this.#call(counter, "create-hook", { owner, repo }, { body: hook }));
  }

  /** Gitea replaces the hook's whole event list (none given: `push` only), so `events` is always sent. */
  async editHook(
    owner: string,
    repo: string,
    id: number,
    hook: Omit<GiteaHookOption, "type">,
    counter = noCounter(),
  ) {
    return GiteaHook.parse(await this.#call(counter, "edit-hook", { owner, repo, id }, { body: hook }));
  }

  async deleteHook(owner: string, repo: string, id: number, counter = noCounter()) {
    await this.#call(counter, "delete-hook", { owner, repo, id });
  }

  async getRepositoryById(id: number, counter = noCounter()) {
    return GiteaRepository.parse(await this.#call(counter, "get-repository-by-id", { id }));
  }

  /** Adds a reaction as the bot account (`EditReactionOption`); Gitea answers 200 for one it has already. */
  async addCommentReaction(owner: string, repo: string, id: number, content: string, counter = noCounter()) {
    await this.#call(counter, "add-comment-reaction", { owner, repo, id }, { body: { content } });
  }

  /** Sets the issue's whole assignee list (Gitea has no add/remove-assignee route). */
  async setAssignees(owner: string, repo: string, index: number, assignees: string[], counter = noCounter()) {
    await this.#call(counter, "edit-issue", { owner, repo, index }, { body: { assignees } });
  }

  async listLabels(owner: string, repo: string, page: number, counter = noCounter()): Promise<GiteaLabel[]> {
    const query = { page: String(page), limit: String(giteaPageSize) };
    return z.array(GiteaLabel).parse(await this.#call(counter, "list-labels", { owner, repo }, { query }));
  }

  async createLabel(
    owner: string,
    repo: string,
    label: { name: string; color: string; description: string },
    counter = noCounter(),
  ): Promise<GiteaLabel> {
    const body = {
      name: label.name,
      color: `#${label.color.replace(/^#/, "")}`,
      description: label.description,
    };
    return GiteaLabel.parse(await this.#call(counter, "create-label", { owner, repo }, { body }));
  }

  async addIssueLabels(owner: string, repo: string, index: number, ids: number[], counter = noCounter()) {
    await this.#call(counter, "add-issue-labels", { owner, repo, index }, { body: { labels: ids } });
  }

  async removeIssueLabel(owner: string, repo: string, index: number, id: number, counter = noCounter()) {
    await this.#call(counter, "remove-issue-label", { owner, repo, index, id });
  }

  async createComment(owner: string, repo: string, index: number, body: string, counter = noCounter()) {
    return GiteaComment.parse(
      await this.#call(counter, "create-comment", { owner, repo, index }, { body: { body } }),
    );
  }

  async editComment(owner: string, repo: string, id: number, body: string, counter = noCounter()) {
    await this.#call(counter, "edit-comment", { owner, repo, id }, { body: { body } });
  }

  /** The statuses of a commit, newest first (one page). */
  async listStatuses(owner: string, repo: string, sha: string, counter = noCounter()) {
    const query = { sort: "recentupdate", limit: String(giteaPageSize) };
    const data = await this.#call(counter, "list-statuses", { owner, repo, sha }, { query });
    return z.array(GiteaCommitStatus).parse(data);
  }

  async createStatus(
    owner: string,
    repo: string,
    sha: string,
    status: { state: string; context: string; description: string; target_url?: string },
    counter = noCounter(),
  ) {
    const data = await this.#call(counter, "create-status", { owner, repo, sha }, { body: status });
    return GiteaCommitStatus.parse(data);
  }

  /** A pull request by its index; null when there is none (Gitea answers 404). */
  async getPullRequest(owner: string, repo: string, index: number, counter = noCounter()) {
    try {
      return GiteaPullRequest.parse(await this.#call(counter, "get-pull-request", { owner, repo, index }));
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /** The first page of a pull request's commits, without the verification and file lists Gitea adds by default. */
  async listPullRequestCommits(owner: string, repo: string, index: number, counter = noCounter()) {
    const query = { page: "1", limit: String(giteaPageSize), verification: "false", files: "false" };
    const data = await this.#call(counter, "list-pull-request-commits", { owner, repo, index }, { query });
    return z.array(GiteaPullCommit).parse(data);
  }

  /** One page of a repository's open pull requests, newest first (Gitea's route filters by state, not by head). */
  async listOpenPullRequests(owner: string, repo: string, page: number, counter = noCounter()) {
    const query = { state: "open", sort: "recentupdate", page: String(page), limit: String(giteaPageSize) };
    const data = await this.#call(counter, "list-pull-requests", { owner, repo }, { query });
    return z.array(GiteaPullRequest).parse(data);
  }

  /** A branch of the repository; null when there is none (Gitea answers 404). */
  async getBranch(owner: string, repo: string, branch: string, counter = noCounter()) {
    try {
      return GiteaBranch.parse(await this.#call(counter, "get-branch", { owner, repo, branch }));
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }

  async #call(
    counter: RequestCounter,
    kind: GiteaRequestKind,
    params: Record<string, string | number>,
    options: {
      body?: unknown;
      query?: Record<string, string>;
      token?: string | undefined;
      text?: boolean;
    } = {},
  ): Promise<unknown> {
    const route = giteaRoutes[kind];
    const path = fillPath(route.path, params);
    const query = options.query ? `?${new URLSearchParams(options.query)}` : "";
    counter.requests++;
    this.requests++;
    this.#options.onRequest?.(kind);
    const send = () =>
      this.#fetch(`${this.#root}${path}${query}`, {
        method: route.method,
        headers: {
          authorization: `token ${options.token ?? this.#options.token}`,
          accept: options.text ? "*/*" : "application/json",
          "user-agent": "claim-hold",
          ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
    const limiter = route.method === "GET" ? undefined : this.#options.writeLimiter;
    const response = limiter ? await limiter.run(send) : await send();
    if (!response.ok) {
      throw new GiteaHttpError(
        kind,
        response.status,
        `${route.method} ${path}: Gitea answered ${response.status}${await reasonOf(response)}`,
      );
    }
    if (options.text) return response.text();
    if (response.status === 204) return null;
    const text = await response.text();
    return text === "" ? null : JSON.parse(text);
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

/** Gitea's `{ message }`, shortened; bodies never echo the request's token. */
async function reasonOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown } | null;
    return typeof body?.message === "string" && body.message ? `: ${body.message.slice(0, 200)}` : "";
  } catch {
    return "";
  }
}

/** The HTTP status of a Gitea error, if it is one. */
export function giteaStatusOf(error: unknown): number | undefined {
  return error instanceof GiteaHttpError ? error.status : undefined;
}
