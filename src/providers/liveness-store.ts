// The claim store's state machine (ClaimStore): its inputs, outcomes and refusals; the App's other narrow stores are in app-stores.ts, and `Stores` bundles them.

import type { ReportedUsage } from "../budget/usage.js";
import type {
  Actor,
  ClaimRecord,
  Durations,
  ReleaseOutcome,
  SubjectKey,
  TaskClass,
  Transition,
} from "../domain/claim.js";
import type { FailedAttempt } from "../domain/failure-breaker.js";
import type { OnStall } from "../domain/stall.js";
import type {
  ClearNeedsHumanInput,
  ClearNeedsHumanOutcome,
  EndClaimInput,
  EndClaimOutcome,
  HumanClaimInput,
  MarkStaleInput,
  MarkStaleOutcome,
} from "./app-transition-types.js";
import type { SpendReport, UsageDecreased } from "./spend-store.js";

export interface ClaimInput {
  key: SubjectKey;
  repo: string;
  actor: Actor;
  taskClass: TaskClass;
  durations: Durations;
  /** `taskClasses.<c>.stallAfter`/`onStall` when on: kept on a new generation's record. */
  stall?: { afterMs: number; onStall: OnStall };
  branch?: string;
  /** The issue's title, kept for the dashboard (truncated to 256 characters). */
  title?: string;
  scope?: string[];
  artifacts?: string;
  /**
   * HMAC digest of the freshly minted token: a new claim's, or a re-claim's pending one (valid only
   * once `commitReclaim` promoted it).
   */
  tokenDigest: string;
  /**
   * Digest of the session's secret `actor.sessionKey`, when the client sent one: kept on the record
   * of a new claim and of a proven re-claim, and one of the two proofs a re-claim of a live claim
   * needs (invariant 14). A record restored from a claim comment has none, so after store loss only
   * the lease token proves the session.
   */
  sessionKeyDigest?: string;
  /** Digest of the lease token the body sent as `leaseToken`: the other proof of a re-claim. */
  leaseTokenDigest?: string;
  takeover: boolean;
  now: number;
  /** Highest generation GitHub's claim comments show; the new generation is above it and the store's. */
  minGeneration: number;
  /** True when the App makes the assignment (the claimant was not already assigned). */
  appAssigned: boolean;
  issueNodeId?: string;
  /** Node id of the account the App assigns (kept so an unassignment needs no lookup). */
  assigneeNodeId?: string;
  caps: { perSession: number; perLogin: number };
  /**
   * A new incarnation takes the subject's write lock (`SubjectWriteLocks`) for `owner` when it is
   * free, for the GitHub write that follows: `created` then answers `writeLocked`.
   */
  writeLock?: { owner: string; ttlMs: number };
  /**
   * The failure breaker: a tripped subject refuses a new generation without `override`; a stalled
   * takeover's attempt counts, and when that brings the count to
   * `maxFailures` the takeover happens only with `override` (else `failing`). Absent: never refused.
   */
  breaker?: { maxFailures: number; override: boolean };
}

/**
 * The gaps between one generation's accepted heartbeats (ms, oldest first; the claim, or a re-claim,
 * counts as a beat): the last `heartbeatGapsKept`, for the dashboard's sparkline. A new generation
 * starts afresh; the Redis store lets them lapse `heartbeatGapsTtlMs` after the last beat.
 */
export interface HeartbeatGaps {
  generation: number;
  gapsMs: number[];
}

