// Gitea's issue dependencies as the queue reads GitHub's: an issue's open blockers and the open issues it blocks, one request each.

import { splitRepo } from "../github/split-repo.js";
import type { CandidateSource, QueueRepo } from "../queue-store.js";
import type { GiteaClient } from "./gitea-client.js";
import type { GiteaLinkedIssue } from "./gitea-schemas.js";

/** The dependency reads of `CandidateSource`, which the direct claim's blockers and the queue feed use. */
export type DependencySource = Pick<CandidateSource, "openBlockers" | "blockedIssues">;

/**
 * `GET …/issues/{index}/dependencies` (what blocks it) and `…/blocks` (what it blocks): one page of
 * 50, Gitea's ceiling, as GitHub's reader takes one page of its `blocked_by` and `blocking`.
 */
export class GiteaDependencySource implements DependencySource {
  constructor(private readonly client: GiteaClient) {}

  async openBlockers(repo: QueueRepo, issue: number): Promise<string[]> {
    const blockers = await this.#open(repo, issue, "dependencies");
    return blockers.map((b) => `${b.repository.full_name}#${b.number}`);
  }

  async blockedIssues(repo: QueueRepo, issue: number): Promise<number[]> {
    const blocked = await this.#open(repo, issue, "blocks");
    return blocked.filter((b) => b.repository.id === repo.repoId).map((b) => b.number);
  }

  async #open(repo: QueueRepo, issue: number, which: "dependencies" | "blocks"): Promise<GiteaLinkedIssue[]> {
    const { owner, name } = splitRepo(repo.repo);
    const linked = await this.client.listIssueDependencies(owner, name, issue, which, 1);
    return linked.filter((i) => i.state === "open");
  }
}
