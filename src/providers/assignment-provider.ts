// The AssignmentProvider interface: the durable, human-visible side of a claim (GitHub today).
import type { ClaimMarker } from "../domain/claim-marker.js";

/** How the lease core names a subject to a provider. */
export interface SubjectRef {
  installationId: number;
  /** `owner/name` as the caller wrote it (the snapshot gives the canonical one). */
  repo: string;
  issue: number;
  /**
   * The repository's id when the caller knows it (a claim's record): `repo` is then the name it was
   * claimed under, and a provider that addresses by name checks it is still this repository's (a
   * renamed repository's old name may be another's by now).
   */
  repoId?: number;
}

/** How the lease core names a claim's subject: by the record's name, checked against its repository id. */
export function subjectRefOf(record: {
  installationId: number;
  repoId: number;
  repo: string;
  issue: number;
}): SubjectRef {
  const { installationId, repoId, repo, issue } = record;
  return { installationId, repo, issue, repoId };
}

/** A claim comment the App itself wrote on the subject, with its parsed marker. */
export interface ClaimCommentEvidence {
  nodeId: string;
  databaseId: number;
  marker: ClaimMarker;
}

export interface SubjectSnapshot {
  repoId: number;
  /** Canonical `owner/name`. */
  repo: string;
  issue: number;
  nodeId: string;
  title: string;
  state: "open" | "closed";
  assignees: { login: string; nodeId: string }[];
  labels: string[];
  /** Claim comments written by this App, oldest first; foreign or tampered markers are left out. */
  claimComments: ClaimCommentEvidence[];
  /** Markers in the App's own comments that failed to parse or verify (reported, never trusted). */
  rejectedMarkers: number;
  /** Of those, the ones newer than the newest trusted claim comment (it may not be the latest claim). */
  rejectedAfterTrusted: number;
  /** The App's audit comments of claims (supersede, stale, reap, release notes): signs of a claim. */
  auditComments: number;
  /**
   * The bodies of the App's failure-breaker summary comments among the comments read, oldest
   * first (the janitor does not post a trip GitHub already shows). Absent: this read does not tell.
   */
  failureSummaries?: string[];
  /**
   * `complete` when the comments were read back to the latest trusted claim comment (or the
   * thread's start); `truncated` when older comments were not read (invariant 12).
   */
  markerSearch: "complete" | "truncated";
  /**
   * Open pull requests that close the issue or come from the asked-for branch and count: a bot's, or
   * a writer's from the base repository (docs/security.md#trust-model).
   */
  openPullRequests: {
    number: number;
    headRef: string;
    author: string;
    /**
     * `true` when GitHub's association (COLLABORATOR, MEMBER) says only that the author belongs,
     * not that they can write: a reader is a collaborator too. Absent: proven (an owner, a Bot).
     */
    writeUnproven?: boolean;
  }[];
  /** The others (a fork's, a reader's): listed, blocking nothing. Absent: the read did not tell them apart. */
  outsiderPullRequests?: { number: number; headRef: string; author: string }[];
  /**
   * Open sub-issues, when a read reports them; absent: unknown to this read. The claim's GraphQL
   * read does not: `subIssuesSummary` is in the schema package's IDL but not its introspection JSON
   * (test/graphql-schema.test.ts checks both), so the candidate index's count (REST) is used.
   */
  openSubIssues?: number;
  /** When the asked-for branch last received a commit (null: no such branch, or not asked). */
  branchCommittedAt: number | null;
  /** Last activity on the issue (comments, edits, labels). */
  updatedAt: number;
}

/**
 * The record a transition's write was decided for (invariant 13): the store's generation and state
 * after the transition, and the managed label names. A fenced provider serialises writes per
 * subject and corrects a write that lands after a newer transition.
 */
export interface WriteFence {
  key: { installationId: number; repoId: number; issue: number };
  generation: number;
  state: "active" | "human" | "released" | "completed" | "reaped" | "revoked";
  stale: boolean;
  /** The managed labels; `needsHuman` present: an active claim shows it exactly while its holder asks. */
  labels: { claimed: string; stale: string; needsHuman?: string };
  /**
   * The claim comment the write creates is committed on `generation` (as `ClaimStore.commitClaim`)
   * by the store call that ends the write: the provider answers `committed`.
   */
  commitClaimComment?: boolean;
  /** The subject's write lock is held already, by this owner (the claim took it with the new generation). */
  lockedBy?: string;
}

/** All GitHub writes of one transition; a provider may send them as one batched request. */
export interface TransitionWrite {
  subjectNodeId: string;
  /** Present on every write of a claim transition; plain writes (audit replies) carry none. */
  fence?: WriteFence | undefined;
  assign?: string[];
  unassign?: string[];
  addLabels?: string[];
  removeLabels?: string[];
  /** The new claim comment of a new incarnation; its ids come back in `AppliedWrite`. */
  createClaimComment?: string;
  editComments?: { nodeId: string; body: string }[];
  addComments?: string[];
}

