// `POST /api/v1/leases/{leaseId}/attest` (SPEC §4.2), mounted through the API's `extend` hook.
import type { Hono } from "hono";
import { UserError } from "../../lease/errors.js";
import type { MergeFence } from "../../lease/merge-fence.js";
import { AttestBody } from "../api-schemas.js";
import { type ApiEnv, bearerOf, readBody } from "../create-api.js";
import { type FailedAuthLimiter, invalidCredential, rateLimited } from "../failed-auth-limiter.js";

export function mountAttestRoute(
  app: Hono<ApiEnv>,
  deps: {
    fence: MergeFence;
    limiter: FailedAuthLimiter;
    /** As the API's: whether checking a token for the lease costs no GitHub request. */
    leaseOnRecord?: (leaseId: string) => Promise<boolean>;
  },
) {
  const { fence, limiter } = deps;
  app.post("/api/v1/leases/:leaseId/attest", async (c) => {
    const address = c.get("clientAddress");
    // The lease token is checked even from a limited address (unless that would ask GitHub); only a
    // refused one meets the failed-auth limit.
    const token = bearerOf(c);
    if (!token?.startsWith("clh_")) {
      throw invalidCredential(
        limiter,
        address,
        new UserError(401, "unauthorized", "Send the lease token (clh_…) as a Bearer credential."),
      );
    }
    const body = await readBody(c, AttestBody);
    const retryAfter = limiter.blockedFor(address);
    if (retryAfter > 0 && deps.leaseOnRecord && !(await deps.leaseOnRecord(c.req.param("leaseId")))) {
      throw rateLimited(retryAfter);
    }
    try {
      return c.json(await fence.attest(c.req.param("leaseId"), token, body.sha));
    } catch (error) {
      if (error instanceof UserError && error.status === 401)
        throw invalidCredential(limiter, address, error);
      throw error;
    }
  });
}
