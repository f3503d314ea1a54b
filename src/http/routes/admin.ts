// `POST /api/v1/admin/janitor/run` (docs/reference/http-api.md#operator-and-operations): the operator runs a sweep; 404 without an admin token.
import type { Hono } from "hono";
import { JobBusyError } from "../../janitor/job-registry.js";
import type { ApiEnv } from "../api-env.js";
import { JanitorRunBody } from "../api-schemas.js";
import { requireSecret } from "../auth.js";
import type { FailedAuthLimiter } from "../failed-auth-limiter.js";
import { readBody } from "../read-body.js";
import { UserError } from "../user-error.js";

export interface AdminRouteDeps {
  /** The janitor, for the operator route (absent admin token → operator routes answer 404). */
  janitor?: { sweep: (options: { dryRun?: boolean; installationId?: number }) => Promise<unknown> };
  adminToken?: string;
  limiter: FailedAuthLimiter;
}

export function mountAdminRoutes(app: Hono<ApiEnv>, deps: AdminRouteDeps): void {
  app.post("/api/v1/admin/janitor/run", async (c) => {
    if (!deps.adminToken || !deps.janitor) throw new UserError(404, "not_found", "No such route.");
    await requireSecret(c, deps.limiter, deps.adminToken, "Send the admin token as a Bearer credential.");
    const body = await readBody(c, JanitorRunBody, true);
    // Under the janitor job's lock, like a scheduled sweep: refused at once while a sweep runs on any
    // replica. A dry run takes the lock too: beside a running sweep it would report actions half done.
    try {
      return c.json(await deps.janitor.sweep(body));
    } catch (error) {
      if (!(error instanceof JobBusyError)) throw error;
      throw new UserError(
        409,
        "janitor_busy",
        "A janitor sweep is running already (scheduled or operator-run); retry once it has finished.",
      );
    }
  });
}
