// Routing by forge: one AssignmentProvider and one IdentityProvider over every forge (and Gitea instance) the App serves, and the fence's forge-facing parts; each call goes to the forge of its installation record.
import { type Forge, forgeOfInstallation } from "../domain/forge.js";
import type { SubjectAddress } from "../domain/subject-address.js";
import type { ServedForges } from "../http/forge-selection.js";
import type { AssignmentProvider, IdentityProvider } from "../providers/assignment-provider.js";
import type { ChecksProvider } from "../providers/checks-provider.js";
import type { CandidateSource, QueueRefresh } from "../providers/queue-store.js";
import type { RefreshQueue } from "../queue/pick-next.js";
import type { RepoConfigCache } from "./repo-config-source.js";

export interface ForgeProviders {
  identity: IdentityProvider;
  assignments: AssignmentProvider;
}

/** A Gitea (or Forgejo) instance's providers, the record it is served under and its name (`giteaInstanceName`). */
export type GiteaForgeProviders = ForgeProviders & { installationId: number; name?: string };

/** The forges an App serves: GitHub, one or more Gitea instances, or both (never neither). */
export type ServedProviders =
  | {
      github: ForgeProviders;
      gitea?: GiteaForgeProviders | readonly GiteaForgeProviders[] | undefined;
    }
  | {
      github?: undefined;
      gitea: GiteaForgeProviders | readonly [GiteaForgeProviders, ...GiteaForgeProviders[]];
    };

/** One item or a list of them, as a list. */
export function listOf<T extends object>(items: T | readonly T[] | undefined): readonly T[] {
  if (items === undefined) return [];
  return Array.isArray(items) ? (items as readonly T[]) : [items as T];
}

/**
 * The lease core, the fence and the janitor are given these: every call they make names an
 * installation record, and a record id names its forge and Gitea instance (domain/forge.ts), so
 * they never know which forge serves a subject. Who a token belongs to, and which record serves a
 * repository, depend on the forge (and Gitea instance) the request names (`ServedForges`): the routed
 * identity answers those for the first forge served (GitHub when it is served). A Gitea-only App
 * serves no GitHub installation.
 */
export function routeByForge(providers: ServedProviders) {
  const { github } = providers;
  const giteas = listOf<GiteaForgeProviders>(providers.gitea);
  // GitHub alone: its own providers, untouched.
  if (giteas.length === 0) {
    // (`ServedProviders` has GitHub whenever it has no Gitea.)
    const alone = github ?? unserved;
    const forges: ServedForges = { served: ["github"], identityOf: () => alone.identity };
    const ofAlone = (installationId: number): ForgeProviders =>
      forgeOfInstallation(installationId).forge === "github" ? alone : unserved;
    return {
      assignments: alone.assignments,
      identity: alone.identity,
      forges,
      ...subjectsByRecord(alone, ofAlone),
    };
  }
  const [firstGitea] = giteas as readonly [GiteaForgeProviders, ...GiteaForgeProviders[]];
  const first = github ?? firstGitea;
  const byRecord = new Map(giteas.map((gitea) => [gitea.installationId, gitea]));
  const byName = new Map(giteas.map((gitea) => [gitea.name?.toLowerCase(), gitea]));
  const forges: ServedForges = {
    served: github ? ["github", "gitea"] : ["gitea"],
    ...(giteas.every((gitea) => gitea.name)
      ? { giteaInstances: giteas.map((gitea) => gitea.name ?? "") }
      : {}),
    // A named instance's identity, or the only one's. Without a name among several, nobody's: a
    // token is never sent to an instance it was not named for (`forgeOfRequest` asks for the name).
    identityOf: (forge: Forge, instance?: string) => {
      if (forge !== "gitea") return first.identity;
      const named = instance !== undefined ? byName.get(instance.toLowerCase()) : undefined;
      const only = giteas.length === 1 ? firstGitea : undefined;
      return (instance !== undefined ? named : only)?.identity ?? unserved.identity;
    },
  };
  // A record in Gitea's id space that is no served instance's (a made-up lease id) is served by
  // nobody: never by an instance whose issue of the same name it would restore. So is a GitHub
  // installation's when the App serves no GitHub (a store once shared with a GitHub App).
  const of = (installationId: number): ForgeProviders => {
    const gitea = byRecord.get(installationId);
    if (gitea) return gitea;
    return forgeOfInstallation(installationId).forge === "github" ? (github ?? unserved) : unserved;
  };
  const subjects = subjectsByRecord(first, of);
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
    userForToken: (token) => first.identity.userForToken(token),
    installationFor: (repo) => first.identity.installationFor(repo),
    permission: (installationId, repo, login) =>
      of(installationId).identity.permission(installationId, repo, login),
    repoConfig: (installationId, repo) => of(installationId).identity.repoConfig(installationId, repo),
  };
  return { assignments, identity, forges, ...subjects };
}

/**
 * The dashboard's subject addresses (domain/subject-address.ts): whether a record is served, and the
 * record of an addressed subject — GitHub's found by its repository as before, another forge's record
 * only when that forge serves it and sees the repository; null otherwise (the page answers 404).
 */
function subjectsByRecord(github: ForgeProviders, of: (installationId: number) => ForgeProviders) {
  const serves = (installationId: number): boolean => of(installationId) !== unserved;
  const installationOf = async (subject: Pick<SubjectAddress, "repo" | "installationId">) => {
    const record = subject.installationId;
    if (record === undefined) return github.identity.installationFor(subject.repo);
    if (!serves(record)) return null;
    return (await of(record).identity.installationFor(subject.repo)) === record ? record : null;
  };
  return { serves, installationOf };
}

