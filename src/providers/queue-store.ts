// The candidate index behind `claims/next` and the queue view: what eligibility needs of each open issue.
import type { CandidateFacts, ClosingPullRequest } from "../domain/candidate-facts.js";
import type { QueueRanking } from "../domain/queue-ranking.js";

export type { CandidateFacts, ClosingPullRequest, QueueRanking };

/** A repository as the index keys it (the repository's id is stable across renames, the name is for display). */
export interface QueueRepo {
  installationId: number;
  repoId: number;
  /** `owner/name`. */
  repo: string;
}

/**
 * The write side, fed by webhooks and the bounded refresh. Each call is one atomic store operation;
 * none of them reads GitHub.
 */
export interface CandidateFeed {
  /** Adds or replaces one open issue's facts. */
  putCandidate(repo: QueueRepo, facts: CandidateFacts): Promise<void>;
  /** Changes part of an indexed issue's facts; does nothing for an issue the index does not hold (the next refresh adds it). */
  patchCandidate(
    repo: QueueRepo,
    issue: number,
    patch: Partial<Omit<CandidateFacts, "issue">>,
  ): Promise<void>;
  /** The issue left the queue for good or for now: closed, transferred, deleted. */
  dropCandidate(repo: QueueRepo, issue: number): Promise<void>;
  /** A blocker closed or was removed everywhere: no candidate of the repository lists it any more. */
  dropBlocker(repo: QueueRepo, blocker: string): Promise<void>;
  /** A complete refresh ended: the repository's index becomes exactly these issues, stamped `refreshedAt`. */
  replaceCandidates(repo: QueueRepo, facts: CandidateFacts[], refreshedAt: number): Promise<void>;
  /** When the last complete refresh of the repository ended; null: never (a miss, refresh before picking). */
  refreshedAt(repo: QueueRepo): Promise<number | null>;
}

/** A ranked page of a repository's index. */
export interface CandidatePage {
  /** In ranking order: priority label rank, then `order`, then issue number. */
  candidates: CandidateFacts[];
  /** How many candidates the repository's index holds in all. */
  total: number;
  refreshedAt: number | null;
}

/**
 * The read side `claims/next` and the queue view use. The store keeps the order itself (scored when
 * a candidate is written, rescored when the ranking changes), so a pick reads a bounded page.
 */
export interface QueueStore extends CandidateFeed {
  /**
   * Candidates `offset … offset + limit − 1` in `ranking`'s order. A ranking other than the one the
   * index was scored by rescores the repository's index first (a config change: once).
   */
  rankedCandidates(
    repo: QueueRepo,
    ranking: QueueRanking,
    page: { offset: number; limit: number },
  ): Promise<CandidatePage>;
  /**
   * Reserves, for `owner` and `ttlMs`, the first of `issues` (in that order) that nobody else holds
   * a live reservation of, atomically: concurrent callers never reserve the same issue. Answers the
   * issue, or null when every one of them is reserved by someone else. `owner`'s own reservation
   * counts as free (and is renewed).
   */
  reserve(
    repo: QueueRepo,
    issues: number[],
    owner: string,
    ttlMs: number,
    now: number,
  ): Promise<number | null>;
  /** One indexed issue's facts (a direct claim's blockers), or null when the index does not hold it. */
  candidate(repo: QueueRepo, issue: number): Promise<CandidateFacts | null>;
  /** `candidate` and `refreshedAt` in one read: a direct claim's blockers, and whether the index is fresh enough. */
  indexedCandidate(repo: QueueRepo, issue: number): Promise<IndexedCandidate>;
  /**
   * The repository of that name the index holds (names compare case-insensitively; a renamed
   * repository is known under each name it was indexed by), or null when it was never indexed.
   */
  repoOf(installationId: number, repo: string): Promise<QueueRepo | null>;
  /** Ends `owner`'s reservation of `issue` (nothing when someone else holds it). */
  unreserve(repo: QueueRepo, issue: number, owner: string): Promise<void>;
}

/** Candidates a page holds at most (`rankedCandidates`' limit is capped here). */
export const maxCandidatePage = 500;

/** What one refresh of a repository's index read and wrote. */
export interface QueueRefreshReport {
  repo: string;
  /** Open issues the index now holds. */
  candidates: number;
  /** GitHub requests the refresh made. */
  githubRequests: number;
  /**
   * The listing reached its page cap with more open issues and pull requests left: the index holds
   * the oldest ones only (newer issues still enter through `issues.opened` until the next refresh).
   */
  truncated: boolean;
}

/** One issue as the index holds it, and when the index was last refreshed (null: never). */
export interface IndexedCandidate {
  refreshedAt: number | null;
  candidate: CandidateFacts | null;
}

/**
 * Rebuilds one repository's index from GitHub with a bounded, paged read, then `replaceCandidates`:
 * on installation, every reconcile, and on a miss (`refreshedAt` null before a pick).
 */
export type QueueRefresh = (repo: QueueRepo) => Promise<QueueRefreshReport>;

/** The GitHub reads the webhook feed makes where a payload does not carry the facts (each one request). */
export interface CandidateSource {
  /** Open issues blocking `issue` (its `blocked_by` dependencies), as `owner/repo#n`. */
  openBlockers(repo: QueueRepo, issue: number): Promise<string[]>;
  /** Open issues of `repo` that `issue` blocks. */
  blockedIssues(repo: QueueRepo, issue: number): Promise<number[]>;
  /** Open pull requests that close `issue`, as GitHub links them. */
  closingPullRequests(repo: QueueRepo, issue: number): Promise<ClosingPullRequest[]>;
  /** `issue`'s open sub-issues now. */
  openSubIssues(repo: QueueRepo, issue: number): Promise<number>;
}
