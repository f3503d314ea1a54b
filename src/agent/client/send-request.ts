// One HTTP call to the claim-hold API, retried only as far as its retry policy says is safe.
import type { z } from "zod";
import { ErrorBodySchema } from "../../contract/api-responses.js";
import { backoffDelay } from "./backoff.js";
import { ClaimHoldError, redactSecrets } from "./errors.js";

/**
 * - `none`: never retried (release, attest: the brief keeps them to a single call).
 * - `network`: retried only when no response arrived at all (claim: a re-claim by the same session is safe).
 * - `network-and-5xx`: also retried on 5xx answers (heartbeat, verify: reads or pure renewals).
 */
export type RetryPolicy = "none" | "network" | "network-and-5xx";

export interface TransportDeps {
  baseUrl: string;
  /** The forge the agent's token is for (`X-Claim-Hold-Forge`), named only when the App serves several. */
  forge?: string;
  fetch: typeof globalThis.fetch;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per-attempt timeout; a timeout counts as a network error. */
  timeoutMs: number;
  userAgent: string;
}

export interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  /** Bearer token: a GitHub token or a `clh_` lease token. Never echoed into an error. */
  token: string;
  body?: unknown;
  policy: RetryPolicy;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  json: unknown;
}

const retryAfterCapMs = 60_000;

/** Sends the request; resolves with a 2xx answer, throws ClaimHoldError for anything else. */
export async function sendRequest(deps: TransportDeps, spec: RequestSpec): Promise<RawResponse> {
  const url = new URL(spec.path, deps.baseUrl.endsWith("/") ? deps.baseUrl : `${deps.baseUrl}/`);
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: `Bearer ${spec.token}`,
    "user-agent": deps.userAgent,
  };
  if (deps.forge !== undefined) headers["x-claim-hold-forge"] = deps.forge;
  if (spec.body !== undefined) headers["content-type"] = "application/json";
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  const label = `${spec.method} ${url.pathname}`;

  for (let attempt = 0; ; attempt++) {
    const canRetry = spec.policy !== "none" && attempt < deps.retries;
    let response: Response;
    try {
      const timeout = AbortSignal.timeout(deps.timeoutMs);
      const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
      response = await deps.fetch(url, { method: spec.method, headers, body, signal });
    } catch (error) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? error;
      if (canRetry) {
        await deps.sleep(backoffDelay(attempt, deps.random, backoffOf(deps)), spec.signal);
        continue;
      }
      throw new ClaimHoldError({
        status: 0,
        code: "network_error",
        message: redactSecrets(`${label} failed: ${describeNetworkError(error)}`, [spec.token]),
        cause: error,
      });
    }

    if (response.status >= 500 && spec.policy === "network-and-5xx" && canRetry) {
      await response.body?.cancel().catch(() => {});
      const delay = Math.max(
        backoffDelay(attempt, deps.random, backoffOf(deps)),
        retryAfterMs(response.headers.get("retry-after")),
      );
      await deps.sleep(delay, spec.signal);
      continue;
    }

    const text = await response.text().catch(() => "");
    const json = parseJson(text);
    if (response.ok) {
      if (json === undefined && text.trim() !== "") {
        throw new ClaimHoldError({
          status: response.status,
          code: "invalid_response",
          message: `${label} answered ${response.status} with a body that is not JSON`,
        });
      }
      return { status: response.status, json: json ?? {} };
    }
    throw errorFromResponse(label, response, json, spec.token);
  }
}

/**
 * Opens a long-lived answer (an event stream): one attempt, `timeoutMs` for the headers only, the
 * body left to the caller. Throws ClaimHoldError for anything but a 2xx.
 */
export async function openStream(
  deps: TransportDeps,
  spec: Omit<RequestSpec, "body" | "policy">,
): Promise<Response> {
  const url = new URL(spec.path, deps.baseUrl.endsWith("/") ? deps.baseUrl : `${deps.baseUrl}/`);
  const label = `${spec.method} ${url.pathname}`;
  const headersArrived = new AbortController();
  const timer = setTimeout(() => headersArrived.abort(new Error("timed out")), deps.timeoutMs);
  const signal = spec.signal ? AbortSignal.any([spec.signal, headersArrived.signal]) : headersArrived.signal;
  let response: Response;
  try {
    response = await deps.fetch(url, {
      method: spec.method,
      headers: {
        accept: "text/event-stream",
        authorization: `Bearer ${spec.token}`,
        "user-agent": deps.userAgent,
      },
      signal,
    });
  } catch (error) {
    if (spec.signal?.aborted) throw spec.signal.reason ?? error;
    throw new ClaimHoldError({
      status: 0,
      code: "network_error",
      message: redactSecrets(`${label} failed: ${describeNetworkError(error)}`, [spec.token]),
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => "");
  throw errorFromResponse(label, response, parseJson(text), spec.token);
}

/** Validates a 2xx body; a mismatch is the server's fault, reported with the first offending field. */
export function parseBody<S extends z.ZodType>(schema: S, raw: RawResponse, label: string): z.infer<S> {
  const result = schema.safeParse(raw.json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  throw new ClaimHoldError({
    status: raw.status,
    code: "invalid_response",
    message: `${label} answered ${raw.status} with an unexpected body${where}: ${issue?.message ?? "invalid"}`,
  });
}

function errorFromResponse(label: string, response: Response, json: unknown, token: string): ClaimHoldError {
  const parsed = ErrorBodySchema.safeParse(json);
  const retryAfter = response.headers.get("retry-after");
  if (!parsed.success) {
    return new ClaimHoldError({
      status: response.status,
      code: fallbackCode(response.status),
      message: `${label} answered ${response.status} ${response.statusText}`.trim(),
      details: retryAfter ? { retryAfter } : {},
    });
  }
  const { error, message, ...details } = parsed.data;
  if (retryAfter && details.retryAfter === undefined) details.retryAfter = retryAfter;
  return new ClaimHoldError({
    status: response.status,
    code: error,
    message: redactSecrets(message ?? `${label} answered ${response.status} ${error}`, [token]),
    details,
  });
}

function fallbackCode(status: number): string {
  const byStatus: Record<number, string> = {
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    410: "gone",
    413: "payload_too_large",
    422: "invalid_request",
    429: "rate_limited",
    502: "github_failed",
    503: "store_unavailable",
  };
  return byStatus[status] ?? `http_${status}`;
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function retryAfterMs(header: string | null): number {
  if (!header) return 0;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, retryAfterCapMs);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 0 : Math.min(Math.max(0, date - Date.now()), retryAfterCapMs);
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError") return "timed out";
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

function backoffOf(deps: TransportDeps) {
  return { baseMs: deps.baseDelayMs, maxMs: deps.maxDelayMs };
}
