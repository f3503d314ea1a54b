// The one place a thrown error becomes an HTTP answer: refusals with their status, the rest logged and mapped.
import type { Logger } from "pino";
import { LeaseRefused, type RefusalCode } from "../lease/refusals.js";
import { GitHubWriteError } from "../providers/assignment-provider.js";
import { StoreUnavailableError } from "../providers/liveness-store.js";
import { UserError } from "./user-error.js";

export interface ErrorResponse {
  status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The HTTP status of each refusal of the lease core (SPEC §4.2). */
const refusalStatus: Record<RefusalCode, ErrorResponse["status"]> = {
  not_found: 404,
  closed: 409,
  claim_state_unknown: 503,
  held: 409,
  human_held: 409,
  cap_reached: 409,
  blocked: 409,
  pr_open: 409,
  branch_not_allowed: 422,
  branch_taken: 409,
  queue_empty: 409,
  github_failed: 502,
  superseded: 409,
  gone: 410,
  unauthorized: 401,
  invalid_request: 422,
};

/** The status a refusal (the core's or the API's own) is answered with; undefined for any other error. */
export function refusalStatusOf(error: unknown): number | undefined {
  if (error instanceof UserError) return error.status;
  if (error instanceof LeaseRefused) return refusalStatus[error.code];
  return undefined;
}

/** Octokit's errors: an HTTP status (HttpError, RequestError) or GraphQL errors in a 200 (GraphqlResponseError). */
const octokitErrorNames = new Set(["HttpError", "RequestError", "GraphqlResponseError"]);

/**
 * Whether GitHub failed somewhere along the error's `cause` chain: a provider wraps Octokit's error
 * with what it was doing, and that is still "GitHub failed", never an internal error.
 */
function isGitHubFailure(error: unknown): boolean {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    if (at instanceof GitHubWriteError || octokitErrorNames.has(at.name)) return true;
  }
  return false;
}

/**
 * The answer for an error a route threw. A refusal (the core's or the API's own) is answered with its
 * status, code and sentence; anything else is logged with the request id, and only its kind (store,
 * GitHub, internal) reaches the caller.
 */
export function errorResponse(error: unknown, request: { requestId: string; log: Logger }): ErrorResponse {
  const { requestId, log } = request;
  if (error instanceof UserError) {
    return {
      status: error.status as ErrorResponse["status"],
      body: error.toBody(),
      ...(error.status === 429
        ? { headers: { "Retry-After": String(error.details.retryAfterSeconds ?? 60) } }
        : {}),
    };
  }
  if (error instanceof LeaseRefused) {
    return {
      status: refusalStatus[error.code],
      body: { error: error.code, message: error.message, ...error.details },
    };
  }
  if (error instanceof StoreUnavailableError) {
    log.error({ requestId, err: error }, "claim store unavailable");
    return {
      status: 503,
      body: { error: "store_unavailable", message: "The claim store is unavailable; retry shortly." },
    };
  }
  // A GitHub read that failed (Octokit's HttpError) is as much "GitHub failed" as a refused write.
  if (isGitHubFailure(error)) {
    log.error({ requestId, err: error }, "GitHub request failed");
    return {
      status: 502,
      body: { error: "github_failed", message: "GitHub did not answer as expected; retry is safe." },
    };
  }
  log.error({ requestId, err: error }, "internal error");
  return { status: 500, body: { error: "internal", message: `Internal error (request ${requestId}).` } };
}
