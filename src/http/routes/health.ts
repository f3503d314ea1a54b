// `GET /healthz` (the process is up) and `GET /readyz` (its dependencies answer) for the orchestrator.
import type { Hono } from "hono";
import type { ApiEnv } from "../api-env.js";

export interface HealthRouteDeps {
  /** Readiness probes beyond the process being up (Redis reachable, credentials loaded). */
  ready: () => Promise<{ ok: boolean; checks: Record<string, string> }>;
}

export function mountHealthRoutes(app: Hono<ApiEnv>, deps: HealthRouteDeps): void {
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const readiness = await deps.ready();
    return c.json(
      { status: readiness.ok ? "ready" : "not_ready", checks: readiness.checks },
      readiness.ok ? 200 : 503,
    );
  });
}
