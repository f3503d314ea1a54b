// A narrow Gitea (and Forgejo) REST v1 client: one function per route the provider uses, each one counted request through the transport.
import { z } from "zod";
import { giteaStatusOf, type RequestCounter } from "./gitea-routes.js";
import {
  GiteaBranch,
  GiteaComment,
  GiteaCommentRead,
  GiteaCommitStatus,
  GiteaHook,
  type GiteaHookOption,
  GiteaIssue,
  GiteaIssueComment,
  GiteaIssueRead,
  GiteaLabel,
  GiteaLinkedIssue,
  GiteaOwnRepository,
  GiteaPermission,
  GiteaPullCommit,
  GiteaPullRequest,
  GiteaRepository,
  GiteaTimelineEntry,
  GiteaUser,
  giteaPageSize,
} from "./gitea-schemas.js";
import { GiteaTransport, type GiteaTransportOptions } from "./gitea-transport.js";

// The wiring reads the issue shape from here (src/wiring/gitea-webhooks.ts).
export type { GiteaIssueRead } from "./gitea-schemas.js";

/** What the client needs to reach its instance: the transport's options (src/providers/gitea/gitea-transport.ts). */
export type GiteaClientOptions = GiteaTransportOptions;
export { giteaRequestTimeoutMs } from "./gitea-transport.js";

/** The two calls an assignee write makes in one turn of the write limiter (`GiteaClient.inWriteSlot`). */
export interface GiteaWriteSlot {
  getIssue(owner: string, repo: string, index: number, counter?: RequestCounter): Promise<GiteaIssue>;
  setAssignees(
    owner: string,
    repo: string,
    index: number,
    assignees: string[],
    counter?: RequestCounter,
  ): Promise<void>;
}

const noCounter = (): RequestCounter => ({ requests: 0 });

export class GiteaClient {
  /** Private, so serialising or logging the client cannot show the token. */
  readonly #transport: GiteaTransport;

  constructor(options: GiteaClientOptions) {
    this.#transport = new GiteaTransport(options);
  }

  /** HTTP requests made so far, all calls together. */
  get requests(): number {
    return this.#transport.requests;
  }

