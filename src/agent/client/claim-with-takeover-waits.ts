// `POST /api/v1/claims`, waiting out `202 takeover_pending` answers up to a limit (docs/reference/http-api.md).
import { ClaimResponseSchema, TakeoverPendingSchema } from "../../contract/api-responses.js";
import { ClaimHoldError } from "./errors.js";
import type { ClaimInput, ClaimOptions, ClaimResult } from "./request-types.js";
import { parseBody, sendRequest, type TransportDeps } from "./send-request.js";

/** Claims, re-claims or takes over; each `202` is waited out until `maxTakeoverWaits` were spent. */
export async function claimWithTakeoverWaits(
  deps: TransportDeps,
  githubToken: string,
  input: ClaimInput,
  options: ClaimOptions,
  maxTakeoverWaits: number,
): Promise<ClaimResult> {
  for (let waits = 0; ; waits++) {
    const raw = await sendRequest(deps, {
      method: "POST",
      path: "api/v1/claims",
      token: githubToken,
      body: input,
      policy: "network",
      signal: options.signal,
    });
    if (raw.status !== 202) {
      const body = parseBody(ClaimResponseSchema, raw, "claim");
      return { ...body, created: raw.status === 201 };
    }
    const pending = parseBody(TakeoverPendingSchema, raw, "claim");
    if (waits >= maxTakeoverWaits) {
      throw new ClaimHoldError({
        status: 202,
        code: "takeover_pending",
        message: `takeover of ${input.repo}#${input.issue} still pending after ${waits} waits`,
        details: { ...pending },
      });
    }
    options.onTakeoverPending?.(pending);
    // A little past the grace beat, so the retry never lands just before the grace ends.
    await deps.sleep(pending.retryAfterSeconds * 1000 + 250, options.signal);
  }
}