export interface AppliedWrite {
  claimComment?: { nodeId: string; databaseId: number };
  /** The claim comment is committed already (asked with `WriteFence.commitClaimComment`). */
  committed?: boolean;
  /** Node ids of the `addComments`, in order, as far as GitHub returned them. */
  addedComments?: string[];
  requests: number;
}

export interface OpenIssuePage {
  /** The repository's numeric id (null when the repository is not visible). */
  repoId: number | null;
  issues: SubjectSnapshot[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/**
 * What the issue's events say of an account's assignment: its newest `assigned` or `unassigned`
 * event. `removed`: the newest is an unassignment, `byPerson` when a person (not a bot, not an App)
 * made it. `unknown`: no such event in the pages read.
 */
/** What shows a claim on an issue besides its comment: the App-made assignee, or the claimed label. */
export type ClaimEvidence = { assignee: string } | { label: string };

/** The newest change of a claim's evidence in the issue's events. */
export type EvidenceChange =
  | { kind: "added"; by: string; byPerson: boolean }
  | { kind: "removed"; by: string; byPerson: boolean }
  | { kind: "unknown" };

export interface AssignmentProvider {
  /**
   * One read of the subject; null when there is no such issue (or it is a pull request). With
   * `branch`, the same read also reports that branch's open PRs and last commit.
   */
  status(ref: SubjectRef, options?: { branch?: string }): Promise<SubjectSnapshot | null>;
  /**
   * One bounded read of a repository's open issues, most recently updated first (`labels`: only
   * issues carrying any of them). Branch evidence is not part of a listing.
   */
  listOpenIssues(
    ref: Omit<SubjectRef, "issue">,
    options: { first: number; after?: string | null; labels?: string[] | null },
  ): Promise<OpenIssuePage>;
  /** The repositories of an installation (`owner/name`), for the reconcile pass. */
  listRepositories(installationId: number): Promise<string[]>;
  /** `owner/name` of a repository id (restoring a lease whose store record was lost). */
  repositoryName(installationId: number, repoId: number): Promise<string | null>;
  /**
   * Who last added or removed `evidence` (a login's assignment, or a label) on the issue, from its
   * events (the newest pages, a few REST reads at most). Asked only when a claim comment in force
   * shows evidence GitHub no longer shows and the store has no record of the subject (invariant 7).
   */
  lastEvidenceChange(ref: SubjectRef, evidence: ClaimEvidence): Promise<EvidenceChange>;
  /** Applies a transition's writes; throws `GitHubWriteError` when GitHub refused any of them. */
  apply(ref: SubjectRef, write: TransitionWrite): Promise<AppliedWrite>;
  /** Creates the managed labels where missing (safe to repeat). */
  ensureLabels(
    ref: Omit<SubjectRef, "issue">,
    labels: { name: string; color: string; description: string }[],
  ): Promise<void>;
}

export interface GitHubUser {
  login: string;
  id: number;
  nodeId: string;
}

export type RepoPermission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

/** Who is calling, and what the App may do for them: GitHub's answers, cached by the implementation. */
export interface IdentityProvider {
  /** `GET /user` for the caller's token; null when GitHub does not accept the token. */
  userForToken(token: string): Promise<GitHubUser | null>;
  /** The App's installation on `owner/name`; null when it is not installed there. */
  installationFor(repo: string): Promise<number | null>;
  permission(installationId: number, repo: string, login: string): Promise<RepoPermission>;
  /** The raw `.github/claim-hold.yml` (with org defaults), or null when there is none. */
  repoConfig(installationId: number, repo: string): Promise<unknown>;
  /**
   * `repoConfig` with the path it was read from, for a forge that reads one of several paths
   * (Gitea: `.gitea/claim-hold.yml`, then `.github/claim-hold.yml`); absent: always `.github/claim-hold.yml`.
   */
  repoConfigFile?(installationId: number, repo: string): Promise<{ value: unknown; path: string } | null>;
}

/** GitHub refused (part of) a transition; the message names the resource, never a token. */
export class GitHubWriteError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "GitHubWriteError";
  }
}

/** The config file's path on GitHub (and Gitea's second choice). */
export const githubConfigPath = ".github/claim-hold.yml";

/** The config file at `path` (the one read) is not valid YAML; `line` is 1-based. */
export class ConfigFileError extends Error {
  constructor(
    readonly repo: string,
    readonly line: number | undefined,
    reason: string,
    readonly path: string = githubConfigPath,
  ) {
    super(`${repo}: ${path}${line ? ` line ${line}` : ""}: ${reason}`);
    this.name = "ConfigFileError";
  }
}
