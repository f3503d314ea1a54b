// The claim store's transitions the App makes on its own (end, mark stale, a person's claim, clearing an ask): their inputs and outcomes.
import type { Actor, ClaimRecord, SubjectKey } from "../domain/claim.js";
import type { FailedAttempt, FailureReason } from "../domain/failure-breaker.js";

export interface EndClaimInput {
  key: SubjectKey;
  generation: number;
  now: number;
  to: "revoked" | "reaped" | "completed";
  bump: boolean;
  by?: Actor;
  requireSilentMs?: number;
  storeEpoch?: number;
  /**
   * The ended generation counts toward the subject's failure breaker, for this reason (reaped,
   * revoked for lost permission, `stalled` for a stalled claim taken over). A person's revoke, a
   * phantom repair or a completion leave it unset.
   */
  failure?: Exclude<FailureReason, "failed">;
}

export type EndClaimOutcome =
  /**
   * `previous` is the active record before; `record` the ended one now stored; `failures` the
   * subject's failed attempts after this end, when it has any (this end's last when `failure` is set).
   */
  | { kind: "ended"; previous: ClaimRecord; record: ClaimRecord; failures?: FailedAttempt[] }
  | { kind: "skipped"; reason: "missing" | "moved-on" | "not-active" | "live"; current: ClaimRecord | null };

export interface MarkStaleInput {
  key: SubjectKey;
  generation: number;
  now: number;
  requireSilentMs: number;
  storeEpoch: number;
}

export type MarkStaleOutcome =
  | { kind: "marked"; record: ClaimRecord }
  | {
      kind: "skipped";
      reason: "missing" | "moved-on" | "not-active" | "live" | "already-marked";
      current: ClaimRecord | null;
    };

export interface HumanClaimInput {
  key: SubjectKey;
  repo: string;
  actor: Actor;
  now: number;
  minGeneration: number;
  release: boolean;
  /** True when the App assigns the human (it may then remove that assignment later). */
  appAssigned: boolean;
  issueNodeId?: string;
  assigneeNodeId?: string;
  /** `/reclaim release`: the assignees (node ids) the release removes, recorded so a retry removes only them. */
  releasedAssigneeNodeIds?: string[];
  /** The issue's title now (the dashboard shows it; the store makes no GitHub request). */
  title?: string;
}

export interface ClearNeedsHumanInput {
  key: SubjectKey;
  /** The generation the operator saw: a record at another one is left alone. */
  generation: number;
  /** The clock: a withdrawn ask is progress (`progressAt`), so the clear never leaves the holder stalled at once. */
  now: number;
}

export type ClearNeedsHumanOutcome =
  /**
   * `record` as written; `withdrewAsk` when the active holder's ask was withdrawn; `failuresCleared`
   * how many failed attempts the breaker forgot.
   */
  | { kind: "cleared"; record: ClaimRecord; withdrewAsk: boolean; failuresCleared: number }
  /** `nothing`: that generation does not ask and the breaker counts no failure. */
  | { kind: "skipped"; reason: "missing" | "moved-on" | "nothing"; current: ClaimRecord | null };
