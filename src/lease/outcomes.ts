// What the lease core is asked and what it answers: claim and heartbeat requests, lease and resume views.
import type { Actor, ClaimRecord, ReleaseOutcome, SubjectKey, TaskClass } from "../domain/claim.js";
import { leaseIdOf, subjectName } from "../domain/claim.js";
import type { QueueFilter, SkipReason } from "../domain/eligibility.js";
import { expiresAt, livenessOf, reclaimableAt } from "../domain/liveness.js";
import type { GitHubUser } from "../providers/assignment-provider.js";
import type { CandidateFacts } from "../providers/queue-store.js";
import type { ScopeOverlap } from "./scope/scope-overlap.js";

export interface ClaimRequest {
  installationId: number;
  repo: string;
  issue: number;
  user: GitHubUser;
  actor: { runtime?: string; sessionId: string; host?: string };
  taskClass: TaskClass;
  branch?: string;
  takeover: boolean;
  scope?: string[];
  artifacts?: string;
  /** The session's secret (`actor.sessionKey`): proof for a re-claim, kept only as a digest. */
  sessionKey?: string;
  /** The lease's current token sent as `leaseToken`: the other proof for a re-claim. */
  leaseToken?: string;
  /** Claim although the candidate index lists open blockers (otherwise `409 blocked`). */
  ignoreBlockers?: boolean;
  /** Claim although an open PR from outside this subject's claims closes it (otherwise `409 pr_open`). */
  allowOpenPullRequest?: boolean;
  /** The session's declared capabilities; present: an issue needing another is refused (`409 missing_capability`). */
  capabilities?: string[];
  /** Claim although the subject's failure breaker tripped (otherwise `409 failing`). */
  override?: boolean;
}

/** What a pick re-checks on the claim's one GitHub read (the index may be stale). */
export interface PickCheck {
  facts: CandidateFacts;
  filter: QueueFilter;
  /** The pick offers a reclaimable claim to take over. */
  takeover: boolean;
}

/**
 * A picked candidate's claim: claimed as a direct claim would be, or shown ineligible by the claim's
 * read (the pick corrects its index with `observed`, null when the issue leaves it, and tries the next).
 */
export type PickOutcome =
  | { kind: "claimed"; claim: ClaimOutcome }
  | { kind: "ineligible"; reason: SkipReason; observed: CandidateFacts | null };

export interface LeaseView {
  id: string;
  subject: string;
  generation: number;
  token: string;
  taskClass: TaskClass;
  branch: string | null;
  ttlSeconds: number;
  heartbeatIntervalSeconds: number;
  expiresAt: string;
}

export interface ResumeView {
  previousActor: Actor;
  previousGeneration: number;
  branch: string | null;
  lastHeartbeatAt: string;
  linkedPullRequests: number[];
}

/**
 * A claim's answer: a new incarnation (`claimed`, with what it resumes), the holding session's
 * re-claim with a fresh token (`reclaimed`), or a takeover intent recorded beside a live incumbent.
 */
export type ClaimOutcome =
  | { kind: "claimed"; lease: LeaseView; resume: ResumeView | null; overlaps: ScopeOverlap[] }
  | { kind: "reclaimed"; lease: LeaseView; overlaps: ScopeOverlap[] }
  | { kind: "takeover_pending"; retryAfterSeconds: number; incumbent: Actor };

export interface HeartbeatAnswer {
  generation: number;
  expiresAt: string;
  state: "active" | "waiting";
  /** Present while the lease is paused by its budget (`onExhausted: pause`), until a person answers `/budget`. */
  paused?: "budget";
  /** Present while the claim is `stalled`: no progress for `stallAfter` since then (docs/reference/http-api.md#stalled). */
  stalledSince?: string;
}

export interface ReleaseAnswer {
  released: true;
  outcome: ReleaseOutcome | undefined;
  generation: number;
}

export interface VerifyAnswer {
  holder: true;
  generation: number;
  state: "active" | "stale";
  expiresAt: string;
}

export interface HeartbeatRequest {
  phase?: string;
  pullRequest?: number;
  blocker?: string;
  waitUntil?: string;
  /** Asks for a person (with `blocker`); a heartbeat without it withdraws an earlier ask. */
  needsHuman?: boolean;
  /** Cumulative for the lease. */
  usage?: { costUsd?: number; tokens?: number };
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** The holder as a refused claimant is shown it. */
export function holderBody(
  record: ClaimRecord,
  now: number,
  takeoverPendingBy?: Actor,
): Record<string, unknown> {
  return {
    holder: record.actor,
    generation: record.generation,
    state:
      livenessOf(record, now) === "live"
        ? "active"
        : livenessOf(record, now) === "stale"
          ? "stale"
          : "reclaimable",
    lastHeartbeatAt: iso(record.lastHeartbeatAt),
    reclaimableAt: iso(reclaimableAt(record)),
    ...(takeoverPendingBy ? { takeoverPendingBy } : {}),
  };
}

export function leaseView(key: SubjectKey, record: ClaimRecord, token: string): LeaseView {
  return {
    id: leaseIdOf(key, record.generation),
    subject: subjectName(record.repo, record.issue),
    generation: record.generation,
    token,
    taskClass: record.taskClass,
    branch: record.branch ?? null,
    ttlSeconds: Math.round(record.durations.ttlMs / 1000),
    heartbeatIntervalSeconds: Math.round(record.durations.heartbeatMs / 1000),
    expiresAt: iso(expiresAt(record)),
  };
}

/** The PRs the successor inherits: the one the incumbent reported and the open ones GitHub links to the subject. */
export function resumeView(previous: ClaimRecord, openPullRequests: { number: number }[]): ResumeView {
  const linked = new Set([...(previous.pullRequest ? [previous.pullRequest] : [])]);
  for (const pr of openPullRequests) linked.add(pr.number);
  return {
    previousActor: previous.actor,
    previousGeneration: previous.generation,
    branch: previous.branch ?? null,
    lastHeartbeatAt: iso(previous.lastHeartbeatAt),
    linkedPullRequests: [...linked],
  };
}
