// The ChecksProvider interface: the one `claim-hold` check per PR head (a check run on GitHub, a commit status on Gitea), read before it is written.

import type { CheckConclusion, QueueEntry } from "../domain/check-values.js";
import type { ForeignIssue } from "../domain/claim.js";

export const checkRunName = "claim-hold";

export interface CheckRepoRef {
  installationId: number;
  /** `owner/name`. */
  repo: string;
}

/** What the App last wrote on a head, as far as a skip decision needs it. */
export interface ExistingCheckRun {
  /**
   * `commit-status`: a commit status (Gitea, Forgejo), which shows only a state (in `conclusion`)
   * and a one-line description (in `title`); absent: a check run.
   */
  kind?: "commit-status";
  id: number;
  conclusion: string | null;
  title: string | null;
  summary: string | null;
  text: string | null;
}

export interface CheckAnnotation {
  path: string;
  line: number;
  level: "notice" | "warning" | "failure";
  message: string;
}

/** A completed `claim-hold` check run as the App wants it to read. */
export interface DesiredCheckRun {
  conclusion: CheckConclusion;
  title: string;
  summary: string;
  text: string;
  detailsUrl?: string;
  annotations: CheckAnnotation[];
  /** What a commit status, which has no annotations, adds to its description (`config invalid (…)`). */
  statusNote?: string;
}

/** A PR head, read from GitHub when the index does not know the PR (e.g. opened before install). */
export interface PullRequestHead {
  number: number;
  state: "open" | "closed";
  headSha: string;
  headRef: string;
  body: string;
  author: { login: string; bot: boolean };
}

/** What one evaluation of a PR's check reads from GitHub. */
export interface PullRequestCheckState {
  /**
   * Issue numbers of the PR's own repository that GitHub links to it as closing references
   * (keywords with `#n`, `owner/repo#n` or an issue URL, and manual links), in GitHub's order.
   */
  closes: number[];
  /** Closing references to issues of other repositories (GitHub links them as it does its own). */
  closesElsewhere: ForeignIssue[];
  /** The App's `claim-hold` check run on the head (the latest one), or null. */
  existing: ExistingCheckRun | null;
}

/** Other repositories' issues kept per PR (a PR closing more is rare; the rest are not fenced). */
export const maxForeignIssues = 20;

/** What one evaluation of a merge group's check reads from GitHub. */
export interface MergeGroupCheckState {
  /** The entries of the base branch's merge queue, or null when the branch has no queue. */
  queue: QueueEntry[] | null;
  /** The App's `claim-hold` check run on the group's head (the latest one), or null. */
  existing: ExistingCheckRun | null;
}

export interface ChecksProvider {
  /** The App's `claim-hold` check run on `headSha` (the latest one), or null. One request. */
  find(ref: CheckRepoRef, headSha: string): Promise<ExistingCheckRun | null>;
  /**
   * A PR's closing issue references and the App's check run on `headSha`, together: the one read
   * of an evaluation. One request.
   */
  readPullRequestCheck(
    ref: CheckRepoRef & { repoId: number },
    pr: { number: number; headSha: string },
  ): Promise<PullRequestCheckState>;
  /**
   * The base branch's merge queue (each entry's PR with its head, author and closing references) and
   * the App's check run on the group's head, together: the one read of a merge-group evaluation. One request.
   */
  readMergeGroupCheck(
    ref: CheckRepoRef & { repoId: number },
    group: { baseBranch: string; headSha: string },
  ): Promise<MergeGroupCheckState>;
  create(ref: CheckRepoRef, headSha: string, run: DesiredCheckRun): Promise<void>;
  /** Creates the run `in_progress` (an evaluation that needs more than its one read); answers its id. */
  start(ref: CheckRepoRef, headSha: string, output: { title: string; summary: string }): Promise<number>;
  /** Replaces the App's check on a head (a commit status is replaced by a newer one on the same head). */
  update(ref: CheckRepoRef, existing: { id: number; headSha: string }, run: DesiredCheckRun): Promise<void>;
  pullRequest(ref: CheckRepoRef, number: number): Promise<PullRequestHead | null>;
}

export type { ForeignIssue };
