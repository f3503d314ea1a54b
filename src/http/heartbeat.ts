// The heartbeat (`POST /api/v1/leases/{leaseId}/heartbeat`) once, for both transports that answer it: node:http's own route and Hono's.
import type { Logger } from "pino";
import type { HeartbeatAnswer, LeaseCore } from "../lease/lease-core.js";
import { HeartbeatBody } from "./api-schemas.js";
import { type AuthDeps, type LeaseRequest, leaseCallFailed, leaseTokenOfRequest } from "./auth.js";
import { errorResponse, refusalCodeOf } from "./error-response.js";
import { type clientGone, parseBody, payloadTooLarge } from "./read-body.js";

/** The heartbeat's route template: Hono's route, and the label both transports count its requests under. */
export const heartbeatRoute = "/api/v1/leases/:leaseId/heartbeat";

export interface HeartbeatDeps {
  core: LeaseCore;
  auth: AuthDeps;
  /** Where an error's line goes (the API app's logger, for the same lines from either transport). */
  log: Logger;
  /** Counts a refusal answered (the metrics), by its code (src/contract/refusals.ts). */
  onRefused?: (code: string) => void;
}

/**
 * What the heartbeat reads of one transport's request and how it writes the answer. `Request` is the
 * transport's handle on the exchange (node:http's response, Hono's context). Headers are read once the
 * body is read, and the request id only when an error is answered (a fresh one costs a UUID).
 */
export interface HeartbeatTransport<Request, Answer> {
  /** A header (lower-case name) as a web Headers object reads it: every occurrence, joined with ", ". */
  header(request: Request, name: "authorization" | "content-type"): string | undefined;
  /** The address the failed-auth limiter counts (client-address.ts). */
  clientAddress(request: Request): string;
  /** The id an error's log line (and a 500's body) names. */
  requestId(request: Request): string;
  /** Writes the JSON answer; with `headers`, those too. */
  reply(request: Request, status: number, body: unknown, headers?: Record<string, string>): Answer;
}

/** A body the transport read whole (Hono, whose body limit answers an oversized one itself). */
export function answerHeartbeat<Request, Answer>(
  deps: HeartbeatDeps,
  transport: HeartbeatTransport<Request, Answer>,
  request: Request,
  leaseId: string,
  body: Promise<string>,
): Promise<Answer>;
/** A body read as read-body.ts's `readNodeBody` reads it: null when too large, `clientGone` (no answer) when cut off. */
export function answerHeartbeat<Request, Answer>(
  deps: HeartbeatDeps,
  transport: HeartbeatTransport<Request, Answer>,
  request: Request,
  leaseId: string,
  body: Promise<string | null | typeof clientGone>,
): Promise<Answer | undefined>;
/**
 * Answers a heartbeat: the body's limit and parse, the lease token's check (with the failed-auth
 * limiter), the lease core's heartbeat and the error answers. A body that fails to arrive (its promise
 * rejects) is the transport's to answer: Hono's body limit answers a chunked body over it that way.
 */
export async function answerHeartbeat<Request, Answer>(
  deps: HeartbeatDeps,
  transport: HeartbeatTransport<Request, Answer>,
  request: Request,
  leaseId: string,
  body: Promise<string | null | typeof clientGone>,
): Promise<Answer | undefined> {
  const text = await body;
  if (text === null) return transport.reply(request, payloadTooLarge.status, payloadTooLarge.body);
  if (typeof text !== "string") return undefined;
  try {
    // The body is read (and refused) before the credential is looked at.
    const parsed = parseBody(text, transport.header(request, "content-type"), HeartbeatBody, true);
    const lease: LeaseRequest = {
      authorization: transport.header(request, "authorization"),
      clientAddress: transport.clientAddress(request),
      leaseId,
    };
    // `asLeaseOf`, flat: the token's check, the call, a refusal counted as a failed authentication.
    let token = leaseTokenOfRequest(lease, deps.auth);
    if (typeof token !== "string") token = await token;
    let answer: HeartbeatAnswer;
    try {
      answer = await deps.core.heartbeat(leaseId, token, parsed);
    } catch (error) {
      throw await leaseCallFailed(lease, deps.auth, error);
    }
    return transport.reply(request, 200, answer);
  } catch (error) {
    const code = deps.onRefused && refusalCodeOf(error);
    if (code) deps.onRefused?.(code);
    const requestId = transport.requestId(request);
    const { status, body, headers } = errorResponse(error, { requestId, log: deps.log });
    return transport.reply(request, status, body, headers);
  }
}
