// The lease core's refusals: a machine code, a sentence and details for the caller.
import { UserError } from "./errors.js";

export type RefusalCode =
  | "not_found"
  | "closed"
  | "claim_state_unknown"
  | "held"
  | "human_held"
  | "cap_reached"
  | "github_failed"
  | "superseded"
  | "gone"
  | "unauthorized";

export interface Refusal {
  code: RefusalCode;
  message: string;
  details?: Record<string, unknown>;
}

const statusOf: Record<RefusalCode, number> = {
  not_found: 404,
  closed: 409,
  claim_state_unknown: 503,
  held: 409,
  human_held: 409,
  cap_reached: 409,
  github_failed: 502,
  superseded: 409,
  gone: 410,
  unauthorized: 401,
};

/** The error a refusal is thrown as. */
export function refused(refusal: Refusal): UserError {
  return new UserError(statusOf[refusal.code], refusal.code, refusal.message, refusal.details);
}
