// A direct claim on a subject whose failure breaker tripped (`409 failing`: docs/reference/http-api.md#failure-breaker), unless the claim says `override: true`.
import type { BreakerState } from "../../domain/failure-breaker.js";
import type { Refusal } from "../refusals.js";

/**
 * The refusal of a claim on `subject` in breaker state `state`; null: claim it. Only a tripped
 * breaker refuses: the backoff after a failure holds the issue back from `claims/next`, while a
 * direct claim is a deliberate choice.
 */
export function failingRefusal(subject: string, state: BreakerState): Refusal | null {
  if (state.kind !== "tripped") return null;
  return {
    code: "failing",
    message: `${subject} failed ${state.failures} times and waits for a person; send "override": true to claim it anyway.`,
    details: { failures: state.failures },
  };
}
