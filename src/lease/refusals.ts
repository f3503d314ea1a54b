// The lease core's refusals: a machine code, a sentence and details for the caller; no transport status.
export type RefusalCode =
  | "not_found"
  | "closed"
  | "claim_state_unknown"
  | "held"
  | "human_held"
  | "cap_reached"
  | "blocked"
  | "pr_open"
  /** A direct claim whose declared capabilities miss one the issue needs. */
  | "missing_capability"
  /** The claim's branch is outside `check.agentBranches` (docs/security.md#trust-model). */
  | "branch_not_allowed"
  /** The claim's branch is the head of another login's open PR. */
  | "branch_taken"
  /** The subject's failure breaker tripped (a claim with `override` goes ahead). */
  | "failing"
  | "queue_empty"
  | "github_failed"
  | "superseded"
  | "gone"
  | "unauthorized"
  /** A well-formed request the core cannot accept (a heartbeat's usage lower than its last). */
  | "invalid_request";

export interface Refusal {
  code: RefusalCode;
  message: string;
  details?: Record<string, unknown>;
}

/** A call the lease core refused; the API answers it with the code's status, the sentence and the details. */
export class LeaseRefused extends Error {
  readonly code: RefusalCode;
  readonly details: Record<string, unknown>;

  constructor(refusal: Refusal) {
    super(refusal.message);
    this.name = "LeaseRefused";
    this.code = refusal.code;
    this.details = refusal.details ?? {};
  }
}

/** The error a refusal is thrown as. */
export function refused(refusal: Refusal): LeaseRefused {
  return new LeaseRefused(refusal);
}
