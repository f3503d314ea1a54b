// What the merge fence needs and what it is told and answers: its dependencies, the PR and merge-group events, a check change.
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import type { CheckConclusion } from "../domain/check-values.js";
import type { ClaimRecord } from "../domain/claim.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import type { Notifier } from "../notify/notifier.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { ChecksProvider, ExistingCheckRun } from "../providers/checks-provider.js";
import type { ClaimNote, FenceStore } from "../providers/fence-store.js";
import type { Stores } from "../providers/stores.js";
import type { SeenPullRequest } from "./outage-evidence.js";

export interface MergeFenceDeps {
  stores: Pick<Stores, "claims" | "documents">;
  fences: FenceStore;
  checks: ChecksProvider;
  configs: RepoConfigSource & { errorFor(installationId: number, repo: string): string | undefined };
  /** The lease gate (LeaseCore.verify): throws the API's refusal for a superseded or ended lease. */
  verifyLease: (leaseId: string, token: string) => Promise<unknown>;
  /**
   * The digests a lease token may have in the store (current secret first, then the one being
   * rotated out), so an attestation names the token that made it as the record knows it.
   */
  tokenDigests: (token: string) => string[];
  now: () => number;
  log: Logger;
  /** Public base URL of this App; the check's details link points at the subject's claim route. */
  publicUrl?: string;
  /**
   * Reads a subject from GitHub (its claim comments). Used only for a linked subject the store has no
   * record of, so a store loss makes the check fail closed instead of "no agent claim involved".
   */
  assignments?: Pick<AssignmentProvider, "status" | "lastEvidenceChange">;
  /** Told when a check turns to failure because its holder was superseded (`superseded-pr`); absent: nowhere. */
  notifier?: Notifier;
  /** The installation's fleet logins (a fleet login's PR is an agent's whatever its branch); absent: bots only. */
  fleet?: FleetLogins;
}

/** One PR whose check was evaluated: what GitHub showed before and what it shows now. */
export interface CheckChange {
  repo: string;
  number: number;
  headSha: string;
  before: string | null;
  after: CheckConclusion;
  written: boolean;
}

/** The PR fields an evaluation needs, from a webhook or the index. */
export interface PullRequestEvent {
  installationId: number;
  repo: string;
  repoId: number;
  number: number;
  headSha: string;
  headRef: string;
  author: { login: string; bot: boolean };
}

/** `merge_group.checks_requested`: the group's head and base, as the webhook names them (never its PRs). */
export interface MergeGroupEvent {
  installationId: number;
  repo: string;
  repoId: number;
  headSha: string;
  /** `refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>`. */
  headRef: string;
  /** `refs/heads/<base>`. */
  baseRef: string;
}

/** A merge group a PR was judged in, as its `checks_requested` named it. */
export type RememberedGroup = Pick<MergeGroupEvent, "headSha" | "headRef" | "baseRef">;

/** What an evaluation had seen when it failed: the run GitHub shows (undefined: not read) and the PRs involved. */
export interface Seen {
  existing: ExistingCheckRun | null | undefined;
  /** `closes`: GitHub's closing references as read (absent: not read). */
  pullRequests: SeenPullRequest[];
}

export function noteOf(record: ClaimRecord): ClaimNote {
  return {
    generation: record.generation,
    actor: record.actor,
    ...(record.branch ? { branch: record.branch } : {}),
  };
}
