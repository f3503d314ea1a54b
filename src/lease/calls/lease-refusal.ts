// The store's refusal of a holder's lease call, as the API answers it (docs/reference/http-api.md#lease-calls).
import type { LeaseRefusal } from "../../providers/liveness-store.js";
import { iso } from "../outcomes.js";
import type { Refusal } from "../refusals.js";

/** The store's answer to a lease call, as the caller's refusal. */
export function leaseRefusal(refusal: LeaseRefusal): Refusal {
  switch (refusal.kind) {
    case "superseded":
      if (refusal.rotatedAt !== undefined) {
        return {
          code: "superseded",
          message:
            "This lease token was replaced by a re-claim; only the newest token of the lease is valid.",
          details: {
            by: refusal.current.actor,
            generation: refusal.current.generation,
            at: iso(refusal.rotatedAt),
            reason: "rotated",
          },
        };
      }
      return {
        code: "superseded",
        message: "This lease was superseded; stop working on the subject.",
        details: {
          by: refusal.current.actor,
          generation: refusal.current.generation,
          at: iso(refusal.current.claimedAt),
        },
      };
    case "gone": {
      // A release made because the subject's budget ran out says so for as long as it stands.
      const reason =
        refusal.reason === "released" && refusal.current.budgetExhausted
          ? "budget_exhausted"
          : refusal.reason;
      return {
        code: "gone",
        message: `This lease has ended (${reason}); claim the subject again.`,
        details: { reason },
      };
    }
    case "invalid_token":
      return { code: "unauthorized", message: "The lease token is not valid for this lease." };
    case "missing":
      return { code: "not_found", message: "No such lease." };
  }
}
