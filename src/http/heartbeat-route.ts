// `POST /api/v1/leases/{leaseId}/heartbeat` on node:http itself, in front of Hono: the hottest call builds no web Request.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { LeaseCore } from "../lease/lease-core.js";
import { HeartbeatBody } from "./api-schemas.js";
import { type AuthDeps, asLeaseOf } from "./auth.js";
import { clientAddressOf } from "./client-address.js";
import { errorResponse } from "./error-response.js";
import { clientGone, headerOf, parseBody, payloadTooLarge, readNodeBody } from "./read-body.js";

export interface HeartbeatRouteDeps {
  core: LeaseCore;
  auth: AuthDeps;
  trustProxyHops?: number;
  log: Logger;
}

/**
 * The paths this route answers: a lease id's shape (parseLeaseId's) and nothing to decode. Anything
 * else that names the heartbeat (an encoded id, dot segments, a trailing slash) goes on to Hono,
 * which answers it as it always did.
 */
const heartbeatPath = /^\/api\/v1\/leases\/(\d{1,15}\.\d{1,15}\.\d{1,10}\.\d{1,10})\/heartbeat(?:\?|$)/;
/** The Host values @hono/node-server takes without parsing a URL; any other goes on to Hono, whose checks it meets. */
const plainHost = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * A node:http handler answering heartbeats exactly as the Hono route does (the same body limit,
 * parse, lease check, failed-auth limiter and error answers, through the same functions), or false
 * for any other request. The answer is written as @hono/node-server writes a `c.json` one.
 */
export function createHeartbeatRoute(deps: HeartbeatRouteDeps) {
  const { core, auth, log } = deps;
  const trustedHops = deps.trustProxyHops ?? 0;
  const answer = async (req: IncomingMessage, res: ServerResponse, leaseId: string) => {
    try {
      const text = await readNodeBody(req);
      if (text === clientGone) return;
      if (text === null) {
        send(res, payloadTooLarge.status, payloadTooLarge.body);
        return;
      }
      const body = parseBody(text, headerOf(req, "content-type"), HeartbeatBody, true);
      const request = {
        authorization: headerOf(req, "authorization"),
        clientAddress: clientAddressOf({
          socketAddress: req.socket.remoteAddress ?? "unknown",
          forwardedFor: trustedHops > 0 ? headerOf(req, "x-forwarded-for") : undefined,
          trustedHops,
        }),
        leaseId,
      };
      send(res, 200, await asLeaseOf(request, auth, (token) => core.heartbeat(leaseId, token, body)));
    } catch (error) {
      // The request id is only ever read by an error's log line (and a 500's body): made only then.
      const requestId = headerOf(req, "x-request-id") ?? randomUUID();
      const { status, body, headers } = errorResponse(error, { requestId, log });
      send(res, status, body, headers);
    }
  };
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== "POST") return false;
    const match = heartbeatPath.exec(req.url ?? "");
    const host = req.headers.host;
    if (!match || host === undefined || !plainHost.test(host)) return false;
    void answer(req, res, match[1]!);
    return true;
  };
}

/**
 * Writes a JSON answer byte for byte as @hono/node-server writes Hono's `c.json(body, status)`: with
 * no other header, `Content-Type` set and the length left to node; with others, every name
 * lower-cased in Headers' (sorted) order and `Content-Length` last.
 */
function send(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  if (!headers) {
    res.statusCode = status;
    res.setHeader("Content-Type", "application/json");
    res.end(text);
    return;
  }
  const all: Record<string, string> = { "content-type": "application/json" };
  for (const [name, value] of Object.entries(headers)) all[name.toLowerCase()] = value;
  const sorted: Record<string, string | number> = {};
  for (const name of Object.keys(all).sort()) sorted[name] = all[name]!;
  sorted["Content-Length"] = Buffer.byteLength(text);
  res.writeHead(status, sorted);
  res.end(text);
}
