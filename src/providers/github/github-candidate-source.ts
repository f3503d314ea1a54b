// The GitHub reads behind the candidate index: the paged open-issue listing and open-PR links of a refresh, and the one-request reads webhooks need.
import type { CandidateSource, ClosingPullRequest, QueueRepo } from "../queue-store.js";
import { describeGitHubError } from "./github-errors.js";
import {
  QUEUE_ISSUE_CLOSING_PULL_REQUESTS_QUERY,
  QUEUE_OPEN_PULL_REQUESTS_QUERY,
  type QueueIssueClosingPullRequestsResponse,
  type QueueOpenPullRequestsResponse,
  type QueueOpenPullRequestsVariables,
} from "./graphql/queue-pull-requests.js";
import { type GitHubRequestKind, httpStatusOf, type OctokitLike } from "./octokit-like.js";
import {
  closingPullRequestOf,
  hasNextPage,
  type IssueObject,
  openSubIssuesOf,
  subjectOf,
} from "./queue-facts.js";
import { splitRepo } from "./split-repo.js";

/** GitHub's largest page, for every list here. */
export const queuePageSize = 100;

export interface GitHubCandidateSourceOptions {
  octokitFor: (installationId: number) => Promise<OctokitLike>;
  onRequest?: (kind: GitHubRequestKind) => void;
}

export interface OpenItemsListing {
  /** Open issues and pull requests (REST lists both), oldest first. */
  items: IssueObject[];
  requests: number;
  /** The page cap stopped the listing with more left. */
  truncated: boolean;
}

export interface PullRequestLinks {
  /** Issue number of `repo` -> the open pull requests that close it. */
  byIssue: Map<number, ClosingPullRequest[]>;
  requests: number;
  truncated: boolean;
}

export class GitHubCandidateSource implements CandidateSource {
  constructor(private readonly options: GitHubCandidateSourceOptions) {}

