// The candidate index on Gitea: the bounded refresh of a repository's open issues with their dependencies, and the reads the queue needs beside it.

import type { Logger } from "pino";
import { splitRepo } from "../github/split-repo.js";
import { mapBounded } from "../map-bounded.js";
import type {
  CandidateFacts,
  CandidateFeed,
  CandidateSource,
  ClosingPullRequest,
  QueueRefresh,
  QueueRefreshReport,
  QueueRepo,
} from "../queue-store.js";
import type { GiteaClient } from "./gitea-client.js";
import { giteaClosingIssues } from "./gitea-closing-references.js";
import { type AuthorPermission, GiteaCollaboratorPermissions } from "./gitea-collaborator-permissions.js";
import { GiteaDependencySource } from "./gitea-dependency-source.js";
import { giteaStatusOf, type RequestCounter } from "./gitea-routes.js";
import { type GiteaIssueRead, type GiteaPullRequest, giteaPageSize } from "./gitea-schemas.js";
import { authorsToAsk, giteaPullRequestCounts } from "./gitea-subject-snapshot.js";

/** Pages of 50 a refresh lists at most (default 20: 1,000 open issues, as on GitHub). */
export const defaultGiteaRefreshPages = 20;

/**
 * `CandidateSource` on Gitea: blockers through the issue dependency routes (one request each),
 * closing pull requests through the first page of open pull requests (their descriptions, as Gitea
 * finds keywords) and their authors' permissions, and no sub-issues (Gitea has none).
 */
export class GiteaCandidateSource implements CandidateSource {
  readonly #dependencies: GiteaDependencySource;

  readonly #permissions: GiteaCollaboratorPermissions;

  constructor(
    private readonly client: GiteaClient,
    permissions?: GiteaCollaboratorPermissions,
    log?: Logger,
  ) {
    this.#dependencies = new GiteaDependencySource(client, { log });
    this.#permissions = permissions ?? new GiteaCollaboratorPermissions(client);
  }

  openBlockers(repo: QueueRepo, issue: number, counter?: RequestCounter): Promise<string[]> {
    return this.#dependencies.openBlockers(repo, issue, counter);
  }

  blockedIssues(repo: QueueRepo, issue: number, counter?: RequestCounter): Promise<number[]> {
    return this.#dependencies.blockedIssues(repo, issue, counter);
  }

