// Which subjects a PR is linked to (its closing references and, on an agent branch, the claims that named its head), kept in the index.
import { agentBranchPatterns, branchMayLink } from "../domain/trust.js";
import type { IndexedPullRequest, RepoKey } from "../providers/fence-store.js";
import type { MergeFenceDeps } from "./fence-types.js";

/** The repository's agent branch globs and whether the PR's author is a fleet login. */
export async function trustOf(
  deps: Pick<MergeFenceDeps, "configs" | "fleet">,
  installationId: number,
  repo: string,
  author: { login: string; bot: boolean },
) {
  const config = await deps.configs.load(installationId, repo);
  const patterns = agentBranchPatterns(config.check);
  const authorFleet = deps.fleet ? await deps.fleet.isFleet(installationId, author, config) : author.bot;
  return { config, patterns, authorFleet };
}

/**
 * Links = GitHub's closing references ∪ subjects whose claims named the head branch — the latter
 * only on an agent branch or for a fleet login's PR (docs/security.md#trust-model); re-indexed
 * when that changed.
 */
export async function indexPullRequest(
  deps: Pick<MergeFenceDeps, "configs" | "fleet" | "fences">,
  repo: RepoKey,
  repoName: string,
  pr: IndexedPullRequest,
): Promise<IndexedPullRequest> {
  const { patterns, authorFleet } = await trustOf(deps, repo.installationId, repoName, pr.author);
  const byBranch = branchMayLink({ headRef: pr.headRef, patterns, authorFleet })
    ? await deps.fences.subjectsForBranch(repo, pr.headRef)
    : [];
  const linked = [...new Set([...pr.closes, ...byBranch])].slice(0, 100);
  const known = await deps.fences.pullRequest(repo, pr.number);
  const next = { ...pr, linked };
  if (!known || JSON.stringify(known) !== JSON.stringify(next)) await deps.fences.putPullRequest(repo, next);
  return next;
}
