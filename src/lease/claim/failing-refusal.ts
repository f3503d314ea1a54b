// A direct claim on a subject whose failure breaker tripped (`409 failing`: docs/reference/http-api.md#failure-breaker), unless the claim says `override: true`.
import type { ClaimRecord } from "../../domain/claim.js";
import type { BreakerState } from "../../domain/failure-breaker.js";
import { describeActor } from "../../domain/inert-text.js";
import type { Refusal } from "../refusals.js";
import { spanOf } from "../transitions/ended-write.js";

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

/** The audit comment of a stalled generation ended by a takeover that tripped the breaker. */
export function stalledTakeoverNote(previous: ClaimRecord, now: number): string {
  return (
    `⏹️ Generation ${previous.generation} of ${describeActor(previous.actor)} stalled and a takeover ` +
    `was asked after ${spanOf(now - previous.claimedAt)}: its failed attempt trips the failure breaker, ` +
    "so the claim ends here and no agent takes it over."
  );
}
