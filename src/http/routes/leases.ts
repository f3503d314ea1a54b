// Lease calls with the lease token (docs/reference/http-api.md#lease-calls): heartbeat, release, and verify.
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../api-env.js";
import { ReleaseBody } from "../api-schemas.js";
import { asLease } from "../auth.js";
import {
  answerHeartbeat,
  type HeartbeatDeps,
  type HeartbeatTransport,
  heartbeatRoute,
} from "../heartbeat.js";
import { readBody } from "../read-body.js";

export interface LeaseRouteDeps extends HeartbeatDeps {}

/** The heartbeat on Hono (a request node:http's own route left to it): read and answered as the app's other calls. */
const honoHeartbeat: HeartbeatTransport<Context<ApiEnv>, Response> = {
  header: (c, name) => c.req.header(name),
  clientAddress: (c) => c.get("clientAddress"),
  requestId: (c) => c.get("requestId"),
  // As the app's onError answers an error.
  reply: (c, status, body, headers) => {
    for (const [name, value] of Object.entries(headers ?? {})) c.header(name, value);
    return c.json(body, status as ContentfulStatusCode);
  },
};

export function mountLeaseRoutes(app: Hono<ApiEnv>, deps: LeaseRouteDeps): void {
  const { core, auth } = deps;
  app.post(heartbeatRoute, (c) =>
    answerHeartbeat(deps, honoHeartbeat, c, c.req.param("leaseId"), c.req.text()),
  );

  app.post("/api/v1/leases/:leaseId/release", async (c) => {
    const body = await readBody(c, ReleaseBody);
    return c.json(await asLease(c, auth, (token) => core.release(c.req.param("leaseId"), token, body)));
  });

  app.get("/api/v1/leases/:leaseId", async (c) => {
    return c.json(await asLease(c, auth, (token) => core.verify(c.req.param("leaseId"), token)));
  });
}