export type ClaimOutcome =
  /** A new incarnation; `previous` is the record it replaced (for rollback and the supersede writes). */
  | {
      kind: "created";
      record: ClaimRecord;
      previous: ClaimRecord | null;
      /** Whether the subject's write lock was taken (only when `writeLock` was asked). */
      writeLocked?: boolean;
      /** The subject's failed attempts after a stalled generation taken over counted as one. */
      failures?: FailedAttempt[];
    }
  /**
   * A stalled generation taken over whose attempt tripped the failure breaker, without `override`:
   * it ended reaped (bumped), no generation began, and the subject waits for a person.
   */
  | { kind: "failing"; previous: ClaimRecord; record: ClaimRecord; failures: FailedAttempt[] }
  /**
   * The subject's breaker is tripped (`failures`, the count, at `breaker.maxFailures` or more) and the
   * claim has no `override`: no new generation, nothing changed. Decided in the claim's own step.
   */
  | { kind: "tripped"; failures: number }
  /**
   * The same session, proven by its session key or the lease token, re-claimed its live (or stale,
   * unexpired) claim: same generation; the new token is `record.pendingTokenDigest` until
   * `commitReclaim` promotes it, and the old one stays valid until then. Without proof: `held`.
   */
  | { kind: "reclaimed"; record: ClaimRecord }
  | { kind: "held"; current: ClaimRecord; takeoverPendingBy?: Actor }
  | { kind: "human_held"; current: ClaimRecord }
  | { kind: "takeover_pending"; current: ClaimRecord; retryAfterMs: number }
  | { kind: "cap_reached"; limit: "session" | "login"; max: number };

export interface CommitReclaimInput {
  key: SubjectKey;
  generation: number;
  /** The re-claim's new token digest: promoted only while it is still the record's pending one. */
  tokenDigest: string;
  now: number;
  /** The claim comment the re-claim's write created or found, if any. */
  comment?: { commentNodeId: string; commentId?: number };
}

export interface LeaseInput {
  key: SubjectKey;
  generation: number;
  tokenDigest: string;
  now: number;
}

export interface HeartbeatInput extends LeaseInput {
  phase?: string;
  blocker?: string;
  waitUntil?: number;
  pullRequest?: number;
  /** Durations of the claim's class under the current config, if known; applied from now on. */
  durations?: Durations;
  /** Minimum spacing between claim-comment edits for phase changes. */
  phaseEditEveryMs: number;
  /** The holder asks for a person; absent or false clears an earlier ask. */
  needsHuman?: boolean;
  /** Cumulative usage of the lease (micro-dollars); lower than the last report is refused. */
  usage?: ReportedUsage;
  /**
   * Answer the whole record as written (`record`), not only its liveness: the caller does not know
   * the lease's fixed facts yet (`LeaseFacts`).
   */
  wantRecord?: boolean;
}

/**
 * The facts of a lease that no transition changes within its generation (the App keeps them per
 * lease, so a heartbeat need not answer them): the claim script writes them with the generation,
 * the human claim with its own; `restore` writes a lost record anew from its claim comment, with
 * the same actor, class and issue, and `repo` as GitHub names it then (a record's `repo` is its
 * name at the time of the claim).
 */
export type LeaseFacts = Pick<
  ClaimRecord,
  "installationId" | "repoId" | "issue" | "generation" | "repo" | "actor" | "taskClass" | "issueNodeId"
>;

/**
 * The record's fields a heartbeat leaves that change within a generation and that the App reads
 * after it: the answer's expiry and state, the durations refresh, the needs-human show, the budget
 * pause. `needsHuman` is present (true) only while the holder asks for a person, `stallAsk` only
 * while the App asks on its stall's behalf, `budgetPaused`
 * only while the lease is paused by its budget.
 */
export type HeartbeatLiveness = Pick<
  ClaimRecord,
  "lastHeartbeatAt" | "waitUntil" | "durations" | "needsHuman" | "budgetPaused" | "stallAsk"
>;

/** A held lease's record as a heartbeat left it, as far as the App reads it after the heartbeat. */
export type HeartbeatRecord = LeaseFacts & HeartbeatLiveness & { state: "active" };

export type GoneReason = "released" | "reaped" | "revoked" | "completed" | "expired" | "budget_exhausted";

/** What every lease call may answer besides success. */
export type LeaseRefusal =
  /** `rotatedAt`: the token was rotated out by a re-claim of its own lease then (invariant 14). */
  | { kind: "superseded"; current: ClaimRecord; rotatedAt?: number }
  | { kind: "gone"; reason: GoneReason; current: ClaimRecord }
  | { kind: "invalid_token" }
  | { kind: "missing" };

