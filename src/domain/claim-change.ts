// What happened to a claim: the record before and after one transition, and why (docs/architecture.md#claim-events).
import type { ClaimRecord } from "./claim.js";

/**
 * Why a subject's record changed. `claimed` is a new incarnation (a takeover when `previous` is an
 * agent's active claim), `token-rotated` a re-claim by the same holder, `stale` the janitor's mark;
 * the rest end the claim.
 */
export type ChangeCause =
  | "claimed"
  | "token-rotated"
  | "released"
  | "completed"
  | "revoked"
  | "reaped"
  | "stale"
  | "budget-exhausted";

export interface ClaimChange {
  cause: ChangeCause;
  /** When the store made the change (ms). */
  at: number;
  /** The record as the store holds it now. */
  record: ClaimRecord;
  /** The record the transition replaced (as it was while held), when there was one. */
  previous: ClaimRecord | null;
  /**
   * The open PRs GitHub showed closing the subject, when the change was rebuilt from GitHub's
   * evidence after a store loss: the fence's own index of them may have gone with the store.
   */
  shownPullRequests?: number[];
  /** For `budget-exhausted`: what the subject spent and the limit it reached, in dollars. */
  spend?: { spentUsd: number; limitUsd: number };
}

/** Whether a change can move which generation a linked pull request must belong to. */
export function changesHolder(change: ClaimChange): boolean {
  return change.cause !== "stale";
}
