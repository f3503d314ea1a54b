// The LivenessStore interface: every claim transition is one atomic call (one Lua script on Redis).
import type {
  Actor,
  ClaimRecord,
  Durations,
  ReleaseOutcome,
  SubjectKey,
  TaskClass,
  Transition,
} from "../domain/claim.js";

export interface ClaimInput {
  key: SubjectKey;
  repo: string;
  actor: Actor;
  taskClass: TaskClass;
  durations: Durations;
  branch?: string;
  scope?: string[];
  artifacts?: string;
  /** HMAC digest of the freshly minted token (used for a new claim or a rotation). */
  tokenDigest: string;
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
}

export type ClaimOutcome =
  /** A new incarnation; `previous` is the record it replaced (for rollback and the supersede writes). */
  | { kind: "created"; record: ClaimRecord; previous: ClaimRecord | null }
  /** The same session re-claimed its live (or stale, unexpired) claim: same generation, new token. */
  | { kind: "reclaimed"; record: ClaimRecord }
  | { kind: "held"; current: ClaimRecord; takeoverPendingBy?: Actor }
  | { kind: "human_held"; current: ClaimRecord }
  | { kind: "takeover_pending"; current: ClaimRecord; retryAfterMs: number }
  | { kind: "cap_reached"; limit: "session" | "login"; max: number };

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
}

export type GoneReason = "released" | "reaped" | "revoked" | "completed" | "expired";

/** What every lease call may answer besides success. */
export type LeaseRefusal =
  | { kind: "superseded"; current: ClaimRecord }
  | { kind: "gone"; reason: GoneReason; current: ClaimRecord }
  | { kind: "invalid_token" }
  | { kind: "missing" };

export type HeartbeatOutcome = { kind: "ok"; record: ClaimRecord; editComment: boolean } | LeaseRefusal;

export type VerifyOutcome = { kind: "ok"; record: ClaimRecord } | LeaseRefusal;

export interface ReleaseInput extends LeaseInput {
  outcome: ReleaseOutcome;
}

export type ReleaseOutcomeResult =
  /** `record` is the ended record; `repeated` when it had already been released by this lease. */
  { kind: "released"; record: ClaimRecord; repeated: boolean } | LeaseRefusal;

export interface LivenessStore {
  /** Claim, re-claim, takeover intent or supersede, decided atomically. */
  claim(input: ClaimInput): Promise<ClaimOutcome>;
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
  /** Records a phase-comment edit time (throttle). */
  get(key: SubjectKey): Promise<ClaimRecord | null>;
  /**
   * Puts back a record rebuilt from a claim comment when the store has none (or an older one).
   * Raises the generation high-water mark to at least `record.generation`. Answers whether it wrote.
   */
  restore(record: ClaimRecord, now: number): Promise<"restored" | "exists">;
  /** The subject's transitions, newest first (bounded). */
  history(key: SubjectKey): Promise<Transition[]>;
  /**
   * Subjects of the installation whose active claim is due for the janitor (deadline <= now),
   * earliest first. The deadline is lastHeartbeatAt + ttlMs, or + reclaimAfterMs once marked stale.
   */
  due(installationId: number, now: number, limit: number): Promise<SubjectKey[]>;
  /** When this installation's store data began (set anew whenever the store comes up empty). */
  epoch(installationId: number, now: number): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by a store whose backend cannot be reached; the API answers 503 store_unavailable. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super("the claim store is unavailable", { cause });
    this.name = "StoreUnavailableError";
  }
}
