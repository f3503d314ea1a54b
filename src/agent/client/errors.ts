// ClaimHoldError: every failure of a client call, with the server's status, code and details.

/** Codes the server sends (docs/reference/http-api.md) plus the few the client itself raises. */
export type ClaimHoldErrorCode =
  | "held"
  | "human_held"
  | "superseded"
  | "gone"
  | "cap_reached"
  | "closed"
  | "blocked"
  | "pr_open"
  | "missing_capability"
  | "branch_not_allowed"
  | "branch_taken"
  | "queue_empty"
  | "not_found"
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_installed"
  | "github_failed"
  | "store_unavailable"
  | "rate_limited"
  | "payload_too_large"
  /** Client-side: no HTTP response at all (connection refused, reset, timeout). `status` is 0. */
  | "network_error"
  /** Client-side: the server answered with a body this client cannot read. */
  | "invalid_response"
  /** Client-side: a takeover was still pending after the allowed number of waits. */
  | "takeover_pending"
  /** Client-side: the call needs a GitHub token and none was configured. */
  | "missing_github_token"
  | (string & {});

export interface ClaimHoldErrorInit {
  status: number;
  code: ClaimHoldErrorCode;
  message: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ClaimHoldError extends Error {
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number;
  readonly code: ClaimHoldErrorCode;
  /** The error body's other fields (`holder`, `generation`, `by`, `reason`, `retryAfterSeconds`…). */
  readonly details: Record<string, unknown>;

  constructor(init: ClaimHoldErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ClaimHoldError";
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
  }
}

export function isClaimHoldError(error: unknown): error is ClaimHoldError {
  return error instanceof ClaimHoldError;
}

const tokenPatterns = [/clh_[A-Za-z0-9_-]+/g, /\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]+/g];

/** Removes lease tokens, GitHub tokens and the given secrets from a text meant for humans or logs. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join("[redacted]");
  }
  for (const pattern of tokenPatterns) result = result.replace(pattern, "[redacted]");
  return result;
}
