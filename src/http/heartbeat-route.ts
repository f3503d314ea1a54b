// `POST /api/v1/leases/{leaseId}/heartbeat` on node:http itself, in front of Hono: the hottest call builds no web Request.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { clientAddressOf } from "./client-address.js";
import { answerHeartbeat, type HeartbeatDeps, type HeartbeatTransport } from "./heartbeat.js";
import { headerOf, readNodeBody } from "./read-body.js";

export interface HeartbeatRouteDeps extends HeartbeatDeps {
  trustProxyHops?: number;
  /** The heartbeat's request series (bound once): every answer's status and duration go to it. */
  observed?: { observe(status: number, seconds: number): void };
}

/** When the route took the request: a field of the response itself, so timing one allocates nothing. */
const startedAt = Symbol("heartbeat started at");
type TimedResponse = ServerResponse & { [startedAt]?: number };

/**
 * The paths this route answers: a lease id's shape (parseLeaseId's) and nothing to decode. Anything
 * else that names the heartbeat (an encoded id, dot segments, a trailing slash) goes on to Hono,
 * which answers it as it always did.
 */
const heartbeatPath = /^\/api\/v1\/leases\/(\d{1,15}\.\d{1,15}\.\d{1,10}\.\d{1,10})\/heartbeat(?:\?|$)/;
/** The Host values @hono/node-server takes without parsing a URL; any other goes on to Hono, whose checks it meets. */
const plainHost = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * A node:http handler answering heartbeats through the one implementation Hono's route uses too
 * (heartbeat.ts), or false for any other request. The answer is written as @hono/node-server writes
 * a `c.json` one.
 */
export function createHeartbeatRoute(deps: HeartbeatRouteDeps) {
  const trustedHops = deps.trustProxyHops ?? 0;
  const { observed } = deps;
  // The exchange's handle is the response: its `req` is the request.
  const transport: HeartbeatTransport<ServerResponse, void> = {
    header: (res, name) => headerOf(res.req, name),
    clientAddress: (res) =>
      clientAddressOf({
        socketAddress: res.req.socket.remoteAddress ?? "unknown",
        forwardedFor: trustedHops > 0 ? headerOf(res.req, "x-forwarded-for") : undefined,
        trustedHops,
      }),
    requestId: (res) => headerOf(res.req, "x-request-id") ?? randomUUID(),
    reply: observed
      ? (res: TimedResponse, status, body, headers) => {
          send(res, status, body, headers);
          observed.observe(status, (performance.now() - (res[startedAt] ?? 0)) / 1000);
        }
      : send,
  };
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== "POST") return false;
    const match = heartbeatPath.exec(req.url ?? "");
    const host = req.headers.host;
    if (!match || host === undefined || !plainHost.test(host)) return false;
    if (observed) (res as TimedResponse)[startedAt] = performance.now();
    void answerHeartbeat(deps, transport, res, match[1]!, readNodeBody(req));
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