  /** `GET /repos/{o}/{r}/issues?state=open`, 100 a page, oldest first, at most `maxPages` pages. */
  async listOpenItems(repo: QueueRepo, maxPages: number): Promise<OpenItemsListing> {
    const { owner, name } = splitRepo(repo.repo);
    const octokit = await this.options.octokitFor(repo.installationId);
    const items: IssueObject[] = [];
    for (let page = 1; page <= maxPages; page++) {
      const response = await this.#rest(
        octokit,
        "list-open-issues",
        repo,
        "GET /repos/{owner}/{repo}/issues",
        {
          owner,
          repo: name,
          state: "open",
          sort: "created",
          direction: "asc",
          per_page: queuePageSize,
          page,
        },
      );
      items.push(...(response.data as IssueObject[]));
      if (!hasNextPage(response.headers?.link)) return { items, requests: page, truncated: false };
    }
    return { items, requests: maxPages, truncated: true };
  }

  /** Open pull requests of the repository with the issues of it each closes, at most `maxPages` GraphQL pages. */
  async openPullRequestLinks(repo: QueueRepo, maxPages: number): Promise<PullRequestLinks> {
    const { owner, name } = splitRepo(repo.repo);
    const octokit = await this.options.octokitFor(repo.installationId);
    const byIssue = new Map<number, ClosingPullRequest[]>();
    let after: string | null = null;
    for (let page = 1; page <= maxPages; page++) {
      const variables: QueueOpenPullRequestsVariables = { owner, name, first: queuePageSize, after };
      const answer: QueueOpenPullRequestsResponse = await this.#graphql(
        octokit,
        "queue-pull-requests",
        repo,
        QUEUE_OPEN_PULL_REQUESTS_QUERY,
        { ...variables },
      );
      const pulls = answer.repository?.pullRequests;
      for (const pull of pulls?.nodes ?? []) {
        const closing = pull ? closingPullRequestOf(pull) : null;
        if (!pull || !closing) continue;
        for (const issue of pull.closingIssuesReferences?.nodes ?? []) {
          if (!issue || issue.repository.databaseId !== repo.repoId) continue;
          const list = byIssue.get(issue.number) ?? [];
          list.push(closing);
          byIssue.set(issue.number, list);
        }
      }
      if (!pulls?.pageInfo.hasNextPage) return { byIssue, requests: page, truncated: false };
      after = pulls.pageInfo.endCursor;
    }
    return { byIssue, requests: maxPages, truncated: true };
  }

  /** The repository's id, or null when the installation cannot see it (GitHub's 404). */
  async repositoryId(installationId: number, repo: string): Promise<number | null> {
    const { owner, name } = splitRepo(repo);
    const octokit = await this.options.octokitFor(installationId);
    const ref = { installationId, repoId: 0, repo };
    try {
      const response = await this.#rest(octokit, "get-repository", ref, "GET /repos/{owner}/{repo}", {
        owner,
        repo: name,
      });
      return (response.data as { id: number }).id;
    } catch (error) {
      if (httpStatusOf((error as { cause?: unknown }).cause) === 404) return null;
      throw error;
    }
  }

  async openBlockers(repo: QueueRepo, issue: number): Promise<string[]> {
    const blockers = await this.#dependencies(repo, issue, "blocked_by", "list-blocked-by");
    return blockers.flatMap((b) => subjectOf(b) ?? []);
  }

  async blockedIssues(repo: QueueRepo, issue: number): Promise<number[]> {
    const blocked = await this.#dependencies(repo, issue, "blocking", "list-blocking");
    return blocked.filter((b) => subjectOf(b) === `${repo.repo}#${b.number}`).map((b) => b.number);
  }

  async openSubIssues(repo: QueueRepo, issue: number): Promise<number> {
    const { owner, name } = splitRepo(repo.repo);
    const octokit = await this.options.octokitFor(repo.installationId);
    const response = await this.#rest(
      octokit,
      "get-issue",
      repo,
      "GET /repos/{owner}/{repo}/issues/{issue_number}",
      {
        owner,
        repo: name,
        issue_number: issue,
      },
    );
    return openSubIssuesOf(response.data as IssueObject);
  }

  async closingPullRequests(repo: QueueRepo, issue: number): Promise<ClosingPullRequest[]> {
    const { owner, name } = splitRepo(repo.repo);
    const octokit = await this.options.octokitFor(repo.installationId);
    const answer: QueueIssueClosingPullRequestsResponse = await this.#graphql(
      octokit,
      "closing-pull-requests",
      repo,
      QUEUE_ISSUE_CLOSING_PULL_REQUESTS_QUERY,
      { owner, name, number: issue },
    );
    return (answer.repository?.issue?.closedByPullRequestsReferences?.nodes ?? []).flatMap((node) => {
      const closing = node ? closingPullRequestOf(node) : null;
      return closing ? [closing] : [];
    });
  }

  /** The first page (100) of an issue's dependencies of one kind, open ones only. */
  async #dependencies(
    repo: QueueRepo,
    issue: number,
    kind: "blocked_by" | "blocking",
    requestKind: GitHubRequestKind,
  ): Promise<IssueObject[]> {
    const { owner, name } = splitRepo(repo.repo);
    const octokit = await this.options.octokitFor(repo.installationId);
    const response = await this.#rest(
      octokit,
      requestKind,
      repo,
      `GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/${kind}`,
      { owner, repo: name, issue_number: issue, per_page: queuePageSize },
    );
    return (response.data as IssueObject[]).filter((i) => i.state === "open");
  }

  async #rest(
    octokit: OctokitLike,
    kind: GitHubRequestKind,
    repo: QueueRepo,
    route: string,
    params: Record<string, unknown>,
  ) {
    this.options.onRequest?.(kind);
    try {
      return await octokit.request(route, params);
    } catch (error) {
      throw new Error(`failed to read ${kind} of ${repo.repo}: ${describeGitHubError(error)}`, {
        cause: error,
      });
    }
  }

  async #graphql<T>(
    octokit: OctokitLike,
    kind: GitHubRequestKind,
    repo: QueueRepo,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<T> {
    this.options.onRequest?.(kind);
    try {
      return await octokit.graphql<T>(query, variables);
    } catch (error) {
      throw new Error(`failed to read ${kind} of ${repo.repo}: ${describeGitHubError(error)}`, {
        cause: error,
      });
    }
  }
}