/** An installation record no forge serves: no subject, no repository, nobody's permission; writes refused. */
const unserved: ForgeProviders = (() => {
  const refuse = async (): Promise<never> => {
    throw new Error("no forge serves this installation record");
  };
  return {
    assignments: {
      status: async () => null,
      listOpenIssues: async () => ({ repoId: null, issues: [], hasNextPage: false, endCursor: null }),
      listRepositories: async () => [],
      repositoryName: async () => null,
      lastEvidenceChange: async () => ({ kind: "unknown" }),
      apply: refuse,
      ensureLabels: refuse,
    },
    identity: {
      userForToken: async () => null,
      installationFor: async () => null,
      permission: async () => "none",
      repoConfig: async () => null,
    },
  };
})();

/** One forge's candidate index feed: the refresh, the refresh on a miss, and the blockers of a direct claim. */
export interface ForgeQueue {
  refresh: QueueRefresh;
  refreshByName: RefreshQueue;
  source: Pick<CandidateSource, "openBlockers">;
}

/**
 * The candidate index's reads by installation record: a served Gitea record's refresh and blockers go
 * to its instance, a GitHub installation's to GitHub (if served), and another record in Gitea's id
 * space to nobody (no candidates, no blockers). The queue core (`src/queue`) never knows which.
 */
export function queueByForge(queues: {
  /** Absent: the App serves no GitHub, and a GitHub installation's reads go to nobody. */
  github?: ForgeQueue | undefined;
  gitea: (ForgeQueue & { installationId: number }) | readonly (ForgeQueue & { installationId: number })[];
}): ForgeQueue {
  const giteas = new Map(
    listOf<ForgeQueue & { installationId: number }>(queues.gitea).map((queue) => [
      queue.installationId,
      queue,
    ]),
  );
  const of = (installationId: number): ForgeQueue => {
    const gitea = giteas.get(installationId);
    if (gitea) return gitea;
    return forgeOfInstallation(installationId).forge === "github"
      ? (queues.github ?? unservedQueue)
      : unservedQueue;
  };
  return {
    refresh: (repo) => of(repo.installationId).refresh(repo),
    refreshByName: (repo) => of(repo.installationId).refreshByName(repo),
    source: { openBlockers: (repo, issue) => of(repo.installationId).source.openBlockers(repo, issue) },
  };
}

/** The candidate index's reads for records no forge serves: no candidates, no blockers. */
export const unservedQueue: ForgeQueue = {
  refresh: async (repo) => ({ repo: repo.repo, candidates: 0, githubRequests: 0, truncated: false }),
  refreshByName: async () => null,
  source: { openBlockers: async () => [] },
};

/**
 * The fence's checks on records no forge serves (a Gitea-only App's GitHub side): nothing to read,
 * and a write is refused, so the fence never writes a check for a forge it does not serve.
 */
export const unservedChecks: ChecksProvider = (() => {
  const refuse = async (): Promise<never> => {
    throw new Error("no forge serves this installation record");
  };
  return {
    find: async () => null,
    readPullRequestCheck: async () => ({ closes: [], closesElsewhere: [], existing: null }),
    readMergeGroupCheck: async () => ({ queue: null, existing: null }),
    create: refuse,
    start: refuse,
    update: refuse,
    pullRequest: async () => null,
  };
})();

/** What the merge fence reads and writes on one forge. */
export interface FenceForgeParts {
  checks: ChecksProvider;
  configs: RepoConfigCache;
  assignments: Pick<AssignmentProvider, "status" | "lastEvidenceChange">;
}

/** Another forge (a Gitea or Forgejo instance) and the installation record it is served under. */
export interface ServedForge extends FenceForgeParts {
  installationId: number;
}

/**
 * The fence's parts over GitHub and the other forges: a call about an installation record one of
 * `others` serves goes to it, every other call to GitHub. With no other forge, GitHub's parts as they are.
 */
export function fencePartsByInstallation(
  github: FenceForgeParts,
  others: readonly ServedForge[],
): FenceForgeParts {
  if (others.length === 0) return github;
  const served = new Map(others.map((forge) => [forge.installationId, forge]));
  const on = (installationId: number): FenceForgeParts => served.get(installationId) ?? github;
  const checks: ChecksProvider = {
    find: (ref, ...rest) => on(ref.installationId).checks.find(ref, ...rest),
    readPullRequestCheck: (ref, ...rest) => on(ref.installationId).checks.readPullRequestCheck(ref, ...rest),
    readMergeGroupCheck: (ref, ...rest) => on(ref.installationId).checks.readMergeGroupCheck(ref, ...rest),
    create: (ref, ...rest) => on(ref.installationId).checks.create(ref, ...rest),
    start: (ref, ...rest) => on(ref.installationId).checks.start(ref, ...rest),
    update: (ref, ...rest) => on(ref.installationId).checks.update(ref, ...rest),
    pullRequest: (ref, ...rest) => on(ref.installationId).checks.pullRequest(ref, ...rest),
  };
  const configs: RepoConfigCache = {
    load: (installationId, repo) => on(installationId).configs.load(installationId, repo),
    peek: (installationId, repo) => on(installationId).configs.peek(installationId, repo),
    errorFor: (installationId, repo) => on(installationId).configs.errorFor(installationId, repo),
    forget: (installationId, repo) => on(installationId).configs.forget(installationId, repo),
  };
  const assignments: FenceForgeParts["assignments"] = {
    status: (ref, ...rest) => on(ref.installationId).assignments.status(ref, ...rest),
    lastEvidenceChange: (ref, ...rest) => on(ref.installationId).assignments.lastEvidenceChange(ref, ...rest),
  };
  return { checks, configs, assignments };
}
