// One AssignmentProvider and one IdentityProvider over every forge the App serves: each call goes to the forge of its installation record.
import { type Forge, forgeOfInstallation } from "../domain/forge.js";
import type { ServedForges } from "../http/forge-selection.js";
import type { AssignmentProvider, IdentityProvider } from "../providers/assignment-provider.js";
import type { CandidateSource, QueueRefresh } from "../providers/queue-store.js";
import type { RefreshQueue } from "../queue/pick-next.js";

export interface ForgeProviders {
  identity: IdentityProvider;
  assignments: AssignmentProvider;
}

/**
 * The lease core, the fence and the janitor are given these: every call they make names an
 * installation record, and a record id names its forge (domain/forge.ts), so they never know which
 * forge serves a subject. Who a token belongs to, and which record serves a repository, depend on
 * the forge the request names (`ServedForges`): the routed identity answers those for GitHub.
 */
export function routeByForge(providers: { github: ForgeProviders; gitea?: ForgeProviders | undefined }) {
  const { github, gitea } = providers;
  const served: ServedForges["served"] = gitea ? ["github", "gitea"] : ["github"];
  const forges: ServedForges = {
    served,
    identityOf: (forge: Forge) => (forge === "gitea" && gitea ? gitea.identity : github.identity),
  };
  // GitHub alone: its own providers, untouched.
  if (!gitea) return { assignments: github.assignments, identity: github.identity, forges };
  const of = (installationId: number): ForgeProviders => {
    const { forge } = forgeOfInstallation(installationId);
    return forge === "gitea" ? gitea : github;
  };
  const assignments: AssignmentProvider = {
    status: (ref, options) => of(ref.installationId).assignments.status(ref, options),
    listOpenIssues: (ref, options) => of(ref.installationId).assignments.listOpenIssues(ref, options),
    listRepositories: (installationId) => of(installationId).assignments.listRepositories(installationId),
    repositoryName: (installationId, repoId) =>
      of(installationId).assignments.repositoryName(installationId, repoId),
    lastEvidenceChange: (ref, evidence) =>
      of(ref.installationId).assignments.lastEvidenceChange(ref, evidence),
    apply: (ref, write) => of(ref.installationId).assignments.apply(ref, write),
    ensureLabels: (ref, labels) => of(ref.installationId).assignments.ensureLabels(ref, labels),
  };
  const identity: IdentityProvider = {
    userForToken: (token) => github.identity.userForToken(token),
    installationFor: (repo) => github.identity.installationFor(repo),
    permission: (installationId, repo, login) =>
      of(installationId).identity.permission(installationId, repo, login),
    repoConfig: (installationId, repo) => of(installationId).identity.repoConfig(installationId, repo),
  };
  return { assignments, identity, forges };
}

/**
 * The candidate index's GitHub reads, kept to GitHub installations: the queue does not serve Gitea
 * yet (docs/architecture.md#gitea-and-forgejo-in-progress). A direct claim on Gitea then refreshes
 * nothing and knows no blockers (Gitea's issue dependencies are not read yet), and `claims/next`
 * finds no Gitea repository to index, rather than asking GitHub about a Gitea record.
 */
export function githubQueueOnly(queue: {
  refresh: QueueRefresh;
  refreshByName: RefreshQueue;
  source: Pick<CandidateSource, "openBlockers">;
}) {
  const isGitea = (installationId: number) => forgeOfInstallation(installationId).forge === "gitea";
  const refresh: QueueRefresh = async (repo) =>
    isGitea(repo.installationId)
      ? { repo: repo.repo, candidates: 0, githubRequests: 0, truncated: false }
      : queue.refresh(repo);
  const refreshByName: RefreshQueue = async (repo) =>
    isGitea(repo.installationId) ? null : queue.refreshByName(repo);
  const source: Pick<CandidateSource, "openBlockers"> = {
    openBlockers: async (repo, issue) =>
      isGitea(repo.installationId) ? [] : queue.source.openBlockers(repo, issue),
  };
  return { refresh, refreshByName, source };
}
