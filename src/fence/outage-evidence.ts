// What GitHub alone shows of a PR whose evaluation failed, so the fence fails closed on evidence (docs/security.md#trust-model).
import { defaultRepoConfig, type RepoConfig } from "../config/repo-config.js";
import type { ForeignIssue } from "../domain/claim.js";
import { agentMayBeInvolved, type LinkedIssueEvidence, type OutagePullEvidence } from "../domain/trust.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { ChecksProvider } from "../providers/checks-provider.js";

/** Linked issues read from GitHub, per PR, when an outage hides the store's evidence (bounded). */
export const maxOutageReads = 10;

/** A PR as the failed evaluation had seen it; `closes` absent: GitHub's references were not read. */
export interface SeenPullRequest {
  number: number;
  headSha: string;
  author: { login: string; bot: boolean };
  headRef: string;
  closes?: number[];
  closesElsewhere?: ForeignIssue[];
}

export interface OutageEvidenceDeps {
  checks: Pick<ChecksProvider, "readPullRequestCheck">;
  assignments?: Pick<AssignmentProvider, "status">;
  fleet?: FleetLogins;
  log: { warn(fields: object, message: string): void };
}

/**
 * Its author and branch, and its closing issues' managed labels and App claim comments (reads made
 * only in this failure path; a read that fails leaves the evidence unknown, which fails closed).
 */
export async function outageEvidenceOf(
  deps: OutageEvidenceDeps,
  ref: { installationId: number; repo: string; repoId: number },
  pr: SeenPullRequest,
  config: RepoConfig,
  patterns: readonly string[],
): Promise<OutagePullEvidence> {
  const authorFleet = deps.fleet?.knownNow(ref.installationId, pr.author, config) ?? pr.author.bot;
  const shown = { author: pr.author, authorFleet, headRef: pr.headRef };
  if (agentMayBeInvolved([{ ...shown, linked: [] }], patterns)) return { ...shown, linked: [] };
  const { assignments, checks } = deps;
  if (!assignments) return { ...shown, linked: null };
  const subjectRef = { installationId: ref.installationId, repo: ref.repo };
  try {
    const read = pr.closes ? null : await checks.readPullRequestCheck(ref, pr);
    const closes = pr.closes ?? read?.closes ?? [];
    const elsewhere = pr.closesElsewhere ?? read?.closesElsewhere ?? [];
    const issues = [
      ...closes.map((issue) => ({ ...subjectRef, issue })),
      ...elsewhere.map((other) => ({
        installationId: ref.installationId,
        repo: other.repo,
        issue: other.issue,
      })),
    ];
    if (issues.length > maxOutageReads) return { ...shown, linked: null };
    // Another repository's labels may carry other names: the defaults and this repository's are asked for.
    const managed = new Set([...managedLabelsOf(config), ...managedLabelsOf(defaultRepoConfig)]);
    const linked: LinkedIssueEvidence[] = [];
    for (const issue of issues) {
      const snapshot = await assignments.status(issue);
      if (!snapshot) continue;
      linked.push({
        managedLabel: snapshot.labels.some((label) => managed.has(label.toLowerCase())),
        appClaimComment:
          snapshot.claimComments.length > 0 || snapshot.rejectedMarkers > 0 || snapshot.auditComments > 0,
      });
    }
    return { ...shown, linked };
  } catch (error) {
    deps.log.warn(
      { repo: ref.repo, pullRequest: pr.number, err: error },
      "the linked issues of a PR could not be read while its check failed; failing closed",
    );
    return { ...shown, linked: null };
  }
}

/** The App's managed labels, lower-cased. */
function managedLabelsOf(config: RepoConfig): Set<string> {
  const { claimed, stale, needsHuman, overBudget } = config.labels;
  return new Set([claimed, stale, needsHuman, overBudget].map((label) => label.toLowerCase()));
}
