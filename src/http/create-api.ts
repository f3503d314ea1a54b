// The HTTP API (docs/reference/http-api.md): a Hono app with the request id, client address and body limit; routes live in routes/.
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { matchedRoutes } from "hono/route";
import type { Logger } from "pino";
import type { LeaseCore } from "../lease/lease-core.js";
import type { IdentityProvider } from "../providers/assignment-provider.js";
import type { LeaseEventBus } from "../providers/lease-event-bus.js";
import type { QueuePicker } from "../queue/pick-next.js";
import type { ApiEnv } from "./api-env.js";
import type { AuthDeps } from "./auth.js";
import { clientAddressOf } from "./client-address.js";
import { errorResponse, refusalCodeOf } from "./error-response.js";
import type { FailedAuthLimiter } from "./failed-auth-limiter.js";
import type { ServedForges } from "./forge-selection.js";
import type { LeaseStreams } from "./lease-streams.js";
import { mountOpenApiRoute } from "./openapi/mount-openapi.js";
import { maxBodyBytes, payloadTooLarge } from "./read-body.js";
import type { ReadCache } from "./read-cache.js";
import type { ReadLimiter } from "./read-limiter.js";
import { routeLabelOf } from "./route-label.js";
import { type AdminRouteDeps, mountAdminRoutes } from "./routes/admin.js";
import { mountClaimRoutes } from "./routes/claims.js";
import { type HealthRouteDeps, mountHealthRoutes } from "./routes/health.js";
import { mountInventoryRoutes } from "./routes/inventory.js";
import { mountLeaseEventRoute } from "./routes/lease-events.js";
import { mountLeaseRoutes } from "./routes/leases.js";
import { mountQueueRoutes } from "./routes/queue.js";

export interface ApiDeps extends Omit<AdminRouteDeps, "limiter">, HealthRouteDeps {
  core: LeaseCore;
  /** `claims/next` and the queue view; absent: those routes are not mounted. */
  picker?: QueuePicker;
  identity: IdentityProvider;
  /** Every forge the App serves, when more than GitHub (`X-Claim-Hold-Forge`). */
  forges?: ServedForges;
  limiter: FailedAuthLimiter;
  /**
   * The inventory and subject routes' shared answers and per-login limit (docs/reference/http-api.md#reads).
   */
  reads: { cache: ReadCache; limiter: ReadLimiter };
  /** `X-Forwarded-For` hops trusted for the client address (`CLAIM_HOLD_TRUST_PROXY`; 0: the socket's). */
  trustProxyHops?: number;
  leaseOnRecord?: AuthDeps["leaseOnRecord"];
  log: Logger;
  /** The live lease events' bus and this replica's open streams; absent: the events route is not mounted. */
  leaseEvents?: { bus: LeaseEventBus; streams: LeaseStreams };
  /** Extra routes other features mount on the same app (attest, dashboard). */
  extend?: (app: Hono<ApiEnv>) => void;
  /** Where every answered request and refusal is counted (the metrics); absent: nowhere. */
  observer?: ApiObserver;
}

/** What the API reports of the requests it answers. */
export interface ApiObserver {
  /** The series of a method and route template, which a request observes its status and duration on. */
  route(method: string, route: string): { observe(status: number, seconds: number): void };
  /** A refusal answered (the lease core's or the API's own), by code. */
  refused(code: string): void;
}

/** The credentials checks every route of the API (and the heartbeat's own route) shares. */
export function authOf(deps: ApiDeps): AuthDeps {
  return {
    identity: deps.identity,
    ...(deps.forges ? { forges: deps.forges } : {}),
    limiter: deps.limiter,
    readLimiter: deps.reads.limiter,
    ...(deps.leaseOnRecord ? { leaseOnRecord: deps.leaseOnRecord } : {}),
  };
}

export function createApi(deps: ApiDeps): Hono<ApiEnv> {
  const { core, limiter, log } = deps;
  const auth = authOf(deps);
  const app = new Hono<ApiEnv>();

  const { observer } = deps;
  app.use("*", async (c, next) => {
    const started = performance.now();
    c.set("requestId", c.req.header("x-request-id") ?? crypto.randomUUID());
    const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
    c.set(
      "clientAddress",
      clientAddressOf({
        socketAddress: incoming?.socket?.remoteAddress ?? "unknown",
        forwardedFor: c.req.header("x-forwarded-for"),
        trustedHops: deps.trustProxyHops ?? 0,
      }),
    );
    await next();
    observer
      ?.route(c.req.method, routeLabelOf(matchedRoutes(c), c.req.routeIndex))
      .observe(c.res.status, (performance.now() - started) / 1000);
  });
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json(payloadTooLarge.body, payloadTooLarge.status),
    }),
  );

  mountClaimRoutes(app, { core, auth, log, ...(deps.picker ? { picker: deps.picker } : {}) });
  mountLeaseRoutes(app, {
    core,
    auth,
    log,
    ...(observer ? { onRefused: (code: string) => observer.refused(code) } : {}),
  });
  if (deps.leaseEvents) mountLeaseEventRoute(app, { core, auth, log, ...deps.leaseEvents });
  mountInventoryRoutes(app, { core, auth, cache: deps.reads.cache });
  if (deps.picker) mountQueueRoutes(app, { picker: deps.picker, auth, cache: deps.reads.cache });
  mountAdminRoutes(app, {
    limiter,
    ...(deps.janitor ? { janitor: deps.janitor } : {}),
    ...(deps.adminToken ? { adminToken: deps.adminToken } : {}),
  });
  mountHealthRoutes(app, { ready: deps.ready });
  mountOpenApiRoute(app);
  deps.extend?.(app);

  app.notFound((c) => c.json({ error: "not_found", message: "No such route." }, 404));
  app.onError((error, c) => {
    const code = observer && refusalCodeOf(error);
    if (code) observer?.refused(code);
    const { status, body, headers } = errorResponse(error, { requestId: c.get("requestId"), log });
    for (const [name, value] of Object.entries(headers ?? {})) c.header(name, value);
    return c.json(body, status);
  });
  return app;
}

type NodeRoute = (
  req: import("node:http").IncomingMessage,
  res: import("node:http").ServerResponse,
) => boolean;

/**
 * Probot `addHandler` adapter: the API answers its own paths and passes every other request on.
 * `routes` (node:http handlers answering true for what they took) are asked first.
 */
export function apiHandler(app: Hono<ApiEnv>, owns: (path: string) => boolean, routes: NodeRoute[] = []) {
  const listener = getRequestListener(app.fetch);
  return async (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    for (const route of routes) if (route(req, res)) return true;
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (!owns(path)) return false;
    await listener(req, res);
    return true;
  };
}
