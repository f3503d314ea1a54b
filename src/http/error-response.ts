// The one place a thrown error becomes an HTTP answer: user errors as they are, the rest logged and mapped.
import type { Logger } from "pino";
import { UserError } from "../lease/errors.js";
import { GitHubWriteError } from "../providers/assignment-provider.js";
import { StoreUnavailableError } from "../providers/liveness-store.js";

export interface ErrorResponse {
  status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

function isOctokitHttpError(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === "HttpError" &&
    typeof (error as { status?: unknown }).status === "number"
  );
}

/**
 * The answer for an error a route threw. A user error carries its own status and sentence; anything
 * else is logged with the request id, and only its kind (store, GitHub, internal) reaches the caller.
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
  if (error instanceof StoreUnavailableError) {
    log.error({ requestId, err: error }, "claim store unavailable");
    return {
      status: 503,
      body: { error: "store_unavailable", message: "The claim store is unavailable; retry shortly." },
    };
  }
  // A GitHub read that failed (Octokit's HttpError) is as much "GitHub failed" as a refused write.
  if (error instanceof GitHubWriteError || isOctokitHttpError(error)) {
    log.error({ requestId, err: error }, "GitHub request failed");
    return {
      status: 502,
      body: { error: "github_failed", message: "GitHub did not answer as expected; retry is safe." },
    };
  }
  log.error({ requestId, err: error }, "internal error");
  return { status: 500, body: { error: "internal", message: `Internal error (request ${requestId}).` } };
}
