// CLI failures and the exit code each one maps to (docs/reference/cli.md#exit-codes: 0 ok, 3 held or nothing free, 4 superseded/gone, 2 usage, 1 other).
import { codesExitingWith } from "../../contract/refusals.js";
import { isLeaseLost, UsageError } from "../actions/errors.js";
import { isClaimHoldError } from "../client/index.js";

export const exitCodes = { ok: 0, other: 1, usage: 2, held: 3, lost: 4 } as const;

/**
 * Exit 3: this issue (or, for `next`, every issue) is not for this session now; pick other work or wait.
 * The server's codes come from the refusal table; `takeover_pending` is the client's own, for a
 * takeover still waiting after its allowed waits.
 */
const heldCodes: ReadonlySet<string> = new Set([...codesExitingWith(exitCodes.held), "takeover_pending"]);

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return exitCodes.usage;
  if (isClaimHoldError(error) && heldCodes.has(error.code)) return exitCodes.held;
  if (isLeaseLost(error)) return exitCodes.lost;
  return exitCodes.other;
}
