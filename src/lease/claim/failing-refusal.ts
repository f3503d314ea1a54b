// A direct claim on a subject whose failure breaker is tripped or backing off (`409 failing`: docs/reference/http-api.md#failure-breaker), unless the claim says `override: true`.
import type { BreakerState } from "../../domain/failure-breaker.js";
import { iso } from "../outcomes.js";
import type { Refusal } from "../refusals.js";

/** The refusal of a claim on `subject` in breaker state `state`; null: claim it. */
export function failingRefusal(subject: string, state: BreakerState): Refusal | null {
  switch (state.kind) {
    case "closed":
      return null;
    case "tripped":
      return {
        code: "failing",
        message: `${subject} failed ${state.failures} times and waits for a person; send "override": true to claim it anyway.`,
        details: { failures: state.failures },
      };
    case "backoff":
      return {
        code: "failing",
        message: `${subject} failed ${state.failures === 1 ? "once" : `${state.failures} times`} and is offered again from ${iso(state.retryAt)}; send "override": true to claim it anyway.`,
        details: { failures: state.failures, retryAt: iso(state.retryAt) },
      };
  }
}
