// After a subject changed hands: the checks of its linked PRs, here and in other repositories, and of the merge groups holding them run again.
import type { SubjectKey } from "../domain/claim.js";
import type { SubjectLinks } from "../providers/fence-store.js";
import type { CrossLink, CrossLinks } from "./cross-links.js";
import type { CheckChange, MergeFenceDeps, RememberedGroup } from "./fence-types.js";
import type { MergeGroupCheck } from "./merge-group-check.js";
import type { PullRequestCheck } from "./pull-request-check.js";

export class SubjectRecheck {
  constructor(
    private readonly deps: Pick<MergeFenceDeps, "fences" | "stores" | "log">,
    private readonly pulls: PullRequestCheck,
    private readonly groups: MergeGroupCheck,
    private readonly crossLinks: CrossLinks,
  ) {}

  /**
   * Re-runs the checks of every open PR linked to the subject (`linked`, when the caller read them
   * already); it costs no GitHub request when no PR is linked.
   */
  async run(installationId: number, key: SubjectKey, linked?: SubjectLinks): Promise<CheckChange[]> {
    const subject = { ...key, installationId };
    const prs = linked?.pullRequests ?? (await this.deps.fences.pullRequestsFor(subject));
    const links = linked?.crossLinks ?? (await this.crossLinks.of(subject));
    const crossLinked = await this.#recheckCrossLinked(installationId, links);
    if (prs.length === 0) return crossLinked;
    const record = await this.deps.stores.claims.get(key);
    if (!record) {
      this.deps.log.warn(
        { installationId, repoId: key.repoId, issue: key.issue },
        "no claim record to name the repository; checks not re-run",
      );
      return [];
    }
    const changes: CheckChange[] = [...crossLinked];
    for (const pr of prs)
      changes.push(await this.pulls.evaluate(installationId, record.repo, key.repoId, pr));
    // A group already answered holds these PRs at their queued heads: it is judged again too, so a
    // holder superseded while its PR waits in the queue fails the group before it merges.
    const groups = new Map<string, RememberedGroup>();
    for (const pr of prs) {
      for (const group of await this.groups.groupsOf(installationId, key.repoId, pr.number))
        groups.set(group.headSha, group);
    }
    for (const group of groups.values()) {
      const event = { installationId, repo: record.repo, repoId: key.repoId, ...group };
      const change = await this.groups.judge(event, true);
      if (change) changes.push(change);
    }
    return changes;
  }

  /** The open PRs of other repositories that close this subject: their checks re-run too. */
  async #recheckCrossLinked(installationId: number, links: readonly CrossLink[]): Promise<CheckChange[]> {
    const changes: CheckChange[] = [];
    for (const link of links) {
      const pr = await this.deps.fences.pullRequest({ installationId, repoId: link.repoId }, link.number);
      if (pr) changes.push(await this.pulls.evaluate(installationId, link.repo, link.repoId, pr));
    }
    return changes;
  }
}
