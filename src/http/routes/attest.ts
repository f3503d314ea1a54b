// `POST /api/v1/leases/{leaseId}/attest` (docs/reference/http-api.md#lease-calls), mounted through the API's `extend` hook.
import type { Hono } from "hono";
import type { MergeFence } from "../../fence/merge-fence.js";
import type { ApiEnv } from "../api-env.js";
import { AttestBody } from "../api-schemas.js";
import { type AuthDeps, asLease, leaseToken } from "../auth.js";
import { readBody } from "../read-body.js";

export function mountAttestRoute(
  app: Hono<ApiEnv>,
  deps: { fence: MergeFence } & Pick<AuthDeps, "limiter" | "leaseOnRecord">,
) {
  const { fence } = deps;
  app.post("/api/v1/leases/:leaseId/attest", async (c) => {
    // A missing or malformed lease token is refused before the body is read.
    await leaseToken(c, deps.limiter);
    const body = await readBody(c, AttestBody);
    // Here only a refused token (401) counts as a failed authentication, not an unknown lease (404).
    return c.json(
      await asLease(c, deps, (token) => fence.attest(c.req.param("leaseId"), token, body.sha), [401]),
    );
  });
}