  async closingPullRequests(repo: QueueRepo, issue: number): Promise<ClosingPullRequest[]> {
    const { owner, name } = splitRepo(repo.repo);
    const pulls = await this.client.listOpenPullRequests(owner, name, 1);
    return (await closingPullRequestsWithStanding(pulls, repo, this.#permissions)).get(issue) ?? [];
  }

  async openSubIssues(_repo: QueueRepo, _issue: number): Promise<number> {
    return 0;
  }

  /** The repository's id (`GET /repos/{owner}/{repo}`), or null when the bot account cannot see it. */
  async repositoryId(repo: string): Promise<number | null> {
    const { owner, name } = splitRepo(repo);
    try {
      return (await this.client.getRepository(owner, name)).id;
    } catch (error) {
      if (giteaStatusOf(error) === 404) return null;
      throw error;
    }
  }
}

/**
 * Issue number → the open pull requests whose description closes it and that count
 * (`giteaPullRequestCounts`: a fork's, or a reader's, blocks nothing), given their authors'
 * `permissions` (pure).
 */
export function closingPullRequestsByIssue(
  pulls: readonly GiteaPullRequest[],
  repo: QueueRepo,
  permissions: ReadonlyMap<string, AuthorPermission>,
): Map<number, ClosingPullRequest[]> {
  const byIssue = new Map<number, ClosingPullRequest[]>();
  const context = { repoId: repo.repoId, botLogin: null };
  for (const pull of pulls) {
    if (pull.state !== "open") continue;
    const permission = pull.user ? permissions.get(pull.user.login.toLowerCase()) : undefined;
    if (!giteaPullRequestCounts(pull, context, permission)) continue;
    for (const issue of giteaClosingIssues({ body: pull.body, commitMessages: [] }, repo.repo)) {
      const shown = { number: pull.number, headRefName: pull.head.ref, author: pull.user?.login ?? null };
      byIssue.set(issue, [...(byIssue.get(issue) ?? []), shown]);
    }
  }
  return byIssue;
}

/**
 * `closingPullRequestsByIssue` after reading the permission of each author of a closing pull
 * request from the base repository (cached). The App's own account is asked too: the queue does
 * not read its login, and Gitea answers an account its own permission.
 */
async function closingPullRequestsWithStanding(
  pulls: readonly GiteaPullRequest[],
  repo: QueueRepo,
  permissions: GiteaCollaboratorPermissions,
  counter?: RequestCounter,
): Promise<Map<number, ClosingPullRequest[]>> {
  const closing = pulls.filter(
    (pull) =>
      pull.state === "open" &&
      giteaClosingIssues({ body: pull.body, commitMessages: [] }, repo.repo).length > 0,
  );
  const authors = authorsToAsk(closing, { repoId: repo.repoId, botLogin: null });
  return closingPullRequestsByIssue(closing, repo, await permissions.ofLogins(repo.repo, authors, counter));
}

/** One listed Gitea issue's facts (pure). */
export function giteaFactsOf(
  issue: GiteaIssueRead,
  read: { blockers: string[]; closingPullRequests: ClosingPullRequest[] },
): CandidateFacts {
  return {
    issue: issue.number,
    title: issue.title,
    createdAt: Date.parse(issue.created_at ?? issue.updated_at),
    labels: (issue.labels ?? []).map((label) => label.name),
    assignees: (issue.assignees ?? []).map((user) => user.login),
    blockers: read.blockers,
    openSubIssues: 0,
    closingPullRequests: read.closingPullRequests,
  };
}

export interface GiteaQueueRefreshDeps {
  client: GiteaClient;
  /** Each issue's open blockers, its requests counted in `counter`. */
  source: { openBlockers(repo: QueueRepo, issue: number, counter?: RequestCounter): Promise<string[]> };
  feed: Pick<CandidateFeed, "replaceCandidates">;
  now: () => number;
  log?: Logger;
  maxPages?: number;
  /** Dependency lists read at once (default 4). */
  concurrency?: number;
  /** Closing pull request authors' permissions (cached); one of its own when not given. */
  permissions?: GiteaCollaboratorPermissions;
}

/**
 * Refreshes one Gitea repository's index: `ceil(open issues / 50)` listing pages (≤ maxPages), one
 * page of open pull requests (closing references), one (cached) permission read per author of a
 * closing pull request from the base repository, and the dependency pages of every open issue
 * (one for most; Gitea's issue carries no dependency summary, so every issue is asked), then one
 * replace. An issue whose dependencies cannot be read is left out of the index (it is offered to
 * no one until a refresh reads it; a direct claim on it reads its blockers itself), and the rest
 * of the repository is indexed.
 */
export function createGiteaQueueRefresh(deps: GiteaQueueRefreshDeps): QueueRefresh {
  const maxPages = deps.maxPages ?? defaultGiteaRefreshPages;
  const permissions = deps.permissions ?? new GiteaCollaboratorPermissions(deps.client);
  const running = new Map<number, Promise<QueueRefreshReport>>();
  const refreshOnce = async (repo: QueueRepo): Promise<QueueRefreshReport> => {
    const { owner, name } = splitRepo(repo.repo);
    const counter: RequestCounter = { requests: 0 };
    const issues: GiteaIssueRead[] = [];
    let truncated = true;
    for (let page = 1; page <= maxPages; page++) {
      const listed = await deps.client.listOpenIssues(owner, name, { page, limit: giteaPageSize }, counter);
      issues.push(...listed.filter((issue) => !issue.pull_request));
      if (listed.length < giteaPageSize) {
        truncated = false;
        break;
      }
    }
    const pulls = await deps.client.listOpenPullRequests(owner, name, 1, counter);
    const closing = await closingPullRequestsWithStanding(pulls, repo, permissions, counter);
    const unread: { issue: number; error: unknown }[] = [];
    const blockers = await mapBounded(issues, deps.concurrency ?? 4, (issue) =>
      deps.source.openBlockers(repo, issue.number, counter).catch((error: unknown) => {
        unread.push({ issue: issue.number, error });
        return null;
      }),
    );
    if (unread.length > 0) {
      deps.log?.warn(
        { repo: repo.repo, issues: unread.map((u) => u.issue), err: unread[0]?.error, forge: "gitea" },
        "issue dependencies not read: those issues are left out of the queue index until a refresh reads them",
      );
    }
    const facts = issues.flatMap((issue, i) => {
      const read = blockers[i];
      if (!read) return [];
      return [giteaFactsOf(issue, { blockers: read, closingPullRequests: closing.get(issue.number) ?? [] })];
    });
    await deps.feed.replaceCandidates(repo, facts, deps.now());
    const report: QueueRefreshReport = {
      repo: repo.repo,
      candidates: facts.length,
      githubRequests: counter.requests,
      truncated: truncated || pulls.length === giteaPageSize,
    };
    if (report.truncated) {
      deps.log?.warn(
        { ...report, maxPages, forge: "gitea" },
        "queue refresh stopped at its page cap: the index holds part of the open issues only",
      );
    }
    return report;
  };
  // Callers that miss together share one refresh per repository and process.
  return (repo) => {
    const shared = running.get(repo.repoId);
    if (shared) return shared;
    const started = refreshOnce(repo).finally(() => running.delete(repo.repoId));
    running.set(repo.repoId, started);
    return started;
  };
}
