// Lease calls with the lease token (docs/reference/http-api.md#lease-calls): heartbeat, release, and verify.
import type { Hono } from "hono";
import type { LeaseCore } from "../../lease/lease-core.js";
import type { ApiEnv } from "../api-env.js";
import { HeartbeatBody, ReleaseBody } from "../api-schemas.js";
import { type AuthDeps, asLease } from "../auth.js";
import { readBody } from "../read-body.js";

export interface LeaseRouteDeps {
  core: LeaseCore;
  auth: AuthDeps;
}

export function mountLeaseRoutes(app: Hono<ApiEnv>, deps: LeaseRouteDeps): void {
  const { core, auth } = deps;
  app.post("/api/v1/leases/:leaseId/heartbeat", async (c) => {
    const body = await readBody(c, HeartbeatBody, true);
    return c.json(await asLease(c, auth, (token) => core.heartbeat(c.req.param("leaseId"), token, body)));
  });

  app.post("/api/v1/leases/:leaseId/release", async (c) => {
    const body = await readBody(c, ReleaseBody);
    return c.json(await asLease(c, auth, (token) => core.release(c.req.param("leaseId"), token, body)));
  });

  app.get("/api/v1/leases/:leaseId", async (c) => {
    return c.json(await asLease(c, auth, (token) => core.verify(c.req.param("leaseId"), token)));
  });
}
