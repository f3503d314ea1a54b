// The FenceStore interface: what the merge fence (docs/reference/github-surfaces.md#the-claim-hold-check-run) remembers, indexed so a check never scans.
import { z } from "zod";
import { Actor, type SubjectKey } from "../domain/claim.js";

/** Attestations kept per generation; the oldest SHA goes first past this. */
export const maxShasPerGeneration = 100;
/** Attestations (and the indexes) expire this long after their last write. */
export const attestationTtlMs = 90 * 24 * 60 * 60_000;
/** Claim incarnations remembered per subject (their actors and branches). */
export const maxClaimNotes = 50;
/** Subjects remembered per branch name. */
export const maxSubjectsPerBranch = 20;

/** Pull requests of other repositories remembered per subject as closing it; the oldest go first. */
export const maxCrossLinks = 20;
/** A subject's cross links expire this long after their last write. */
export const crossLinkTtlMs = 30 * 24 * 60 * 60_000;

/** A pull request of another repository of the installation that closes a subject. */
export const CrossLink = z.strictObject({
  repo: z.string().min(3).max(200),
  repoId: z.number().int().positive(),
  number: z.number().int().positive(),
});
export type CrossLink = z.infer<typeof CrossLink>;

/** One claim incarnation as the fence needs it: who held it and which branch it named. */
export const ClaimNote = z.strictObject({
  generation: z.number().int().positive(),
  actor: Actor,
  branch: z.string().min(1).max(255).optional(),
});
export type ClaimNote = z.infer<typeof ClaimNote>;

/** An open pull request as the index keeps it (from `pull_request` webhooks). */
export const IndexedPullRequest = z.strictObject({
  number: z.number().int().positive(),
  headSha: z.string().regex(/^[0-9a-f]{40}$/),
  headRef: z.string().min(1).max(255),
  author: z.strictObject({ login: z.string().min(1).max(100), bot: z.boolean() }),
  /**
   * Issue numbers (same repository) GitHub links to the PR as closing references
   * (`closingIssuesReferences`: keywords, URLs, manual links), as the last evaluation read them.
   */
  closes: z.array(z.number().int().positive()).max(50),
  /** Issue numbers the PR was linked to when indexed (closing references ∪ claims naming its branch). */
  linked: z.array(z.number().int().positive()).max(100),
  /** Closing references to issues of other repositories of the installation, as the last evaluation read them. */
  elsewhere: z
    .array(
      z.strictObject({
        repoId: z.number().int().positive(),
        repo: z.string().min(3).max(200),
        issue: z.number().int().positive(),
      }),
    )
    .max(20)
    .optional(),
});
export type IndexedPullRequest = z.infer<typeof IndexedPullRequest>;

export interface FenceEvidence {
  /** The remembered incarnations of the subject, oldest generation first. */
  claims: ClaimNote[];
  /** Generations whose holders attested the SHA (within the expiry), ascending. */
  attestedGenerations: number[];
}

/** The generation of a subject's record and the digest of its valid lease token. */
export interface CurrentToken {
  generation: number;
  tokenDigest: string;
}

export interface RepoKey {
  installationId: number;
  repoId: number;
}

/** What a subject's checks depend on: its linked open PRs here, and the PRs elsewhere that close it. */
export interface SubjectLinks {
  pullRequests: IndexedPullRequest[];
  crossLinks: CrossLink[];
}

export interface FenceStore {
  /**
   * Remembers a claim incarnation and indexes its branch → subject (safe to repeat); answers the
   * subject's linked open PRs (as `pullRequestsFor`) and its cross links (as `crossLinksOf`), whose
   * checks a changed claim re-runs.
   */
  recordClaim(key: SubjectKey, note: ClaimNote): Promise<SubjectLinks>;
  /** Pull requests of other repositories remembered as closing the subject, oldest first. */
  crossLinksOf(key: SubjectKey): Promise<CrossLink[]>;
  /** Remembers that `link` closes the subject (safe to repeat; bounded, expiring). */
  rememberCrossLink(key: SubjectKey, link: CrossLink): Promise<void>;
  /**
   * Records that `generation` vouches for `sha`, with the lease token whose digest is `tokenDigest`;
   * repeating refreshes it (and names the token that repeated it). Bounded and expiring.
   */
  attest(key: SubjectKey, generation: number, sha: string, now: number, tokenDigest?: string): Promise<void>;
  /**
   * The subject's remembered claims and the generations that attested `sha`. With `current` (the
   * subject's generation and its lease token now), an attestation of that generation counts only
   * when that token made it: a token a re-claim rotated out vouches for nothing any more (invariant
   * 14). An attestation recorded without a token digest (before they named one) still counts.
   */
  evidence(key: SubjectKey, sha: string, now: number, current?: CurrentToken): Promise<FenceEvidence>;
  /** Issue numbers of the repository whose claims (current or past) named `branch`. */
  subjectsForBranch(repo: RepoKey, branch: string): Promise<number[]>;
  /** Indexes (or re-indexes) an open PR under each of its `linked` subjects; drops links it lost. */
  putPullRequest(repo: RepoKey, pr: IndexedPullRequest): Promise<void>;
  /** Removes a PR (closed) from the index. */
  removePullRequest(repo: RepoKey, number: number): Promise<void>;
  pullRequest(repo: RepoKey, number: number): Promise<IndexedPullRequest | null>;
  /** Open PRs linked to the subject. */
  pullRequestsFor(key: SubjectKey): Promise<IndexedPullRequest[]>;
  /** True the first time a comment id is marked within `ttlMs` (`/reclaim` idempotency by comment). */
  markCommentHandled(installationId: number, commentId: number, ttlMs: number): Promise<boolean>;
  /** Forgets a mark, so a redelivery may retry a command whose handling failed. */
  unmarkComment(installationId: number, commentId: number): Promise<void>;
}
