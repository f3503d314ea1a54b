// The one place a thrown error becomes an HTTP answer: refusals with their status, the rest logged and mapped.
import type { Logger } from "pino";
import { type ErrorCodeRow, errorCodes } from "../contract/refusals.js";
import { LeaseRefused, type RefusalCode } from "../lease/refusals.js";
import { GitHubWriteError } from "../providers/assignment-provider.js";
import { StoreUnavailableError } from "../providers/liveness-store.js";
import { UserError } from "./user-error.js";

export interface ErrorResponse {
  status: ErrorCodeRow["status"];
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * The table's row of each refusal of the lease core: typed so that a new `RefusalCode` without a row in
 * src/contract/refusals.ts does not compile (docs/reference/http-api.md#error-codes).
 */
const refusalRows: Record<RefusalCode, ErrorCodeRow> = errorCodes;

/** The status a refusal (the core's or the API's own) is answered with; undefined for any other error. */
export function refusalStatusOf(error: unknown): number | undefined {
  if (error instanceof UserError) return error.status;
  if (error instanceof LeaseRefused) return refusalRows[error.code].status;
  return undefined;
}

/** The code a refusal (the core's or the API's own) is answered with; undefined for any other error. */
export function refusalCodeOf(error: unknown): string | undefined {
  if (error instanceof UserError || error instanceof LeaseRefused) return error.code;
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
      ...(error.status === 429 || error.details.retryAfterSeconds !== undefined
        ? { headers: { "Retry-After": String(error.details.retryAfterSeconds ?? 60) } }
        : {}),
    };
  }
  if (error instanceof LeaseRefused) {
    return {
      status: refusalRows[error.code].status,
      body: { error: error.code, message: error.message, ...error.details },
    };
  }
  if (error instanceof StoreUnavailableError) {
    log.error({ requestId, err: error }, "claim store unavailable");
    return {
      status: errorCodes.store_unavailable.status,
      body: { error: "store_unavailable", message: "The claim store is unavailable; retry shortly." },
    };
  }
  // A GitHub read that failed (Octokit's HttpError) is as much "GitHub failed" as a refused write.
  if (isGitHubFailure(error)) {
    log.error({ requestId, err: error }, "GitHub request failed");
    return {
      status: errorCodes.github_failed.status,
      body: { error: "github_failed", message: "GitHub did not answer as expected; retry is safe." },
    };
  }
  log.error({ requestId, err: error }, "internal error");
  return {
    status: errorCodes.internal.status,
    body: { error: "internal", message: `Internal error (request ${requestId}).` },
  };
}
