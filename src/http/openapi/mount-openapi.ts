// `GET /api/v1/openapi.json`: the API's OpenAPI document, open like /healthz, rendered once on first request.
import type { Hono } from "hono";
import type { ApiEnv } from "../api-env.js";
import { renderOpenApiJson } from "./openapi-document.js";

export function mountOpenApiRoute(app: Hono<ApiEnv>): void {
  let rendered: string | undefined;
  app.get("/api/v1/openapi.json", (c) => {
    rendered ??= renderOpenApiJson();
    return c.body(rendered, 200, { "Content-Type": "application/json; charset=UTF-8" });
  });
}