/** A heartbeat the lease's token held: the record's liveness as written, and the record when asked or needed. */
export type HeartbeatOk = {
  kind: "ok";
  live: HeartbeatLiveness;
  /** True when the record asked for a person before this heartbeat (absent: it did not). */
  needsHumanBefore?: true;
  /** Present when the heartbeat reported usage. */
  spend?: SpendReport;
  /** When the claim became stalled (docs/reference/http-api.md#stalled); absent while it is not. */
  stalledSince?: number;
  /** True on the heartbeat that first saw this generation stalled (its notification is due); `record` comes along. */
  stalledNow?: true;
  /** The App's ask for a person on the stall's behalf was made (`asked`) or withdrawn by this heartbeat. */
  stallAskChange?: "asked" | "withdrawn";
} & (
  | {
      /** The claim comment needs an edit: the record as written comes along, since the edit renders it. */
      editComment: true;
      record: ClaimRecord;
    }
  | {
      editComment: false;
      /** The record as written, when `wantRecord` asked for it. */
      record?: ClaimRecord;
    }
);

export type HeartbeatOutcome = HeartbeatOk | UsageDecreased | LeaseRefusal;

export type VerifyOutcome = { kind: "ok"; record: ClaimRecord } | LeaseRefusal;

export interface ReleaseInput extends LeaseInput {
  outcome: ReleaseOutcome;
  /** The holder's note, kept (bounded) in the failed attempt an `outcome: failed` records. */
  note?: string;
}

export type ReleaseOutcomeResult =
  /**
   * `record` is the ended record; `repeated` when it had already been released by this lease.
   * `failures`: the subject's failed attempts after this release, when it has any (`completed` clears them).
   * `stallAsked`: the App's ask on the stall's behalf stood until this release (the ended record no
   * longer carries `stallAsk`, a field release 0.1.0 cannot read), so its label comes off.
   */
  | {
      kind: "released";
      record: ClaimRecord;
      repeated: boolean;
      failures?: FailedAttempt[];
      stallAsked?: true;
    }
  | LeaseRefusal;

/** The claim state machine: every transition is atomic; reads of one subject. */
export interface ClaimStore {
  /**
   * Claim, re-claim, takeover intent or supersede, decided atomically. Whatever the answer, the
   * installation's epoch is set (to `now`) if it has none: its data begins no later than its first claim.
   */
  claim(input: ClaimInput): Promise<ClaimOutcome>;
  /**
   * Invariant 14: after a re-claim's GitHub write landed, its pending token becomes the lease's token
   * and the previous one is rotated out (answered `superseded`, reason rotated, from then on); marks
   * the record written (and records the comment's ids). Answers the promoted record, or null when the
   * record moved on (another generation, no longer active, or a newer re-claim's pending token): then
   * nothing changes and the token of this re-claim never becomes valid.
   */
  commitReclaim(input: CommitReclaimInput): Promise<ClaimRecord | null>;
  /** Marks the GitHub side of `generation` written and records the claim comment's ids. */
  commitClaim(
    key: SubjectKey,
    generation: number,
    comment: { commentNodeId: string; commentId?: number },
  ): Promise<void>;
  /**
   * Undoes a `created` claim whose GitHub writes failed: puts `previous` back (or removes the
   * record) if the record is still that generation. The generation stays burnt (never reused).
   */
  rollbackClaim(
    key: SubjectKey,
    generation: number,
    previous: ClaimRecord | null,
    now: number,
  ): Promise<void>;
  heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome>;
  /** Read-only lease check (the verify-hold gate): same refusals as heartbeat, renews nothing. */
  verify(input: LeaseInput): Promise<VerifyOutcome>;
  release(input: ReleaseInput): Promise<ReleaseOutcomeResult>;
  /** Marks the GitHub side of an ended record written. */
  markSynced(key: SubjectKey, generation: number): Promise<void>;
  get(key: SubjectKey): Promise<ClaimRecord | null>;
  /**
   * Puts back a record rebuilt from a claim comment when the store has none (or an older one).
   * Raises the generation high-water mark to at least `record.generation`. Answers whether it wrote.
   */
  restore(record: ClaimRecord, now: number): Promise<"restored" | "exists">;
  /** The subject's transitions, newest first (bounded). */
  history(key: SubjectKey): Promise<Transition[]>;
  /** The gaps between the heartbeats of the subject's last generation to beat; null when none are kept. */
  heartbeatGaps(key: SubjectKey): Promise<HeartbeatGaps | null>;
  /** When this installation's store data began (set anew whenever the store comes up empty). */
  epoch(installationId: number, now: number): Promise<number>;

