// `POST /api/v1/claims/next`: the server picks the best free issue and claims it (docs/reference/http-api.md).
import { TakeoverPendingSchema } from "../../contract/api-responses.js";
import { NextResponseSchema, PickedSchema } from "../../contract/queue-responses.js";
import { claimWithTakeoverWaits } from "./claim-with-takeover-waits.js";
import type { ClaimNextInput, ClaimNextResult, ClaimOptions } from "./request-types.js";
import { parseBody, sendRequest, type TransportDeps } from "./send-request.js";

const TakeoverPickSchema = TakeoverPendingSchema.extend({ picked: PickedSchema });

/**
 * Never retried: unlike a claim of a named issue, a repeated pick is not a re-claim of the same
 * issue, so a pick whose answer was lost would leave the session holding an issue it never heard of.
 */
export async function claimNext(
  deps: TransportDeps,
  githubToken: string,
  input: ClaimNextInput,
  options: ClaimOptions,
  maxTakeoverWaits: number,
): Promise<ClaimNextResult> {
  const raw = await sendRequest(deps, {
    method: "POST",
    path: "api/v1/claims/next",
    token: githubToken,
    body: input,
    policy: "none",
    signal: options.signal,
  });
  if (raw.status !== 202) {
    const body = parseBody(NextResponseSchema, raw, "claim next");
    return { ...body, created: raw.status === 201 };
  }
  // The pick is a takeover (`includeTakeovers`) waiting for the incumbent's grace beat: the intent is
  // recorded for this session and this issue, so it is finished as a takeover claim of that issue.
  const pending = parseBody(TakeoverPickSchema, raw, "claim next");
  if (maxTakeoverWaits > 0) options.onTakeoverPending?.(pending);
  await deps.sleep(pending.retryAfterSeconds * 1000 + 250, options.signal);
  const result = await claimWithTakeoverWaits(
    deps,
    githubToken,
    {
      repo: input.repo,
      issue: pending.picked.issue,
      ...(input.actor ? { actor: input.actor } : {}),
      ...(input.taskClass ? { taskClass: input.taskClass } : {}),
      ...(input.scope ? { scope: input.scope } : {}),
      takeover: true,
    },
    options,
    Math.max(0, maxTakeoverWaits - 1),
  );
  return { ...result, picked: pending.picked };
}
