// `POST /api/v1/leases/{leaseId}/attest` (SPEC §4.2), mounted through the API's `extend` hook.
import type { Hono } from "hono";
import { UserError } from "../lease/errors.js";
import type { MergeFence } from "../lease/merge-fence.js";
import { type ApiEnv, bearerOf, readBody } from "./api.js";
import { AttestBody } from "./api-schemas.js";
import type { FailedAuthLimiter } from "./failed-auth-limiter.js";

export function mountAttestRoute(app: Hono<ApiEnv>, deps: { fence: MergeFence; limiter: FailedAuthLimiter }) {
  const { fence, limiter } = deps;
  app.post("/api/v1/leases/:leaseId/attest", async (c) => {
    const address = c.get("clientAddress");
    const retryAfter = limiter.blockedFor(address);
    if (retryAfter > 0) {
      throw new UserError(429, "rate_limited", "Too many failed authentications; slow down.", {
        retryAfterSeconds: retryAfter,
      });
    }
    const token = bearerOf(c);
    if (!token?.startsWith("clh_")) {
      limiter.fail(address);
      throw new UserError(401, "unauthorized", "Send the lease token (clh_…) as a Bearer credential.");
    }
    const body = await readBody(c, AttestBody);
    try {
      return c.json(await fence.attest(c.req.param("leaseId"), token, body.sha));
    } catch (error) {
      if (error instanceof UserError && error.status === 401) limiter.fail(address);
      throw error;
    }
  });
}