  // --- Transitions made by the App itself (webhooks, janitor, /reclaim) ---

  /**
   * Ends the active claim of `generation` without its token: a revoke (a human removed the
   * assignment or label), a reap (janitor) or a completion (issue closed). Skipped when the record
   * moved on (other generation), is not active, or — with `requireSilentMs` — the holder is not
   * silent that long any more (silence counted from max(lastHeartbeatAt, storeEpoch)), re-checked
   * atomically so a heartbeat that races the janitor always wins.
   * With `bump`, the ended record takes generation + 1 (the high-water mark too), so the old
   * holder's lease answers `gone` and its attestations no longer belong to the current generation.
   */
  endClaim(input: EndClaimInput): Promise<EndClaimOutcome>;
  /** Marks an active claim stale (janitor relabel) under the same silence re-check; moves its deadline to reclaimAfter. */
  markStale(input: MarkStaleInput): Promise<MarkStaleOutcome>;
  /**
   * `/reclaim`: a human takes the subject. Whatever the current record (agent live or not, ended,
   * none), a new generation above max(high-water, minGeneration) is minted with state `human`
   * (or `released` with outcome `abandoned` when `release` is set: nobody holds it afterwards).
   */
  humanClaim(input: HumanClaimInput): Promise<{ record: ClaimRecord; previous: ClaimRecord | null }>;
  /**
   * Records a push to the claim's branch (evidence for §2.2, and progress); no-op without an active
   * record of that generation. On a holder still heartbeating it ends a takeover intent (one only its
   * stall allowed) and the App's ask for a person on its stall's behalf: `stallAskWithdrawn` says so.
   */
  recordPush(key: SubjectKey, generation: number, at: number): Promise<{ stallAskWithdrawn: boolean }>;
  /** A person answered the App's ask for a person on a stalled claim's behalf: true when it stood (and is withdrawn now). */
  withdrawStallAsk(key: SubjectKey, generation: number): Promise<boolean>;
  /**
   * Forgets a subject (issue transferred or deleted): its record ends as `revoked` (no bump) and leaves
   * every index. Answers the record as it was before when this call revoked it, else null.
   */
  forget(key: SubjectKey, now: number): Promise<ClaimRecord | null>;

  // --- The failure breaker (src/domain/failure-breaker.ts) ---

  /** The subject's failed attempts, oldest first (the last `failuresKept`). */
  failures(key: SubjectKey): Promise<FailedAttempt[]>;
  /**
   * A person reset the breaker (`/reclaim release`, the needs-human label removed): the attempts
   * are forgotten, and with them the mark of a trip written.
   */
  clearFailures(key: SubjectKey): Promise<void>;
  /**
   * An operator's "clear needs-human" (the dashboard): withdraws the active holder's ask of
   * `generation` and forgets the subject's failed attempts, in one step fenced by that generation.
   * The holder asks again with its next `needsHuman: true` heartbeat.
   */
  clearNeedsHuman(input: ClearNeedsHumanInput): Promise<ClearNeedsHumanOutcome>;
  /**
   * Each subject's attempts and trip mark, in the order of `keys` (all of one installation), read
   * in one call: the janitor's pass over tripped subjects whose trip is not on GitHub.
   */
  breakers(keys: readonly SubjectKey[]): Promise<SubjectBreaker[]>;
  /**
   * The breaker's trip (label and summary) landed on GitHub for the attempts up to `throughGeneration`
   * (the newest it summarised): set only once the write is done (the `trip` key next to `fail`).
   */
  markTripWritten(key: SubjectKey, throughGeneration: number): Promise<void>;
}

/** A subject's failure breaker as stored: its attempts, and the trip written (see `tripUnwritten`). */
export interface SubjectBreaker {
  attempts: FailedAttempt[];
  /** The newest attempt's generation a trip written on GitHub summarised; absent: none written. */
  tripWrittenThrough?: number;
}

/** Thrown by a store whose backend cannot be reached; the API answers 503 store_unavailable. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super("the claim store is unavailable", { cause });
    this.name = "StoreUnavailableError";
  }
}
