// The fence's forge-facing parts, each call sent to the forge its installation record is served by (one forge per installation record).
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { ChecksProvider } from "../providers/checks-provider.js";
import type { RepoConfigCache } from "./repo-config-source.js";

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
