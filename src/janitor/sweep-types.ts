// The janitor's report, options and dependencies, shared by the sweep's phases.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import type { RepoConfig } from "../config/repo-config.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { ClaimEvents } from "../lease/transitions/claim-events.js";
import type { Notifier } from "../notify/notifier.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { InstallationSource } from "../providers/installation-source.js";
import type { QueueRefresh } from "../providers/queue-store.js";
import type { Stores } from "../providers/stores.js";
import type { SweepActionKind } from "./plan-sweep.js";

export interface SweepAction {
  subject: string;
  action: SweepActionKind;
  reason: string;
}

export interface SweepReport {
  at: string;
  installations: number;
  examined: number;
  actions: SweepAction[];
  skipped: number;
  halted: boolean;
  haltedInstallations: number[];
  /** Installations an operator paused: this sweep neither planned nor wrote anything for them. */
  pausedInstallations: number[];
  reconciled: boolean;
  dryRun: boolean;
  githubRequests: number;
  durationMs: number;
}

export interface JanitorDeps {
  stores: Pick<Stores, "claims" | "index" | "installations" | "documents">;
  assignments: AssignmentProvider;
  configs: RepoConfigSource;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  log: Logger;
  /**
   * Every installation of the App, from GitHub: read on a reconcile pass, and whenever the store's
   * own installation set (what an ordinary sweep visits, no GitHub request) was lost.
   */
  installations: InstallationSource;
  /** Runs `work` and counts the GitHub requests it made. */
  measure: <T>(work: () => Promise<T>) => Promise<{ result: T; requests: number }>;
  /** Told of each transition the janitor makes (the fence re-checks, stale and reaped are notified). */
  events: ClaimEvents;
  /** Where janitor-halted is told; absent: nowhere. */
  notifier?: Notifier;
  /** Re-runs the check evaluations that could not finish (GitHub or the store was down), after each sweep. */
  retryUnfinishedChecks?: () => Promise<unknown>;
  /** Due claims read per installation and sweep. */
  maxDuePerSweep?: number;
  /** Rebuilds a repository's candidate index (`claims/next`) on every reconcile pass. */
  refreshQueue?: QueueRefresh;
  /** Whether a login that took a claim's assignment off is the fleet's (its removal counts for nothing). */
  fleet?: Pick<FleetLogins, "actorKind">;
}

export interface SweepOptions {
  dryRun?: boolean;
  installationId?: number;
  reconcile?: boolean;
}

/** One sweep in progress: what each phase reads from and reports into. */
export interface SweepRun {
  deps: JanitorDeps;
  options: SweepOptions;
  report: SweepReport;
}

/** True when this sweep (or the repository's config) only reports what it would write. */
export function writesHeld(run: SweepRun, config: RepoConfig): boolean {
  return Boolean(run.options.dryRun || config.janitor.dryRun);
}

/** How a report names a subject. */
export function subjectName(repo: string, issue: number): string {
  return `${repo}#${issue}`;
}
