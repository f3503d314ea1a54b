// The failures the agent side tells apart: a wrong invocation, a lease certainly lost, a failure worth retrying.
import { isClaimHoldError } from "../client/index.js";

/** The caller invoked the CLI wrongly or the environment lacks what the command needs. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const lostCodes: ReadonlySet<string> = new Set(["superseded", "gone"]);

/** True when the lease is certainly no longer ours: superseded or gone. */
export function isLeaseLost(error: unknown): boolean {
  return isClaimHoldError(error) && (lostCodes.has(error.code) || error.status === 410);
}

/** Failures worth retrying later: no response, a 5xx, or a rate limit. */
export function isTransient(error: unknown): boolean {
  return isClaimHoldError(error) && (error.status === 0 || error.status >= 500 || error.status === 429);
}
