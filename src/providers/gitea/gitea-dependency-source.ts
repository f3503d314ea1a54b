// Gitea's issue dependencies as the queue reads GitHub's: an issue's open blockers and the open issues it blocks, paged up to a cap.

import type { Logger } from "pino";
import { splitRepo } from "../github/split-repo.js";
import type { CandidateSource, QueueRepo } from "../queue-store.js";
import type { GiteaClient } from "./gitea-client.js";
import { giteaStatusOf, type RequestCounter } from "./gitea-routes.js";
import { type GiteaLinkedIssue, giteaPageSize } from "./gitea-schemas.js";

/** The dependency reads of `CandidateSource`, which the direct claim's blockers and the queue feed use. */
export type DependencySource = Pick<CandidateSource, "openBlockers" | "blockedIssues">;

/** Pages of 50 one issue's dependency list is read to at most (default 10: 500 linked issues). */
export const defaultDependencyPages = 10;

/**
 * The blocker an issue is given when its dependencies go past the page cap: the unread pages may
 * hold an open one, so it counts as blocked (fail closed) until a read sees the whole list.
 */
export function unreadDependenciesBlocker(repo: string, issue: number, pages: number): string {
  return `${repo}#${issue}: dependencies past the first ${pages * giteaPageSize} (unread)`;
}

/**
 * `GET …/issues/{index}/dependencies` (what blocks it) and `…/blocks` (what it blocks), page by
 * page until a short page: Gitea caps neither list and keeps closed issues in them
 * (docs/reference/gitea-surfaces.md). A repository with dependencies disabled answers 404 there:
 * nothing can block in it.
 */
export class GiteaDependencySource implements DependencySource {
  constructor(
    private readonly client: GiteaClient,
    private readonly options: { log?: Logger | undefined; maxPages?: number | undefined } = {},
  ) {}

  async openBlockers(repo: QueueRepo, issue: number, counter?: RequestCounter): Promise<string[]> {
    const read = await this.#open(repo, issue, "dependencies", counter);
    const blockers = read.open.map((b) => `${b.repository.full_name}#${b.number}`);
    return read.truncated ? [...blockers, unreadDependenciesBlocker(repo.repo, issue, read.pages)] : blockers;
  }

  async blockedIssues(repo: QueueRepo, issue: number, counter?: RequestCounter): Promise<number[]> {
    const read = await this.#open(repo, issue, "blocks", counter);
    return read.open.filter((b) => b.repository.id === repo.repoId).map((b) => b.number);
  }

  async #open(
    repo: QueueRepo,
    issue: number,
    which: "dependencies" | "blocks",
    counter?: RequestCounter,
  ): Promise<{ open: GiteaLinkedIssue[]; truncated: boolean; pages: number }> {
    const { owner, name } = splitRepo(repo.repo);
    const maxPages = this.options.maxPages ?? defaultDependencyPages;
    const open: GiteaLinkedIssue[] = [];
    for (let page = 1; page <= maxPages; page++) {
      let linked: GiteaLinkedIssue[];
      try {
        linked = await this.client.listIssueDependencies(owner, name, issue, which, page, counter);
      } catch (error) {
        // Gitea's issue_dependency.go answers 404 when the repository has dependencies disabled.
        if (giteaStatusOf(error) === 404) return { open: [], truncated: false, pages: page };
        throw error;
      }
      open.push(...linked.filter((i) => i.state === "open"));
      if (linked.length < giteaPageSize) return { open, truncated: false, pages: page };
    }
    this.options.log?.warn(
      { repo: repo.repo, issue, which, pages: maxPages, forge: "gitea" },
      which === "dependencies"
        ? "issue dependencies go past the page cap: the issue counts as blocked"
        : "issues blocked go past the page cap: the rest are not read again",
    );
    return { open, truncated: true, pages: maxPages };
  }
}
