// Reads the fleet (every claim of every installation) from the store alone: no GitHub request per page view or scrape.
import { defaultRepoConfig, type RepoConfig } from "../config/repo-config.js";
import type { CheckConclusion } from "../domain/check-values.js";
import type { Actor, ClaimRecord, SubjectKey, TaskClass } from "../domain/claim.js";
import type { SweepReport } from "../janitor/janitor.js";
import { type DerivedState, deriveState } from "../lease/reads/derive-state.js";
import { subjectEvidence } from "../lease/reads/subject-state.js";
import type { FenceStore, IndexedPullRequest } from "../providers/fence-store.js";
import type { Stores } from "../providers/stores.js";
import type { FleetRepository } from "./read-queues.js";

export interface FleetDeps {
  stores: Pick<Stores, "installations" | "index" | "claims">;
  fences: FenceStore;
  /** The cached repository config (never loaded from GitHub here); defaults when not cached. */
  peekConfig: (installationId: number, repo: string) => RepoConfig | undefined;
  /** The claim-hold verdict the store's evidence gives a PR head (MergeFence.verdictOf). */
  verdictOf?: (
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
    config: RepoConfig,
  ) => Promise<{ conclusion: CheckConclusion }>;
  lastReport?: () => Promise<SweepReport | null>;
  now: () => number;
}

export interface FleetPullRequest {
  number: number;
  /** The claim-hold verdict of its head, when the fence's index knows the PR; null otherwise. */
  verdict: CheckConclusion | null;
}

export interface FleetClaim {
  installationId: number;
  repo: string;
  issue: number;
  subject: string;
  title: string | null;
  state: DerivedState;
  reasons: string[];
  holder: Actor;
  taskClass: TaskClass;
  generation: number;
  branch: string | null;
  claimedAt: string;
  claimAgeSeconds: number;
  lastHeartbeatAt: string;
  lastHeartbeatAgoSeconds: number;
  phase: string | null;
  blocker: string | null;
  pullRequests: FleetPullRequest[];
}

/** A subject whose last incarnation ended at its budget: nobody may work on it until a person decides. */
export interface OverBudgetSubject {
  installationId: number;
  repo: string;
  issue: number;
  subject: string;
  title: string | null;
  endedAt: string | null;
}

export interface FleetView {
  generatedAt: string;
  claims: FleetClaim[];
  /** Every repository with records (`owner/name`), sorted, for the filter. */
  repos: string[];
  /** Every repository with records, with its installation (what the queue panels read). */
  repositories: FleetRepository[];
  /** Claims per derived state. */
  counts: Partial<Record<DerivedState, number>>;
  janitor: SweepReport | null;
  /** Subjects whose last lease ended at its budget (`410 budget_exhausted`). */
  overBudget: OverBudgetSubject[];
  /** True when a repository held more records than one page read lists. */
  truncated: boolean;
}

/** Records listed per repository (most recent activity first); the rest is counted as truncated. */
export const recordsPerRepository = 500;

/** Ended incarnations (released, completed, reaped, revoked) are history, not the fleet. */
function isHeld(record: ClaimRecord): boolean {
  return record.state === "active" || record.state === "human";
}

/** The derived state of a stored claim, with the fence's PR index standing in for GitHub's PR list. */
function deriveFleetState(
  record: ClaimRecord,
  prs: IndexedPullRequest[],
  epoch: number,
  now: number,
  config: RepoConfig,
) {
  return deriveState({
    ...subjectEvidence(null, record, epoch, now, config),
    openPullRequests: prs.map((pr) => ({ number: pr.number, headRef: pr.headRef, author: pr.author.login })),
  });
}

/**
 * Every held claim, per installation and repository, with its derived state. Costs one read per
 * installation and repository plus one per claim's PR links; `withPullRequests: false` (metrics)
 * skips the verdicts.
 */
export async function readFleet(
  deps: FleetDeps,
  options: { withPullRequests?: boolean; recordsPerRepository?: number } = {},
): Promise<FleetView> {
  const { stores, fences } = deps;
  const now = deps.now();
  const claims: FleetClaim[] = [];
  const repos = new Set<string>();
  const repositories: FleetRepository[] = [];
  const overBudget: OverBudgetSubject[] = [];
  let truncated = false;
  for (const installationId of await stores.installations.installations()) {
    const [repoIds, epoch] = await Promise.all([
      stores.index.repositories(installationId),
      stores.claims.epoch(installationId, now),
    ]);
    for (const repoId of repoIds) {
      const limit = options.recordsPerRepository ?? recordsPerRepository;
      const records = await stores.index.listRepository(installationId, repoId, limit + 1);
      if (records.length > limit) truncated = true;
      if (records[0]) repositories.push({ installationId, repo: records[0].repo });
      for (const record of records.slice(0, limit)) {
        repos.add(record.repo);
        if (record.budgetExhausted && !isHeld(record))
          overBudget.push({
            installationId,
            repo: record.repo,
            issue: record.issue,
            subject: `${record.repo}#${record.issue}`,
            title: record.title ?? null,
            endedAt: record.endedAt !== undefined ? new Date(record.endedAt).toISOString() : null,
          });
        if (!isHeld(record)) continue;
        const config = deps.peekConfig(installationId, record.repo) ?? defaultRepoConfig;
        const key: SubjectKey = { installationId, repoId, issue: record.issue };
        const prs = await fences.pullRequestsFor(key);
        const { state, reasons } = deriveFleetState(record, prs, epoch, now, config);
        const pullRequests: FleetPullRequest[] = [];
        for (const pr of prs) {
          const verdict =
            options.withPullRequests !== false && deps.verdictOf
              ? (await deps.verdictOf(installationId, record.repo, repoId, pr, config)).conclusion
              : null;
          pullRequests.push({ number: pr.number, verdict });
        }
        claims.push({
          installationId,
          repo: record.repo,
          issue: record.issue,
          subject: `${record.repo}#${record.issue}`,
          title: record.title ?? null,
          state,
          reasons,
          holder: record.actor,
          taskClass: record.taskClass,
          generation: record.generation,
          branch: record.branch ?? null,
          claimedAt: new Date(record.claimedAt).toISOString(),
          claimAgeSeconds: Math.max(0, Math.round((now - record.claimedAt) / 1000)),
          lastHeartbeatAt: new Date(record.lastHeartbeatAt).toISOString(),
          lastHeartbeatAgoSeconds: Math.max(0, Math.round((now - record.lastHeartbeatAt) / 1000)),
          phase: record.phase ?? null,
          blocker: record.blocker ?? null,
          pullRequests,
        });
      }
    }
  }
  claims.sort(
    (a, b) => a.installationId - b.installationId || a.repo.localeCompare(b.repo) || a.issue - b.issue,
  );
  const counts: Partial<Record<DerivedState, number>> = {};
  for (const claim of claims) counts[claim.state] = (counts[claim.state] ?? 0) + 1;
  return {
    generatedAt: new Date(now).toISOString(),
    claims,
    repos: [...repos].sort(),
    repositories: repositories.sort(
      (a, b) => a.installationId - b.installationId || a.repo.localeCompare(b.repo),
    ),
    counts,
    janitor: deps.lastReport ? await deps.lastReport() : null,
    overBudget: overBudget.sort(
      (a, b) => a.installationId - b.installationId || a.repo.localeCompare(b.repo) || a.issue - b.issue,
    ),
    truncated,
  };
}
