// CLI failures and the exit code each one maps to (SPEC §8: 0 ok, 3 held, 4 superseded/gone, 2 usage, 1 other).
import { isClaimHoldError } from "../client/index.js";

export const exitCodes = { ok: 0, other: 1, usage: 2, held: 3, lost: 4 } as const;

/** The caller invoked the CLI wrongly or the environment lacks what the command needs. */
export class UsageError extends Error {
  override name = "UsageError";
}

const heldCodes = new Set(["held", "human_held", "cap_reached", "takeover_pending"]);
const lostCodes = new Set(["superseded", "gone"]);

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return exitCodes.usage;
  if (isClaimHoldError(error)) {
    if (heldCodes.has(error.code)) return exitCodes.held;
    if (lostCodes.has(error.code) || error.status === 410) return exitCodes.lost;
  }
  return exitCodes.other;
}

/** True when the lease is certainly no longer ours: superseded or gone. */
export function isLeaseLost(error: unknown): boolean {
  return isClaimHoldError(error) && (lostCodes.has(error.code) || error.status === 410);
}

/** Failures worth retrying later: no response, a 5xx, or a rate limit. */
export function isTransient(error: unknown): boolean {
  return isClaimHoldError(error) && (error.status === 0 || error.status >= 500 || error.status === 429);
}
