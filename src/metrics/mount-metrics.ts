// `GET /metrics` (docs/deploy.md#8-watch-it): Prometheus text from the App's own registry; open unless METRICS_TOKEN is set.
import type { Hono } from "hono";
import type { Registry } from "prom-client";
import type { ApiEnv } from "../http/api-env.js";
import { bearerOf, sameSecret } from "../http/auth.js";

export function mountMetrics(app: Hono<ApiEnv>, deps: { registry: Registry; token?: string }): void {
  app.get("/metrics", async (c) => {
    if (deps.token) {
      const presented = bearerOf(c);
      if (!presented || !sameSecret(presented, deps.token)) {
        c.header("WWW-Authenticate", 'Bearer realm="metrics"');
        return c.json({ error: "unauthorized", message: "Send METRICS_TOKEN as a Bearer credential." }, 401);
      }
    }
    c.header("Content-Type", deps.registry.contentType);
    c.header("Cache-Control", "no-store");
    return c.body(await deps.registry.metrics());
  });
}