  /** `GET /user` with `token` (an agent's), or the App's own account without it. */
  async getUser(token?: string, counter = noCounter()): Promise<GiteaUser> {
    return GiteaUser.parse(await this.#transport.call(counter, "get-user", {}, { token }));
  }

  async getPermission(owner: string, repo: string, collaborator: string, counter = noCounter()) {
    const data = await this.#transport.call(counter, "get-permission", { owner, repo, collaborator });
    return GiteaPermission.parse(data);
  }

  async getRepository(owner: string, repo: string, counter = noCounter()) {
    return GiteaRepository.parse(await this.#transport.call(counter, "get-repository", { owner, repo }));
  }

  /** A file's raw text on the default branch. */
  async getRawFile(owner: string, repo: string, filepath: string, counter = noCounter()): Promise<string> {
    const data = await this.#transport.call(
      counter,
      "get-raw-file",
      { owner, repo, filepath },
      { text: true },
    );
    return data as string;
  }

  async getIssue(owner: string, repo: string, index: number, counter = noCounter()): Promise<GiteaIssue> {
    return GiteaIssue.parse(await this.#transport.call(counter, "get-issue", { owner, repo, index }));
  }

  /** The issue with what a snapshot shows; a pull request answers too (`pull_request` set). */
  async readIssue(
    owner: string,
    repo: string,
    index: number,
    counter = noCounter(),
  ): Promise<GiteaIssueRead> {
    return GiteaIssueRead.parse(await this.#transport.call(counter, "get-issue", { owner, repo, index }));
  }

  /** Every comment of an issue, oldest first: Gitea's route takes no page (only `since`/`before`). */
  async listComments(owner: string, repo: string, index: number, counter = noCounter()) {
    const data = await this.#transport.call(counter, "list-comments", { owner, repo, index });
    return z.array(GiteaIssueComment).parse(data);
  }

  /** One comment of the repository by its id; null when there is none (Gitea answers 404). */
  async getComment(owner: string, repo: string, id: number, counter = noCounter()) {
    try {
      return GiteaCommentRead.parse(await this.#transport.call(counter, "get-comment", { owner, repo, id }));
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /**
   * One page of an issue's timeline, oldest first: empty past the end (Gitea answers `null` there).
   * An entry Gitea failed to convert is `null` in its place (a page is only over when it is empty).
   */
  async listIssueTimeline(
    owner: string,
    repo: string,
    index: number,
    page: number,
    counter = noCounter(),
  ): Promise<(GiteaTimelineEntry | null)[]> {
    const query = { page: String(page), limit: String(giteaPageSize) };
    const data = await this.#transport.call(
      counter,
      "list-issue-timeline",
      { owner, repo, index },
      { query },
    );
    return z.array(GiteaTimelineEntry.nullable()).nullable().parse(data) ?? [];
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
    const data = await this.#transport.call(counter, "list-issues", { owner, repo }, { query });
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
      .parse(await this.#transport.call(counter, kind, { owner, repo, index }, { query }));
  }

  /** One page of the repositories the bot account can see. */
  async listMyRepositories(page: number, counter = noCounter()) {
    const query = { page: String(page), limit: String(giteaPageSize) };
    const data = await this.#transport.call(counter, "list-my-repositories", {}, { query });
    return z.array(GiteaRepository).parse(data);
  }

  /** One page of the repositories the bot account can see, with its rights on each. */
  async listMyRepositoryRights(page: number, counter = noCounter()): Promise<GiteaOwnRepository[]> {
    const query = { page: String(page), limit: String(giteaPageSize) };
    const data = await this.#transport.call(counter, "list-my-repositories", {}, { query });
    return z.array(GiteaOwnRepository).parse(data);
  }

  /** One page of a repository's webhooks. */
  async listHooks(owner: string, repo: string, page: number, counter = noCounter()): Promise<GiteaHook[]> {
    const query = { page: String(page), limit: String(giteaPageSize) };
    return z
      .array(GiteaHook)
      .parse(await this.#transport.call(counter, "list-hooks", { owner, repo }, { query }));
  }

  async createHook(owner: string, repo: string, hook: GiteaHookOption, counter = noCounter()) {
    return GiteaHook.parse(
      await this.#transport.call(counter, "create-hook", { owner, repo }, { body: hook }),
    );
  }

  /** Gitea replaces the hook's whole event list (none given: `push` only), so `events` is always sent. */
  async editHook(
    owner: string,
    repo: string,
    id: number,
    hook: Omit<GiteaHookOption, "type">,
    counter = noCounter(),
  ) {
    return GiteaHook.parse(
      await this.#transport.call(counter, "edit-hook", { owner, repo, id }, { body: hook }),
    );
  }

  async deleteHook(owner: string, repo: string, id: number, counter = noCounter()) {
    await this.#transport.call(counter, "delete-hook", { owner, repo, id });
  }

  async getRepositoryById(id: number, counter = noCounter()) {
    return GiteaRepository.parse(await this.#transport.call(counter, "get-repository-by-id", { id }));
  }

  /** Adds a reaction as the bot account (`EditReactionOption`); Gitea answers 200 for one it has already. */
  async addCommentReaction(owner: string, repo: string, id: number, content: string, counter = noCounter()) {
    await this.#transport.call(counter, "add-comment-reaction", { owner, repo, id }, { body: { content } });
  }

  /** Sets the issue's whole assignee list (Gitea has no add/remove-assignee route). */
  async setAssignees(owner: string, repo: string, index: number, assignees: string[], counter = noCounter()) {
    await this.#transport.call(counter, "edit-issue", { owner, repo, index }, { body: { assignees } });
  }

  async listLabels(owner: string, repo: string, page: number, counter = noCounter()): Promise<GiteaLabel[]> {
    const query = { page: String(page), limit: String(giteaPageSize) };
    return z
      .array(GiteaLabel)
      .parse(await this.#transport.call(counter, "list-labels", { owner, repo }, { query }));
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
    return GiteaLabel.parse(await this.#transport.call(counter, "create-label", { owner, repo }, { body }));
  }

  async addIssueLabels(owner: string, repo: string, index: number, ids: number[], counter = noCounter()) {
    await this.#transport.call(
      counter,
      "add-issue-labels",
      { owner, repo, index },
      { body: { labels: ids } },
    );
  }

  async removeIssueLabel(owner: string, repo: string, index: number, id: number, counter = noCounter()) {
    await this.#transport.call(counter, "remove-issue-label", { owner, repo, index, id });
  }

  async createComment(owner: string, repo: string, index: number, body: string, counter = noCounter()) {
    return GiteaComment.parse(
      await this.#transport.call(counter, "create-comment", { owner, repo, index }, { body: { body } }),
    );
  }

  async editComment(owner: string, repo: string, id: number, body: string, counter = noCounter()) {
    await this.#transport.call(counter, "edit-comment", { owner, repo, id }, { body: { body } });
  }

  /**
   * The statuses of a commit, highest index first (one page). Gitea's `leastindex` is `index` DESC
   * (models/git/commit_status.go); `recentupdate` orders by whole seconds, so statuses of one
   * second would come in no set order (docs/reference/gitea-surfaces.md#the-claim-hold-commit-status).
   */
  async listStatuses(owner: string, repo: string, sha: string, counter = noCounter()) {
    const query = { sort: "leastindex", limit: String(giteaPageSize) };
    const data = await this.#transport.call(counter, "list-statuses", { owner, repo, sha }, { query });
    return z.array(GiteaCommitStatus).parse(data);
  }

  async createStatus(
    owner: string,
    repo: string,
    sha: string,
    status: { state: string; context: string; description: string; target_url?: string },
    counter = noCounter(),
  ) {
    const data = await this.#transport.call(counter, "create-status", { owner, repo, sha }, { body: status });
    return GiteaCommitStatus.parse(data);
  }

  /** A pull request by its index; null when there is none (Gitea answers 404). */
  async getPullRequest(owner: string, repo: string, index: number, counter = noCounter()) {
    try {
      return GiteaPullRequest.parse(
        await this.#transport.call(counter, "get-pull-request", { owner, repo, index }),
      );
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /** The first page of a pull request's commits, without the verification and file lists Gitea adds by default. */
  async listPullRequestCommits(owner: string, repo: string, index: number, counter = noCounter()) {
    const query = { page: "1", limit: String(giteaPageSize), verification: "false", files: "false" };
    const data = await this.#transport.call(
      counter,
      "list-pull-request-commits",
      { owner, repo, index },
      { query },
    );
    return z.array(GiteaPullCommit).parse(data);
  }

  /** One page of a repository's open pull requests, newest first (Gitea's route filters by state, not by head). */
  async listOpenPullRequests(owner: string, repo: string, page: number, counter = noCounter()) {
    const query = { state: "open", sort: "recentupdate", page: String(page), limit: String(giteaPageSize) };
    const data = await this.#transport.call(counter, "list-pull-requests", { owner, repo }, { query });
    return z.array(GiteaPullRequest).parse(data);
  }

  /** A branch of the repository; null when there is none (Gitea answers 404). */
  async getBranch(owner: string, repo: string, branch: string, counter = noCounter()) {
    try {
      return GiteaBranch.parse(await this.#transport.call(counter, "get-branch", { owner, repo, branch }));
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Runs `call` in one turn of the write limiter: the requests it makes through `slot` are not
   * queued again, and no other write of this client starts until it has finished. A write planned
   * from a read made in the same turn plans from the issue as it stands (docs/reference/gitea-surfaces.md).
   */
  inWriteSlot<T>(call: (slot: GiteaWriteSlot) => Promise<T>): Promise<T> {
    const slot: GiteaWriteSlot = {
      getIssue: async (owner, repo, index, counter = noCounter()) =>
        GiteaIssue.parse(
          await this.#transport.call(counter, "get-issue", { owner, repo, index }, { inSlot: true }),
        ),
      setAssignees: async (owner, repo, index, assignees, counter = noCounter()) => {
        const body = { assignees };
        await this.#transport.call(counter, "edit-issue", { owner, repo, index }, { body, inSlot: true });
      },
    };
    const limiter = this.#transport.writeLimiter;
    return limiter ? limiter.run(() => call(slot)) : call(slot);
  }
}
