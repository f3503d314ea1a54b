// The OpenAPI document: committed as generated, valid OpenAPI 3.1, and listing exactly the routes the server mounts.
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import pino from "pino";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountDashboard } from "../../src/dashboard/mount-dashboard.js";
import { createApi } from "../../src/http/create-api.js";
import { errorResponse, refusalStatusOf } from "../../src/http/error-response.js";
import { createFailedAuthLimiter } from "../../src/http/failed-auth-limiter.js";
import { createHeartbeatRoute } from "../../src/http/heartbeat-route.js";
import { errorComponentName, renderOpenApiJson } from "../../src/http/openapi/openapi-document.js";
import { errorsByStatus } from "../../src/http/openapi/route-doc.js";
import { routeDocs, undocumentedRoutes } from "../../src/http/openapi/route-docs.js";
import { payloadTooLarge } from "../../src/http/read-body.js";
import { createReadCache } from "../../src/http/read-cache.js";
import { createReadLimiter } from "../../src/http/read-limiter.js";
import { mountAttestRoute } from "../../src/http/routes/attest.js";
import { type RefusalCode, refused } from "../../src/lease/refusals.js";
import { mountMetrics } from "../../src/metrics/mount-metrics.js";
import { GitHubWriteError } from "../../src/providers/assignment-provider.js";
import { StoreUnavailableError } from "../../src/providers/liveness-store.js";
import { createMemoryRateLimits } from "../../src/providers/memory/memory-rate-limits.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { type AppHarness, startApp, testAdminToken } from "../support/app-harness.js";

const root = new URL("../../", import.meta.url).pathname;
const generated = renderOpenApiJson();
const now = () => Date.parse("2026-11-29T10:00:00Z");
const log = pino({ level: "silent" });

/** `METHOD /path/{param}` for a Hono route (`:param`) or a document row. */
const routeKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/:(\w+)/g, "{$1}")}`;

const documented = routeDocs.map((route) => routeKey(route.method, route.path));
const exempt = undocumentedRoutes.map((route) => routeKey(route.method, route.path));

/**
 * The routes of the API app as the App wires it: createApi with every optional part present, and the
 * routes the wiring's `extend` adds (attest, metrics, dashboard). Mounting calls none of the
 * dependencies, so the lease core, picker, identity and janitor are never touched here.
 */
function mountedRoutes(): string[] {
  const limiter = createFailedAuthLimiter({ now, limits: createMemoryRateLimits() });
  const unused = {} as never;
  const app = createApi({
    core: unused,
    picker: unused,
    identity: unused,
    janitor: unused,
    adminToken: testAdminToken,
    limiter,
    reads: {
      cache: createReadCache({ now }),
      limiter: createReadLimiter({ limits: createMemoryRateLimits() }),
    },
    log,
    ready: async () => ({ ok: true, checks: {} }),
    leaseEvents: unused,
    extend: (api) => {
      mountAttestRoute(api, { fence: unused, limiter });
      mountMetrics(api, { registry: new Registry() });
      mountDashboard(api, { adminToken: testAdminToken, readFleet: unused, actions: unused, limiter, now });
    },
  });
  const handlers = app.routes.filter((route) => route.method !== "ALL");
  return [...new Set(handlers.map((route) => routeKey(route.method, route.path)))].sort();
}

/** Every `app.get("/…")`-style registration with a literal path in src/, wherever it lives. */
function registrationsInSource(): string[] {
  const found = new Set<string>();
  const files = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" }).filter((file) =>
    /\.tsx?$/.test(file),
  );
  for (const file of files) {
    const text = readFileSync(join(root, "src", file), "utf8");
    for (const match of text.matchAll(/\bapp\.(get|post|put|patch|delete)\(\s*"([^"]+)"/g)) {
      found.add(routeKey(match[1]!, match[2]!));
    }
  }
  return [...found].sort();
}

/** `status code` pairs the server can answer: the HTTP layer's own refusals, found in src/ as written. */
function userErrorsInSource(): Set<string> {
  const found = new Set<string>();
  for (const file of readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })) {
    if (!/\.tsx?$/.test(file)) continue;
    const text = readFileSync(join(root, "src", file), "utf8");
    for (const match of text.matchAll(/new UserError\(\s*(\d+),\s*"([a-z_]+)"/g))
      found.add(`${match[1]} ${match[2]}`);
  }
  return found;
}

/** The lease core's refusal codes, as its union spells them. */
function refusalCodesInSource(): Set<string> {
  const text = readFileSync(join(root, "src/lease/refusals.ts"), "utf8");
  const union = text.slice(
    text.indexOf("export type RefusalCode"),
    text.indexOf(";", text.indexOf("export type RefusalCode")),
  );
  return new Set([...union.matchAll(/\|\s*"([a-z_]+)"/g)].map((match) => match[1]!));
}

/** The statuses the server answers a code with, as the code that answers it says. */
function servedStatusOf(code: string, userErrors: Set<string>): number[] {
  const statuses = [...userErrors]
    .filter((pair) => pair.endsWith(` ${code}`))
    .map((pair) => Number(pair.split(" ")[0]));
  if (refusalCodesInSource().has(code)) {
    statuses.push(refusalStatusOf(refused({ code: code as RefusalCode, message: "" }))!);
  }
  const request = { requestId: "r", log };
  for (const error of [new StoreUnavailableError(null), new GitHubWriteError("no"), new Error("boom")]) {
    const answer = errorResponse(error, request);
    if (answer.body.error === code) statuses.push(answer.status);
  }
  if (payloadTooLarge.body.error === code) statuses.push(payloadTooLarge.status);
  return statuses;
}

describe("docs/openapi.json", () => {
  it("is the document the route table generates", () => {
    const committed = readFileSync(join(root, "docs/openapi.json"), "utf8");
    expect(committed, "docs/openapi.json differs from the generated document: run `npm run openapi`").toBe(
      generated,
    );
  });

  it("renders the same bytes every time", () => {
    expect(renderOpenApiJson()).toBe(generated);
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const document = JSON.parse(generated);
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(document);
    expect(result.valid, compileErrors(result)).toBe(true);
    expect(result.warnings, compileErrors(result)).toEqual([]);
  });

  it("lists only error codes the server answers, each with the status it answers it with", () => {
    const userErrors = userErrorsInSource();
    const wrong: string[] = [];
    for (const route of routeDocs) {
      for (const [status, codes] of errorsByStatus(route.errors)) {
        for (const code of codes) {
          if (!servedStatusOf(code, userErrors).includes(status)) {
            wrong.push(`${route.operationId}: ${status} ${code}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("describes every failure with the schemas of exactly the codes its route lists for that status", () => {
    const document = JSON.parse(generated);
    for (const route of routeDocs) {
      const responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> =
        document.paths[route.path][route.method].responses;
      const described = Object.keys(responses).filter(
        (status) => Number(status) >= 400 && !(route.path === "/readyz" && status === "503"),
      );
      const byStatus = errorsByStatus(route.errors);
      expect(described, route.operationId).toEqual(byStatus.map(([status]) => String(status)));
      for (const [status, codes] of byStatus) {
        const schema = responses[String(status)]!.content["application/json"]!.schema;
        const refs = schema.oneOf
          ? (schema.oneOf as { $ref: string }[]).map((part) => part.$ref)
          : [schema.$ref as string];
        expect(refs, `${route.operationId} ${status}`).toEqual(
          codes.map((code) => `#/components/schemas/${errorComponentName(code)}`),
        );
      }
    }
  });
});

describe("the routes in the document", () => {
  it("are exactly the routes the API app mounts, less the dashboard's", () => {
    const mounted = mountedRoutes();
    expect(documented.filter((key) => exempt.includes(key))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
    // A route mounted but not in the table (or a row for a route nobody mounts) fails here: add its row.
    expect(mounted).toEqual([...documented, ...exempt].sort());
  });

  it("include every route registered anywhere in src/ (so none escapes the mounted app above)", () => {
    const mounted = mountedRoutes();
    expect(registrationsInSource().filter((key) => !mounted.includes(key))).toEqual([]);
  });

  it("include the path the raw heartbeat route answers in front of Hono", async () => {
    const limiter = createFailedAuthLimiter({ now, limits: createMemoryRateLimits() });
    const heartbeat = createHeartbeatRoute({
      core: {} as never,
      auth: {
        identity: {} as never,
        limiter,
        readLimiter: createReadLimiter({ limits: createMemoryRateLimits() }),
      },
      log,
    });
    const server = createServer((req, res) => {
      if (heartbeat(req, res)) return;
      res.statusCode = 599;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answered = await fetch(`http://127.0.0.1:${port}/api/v1/leases/1.1296269.12.1/heartbeat`, {
        method: "POST",
      });
      // Taken by the raw route (no lease token: 401), not passed on.
      expect(answered.status).toBe(401);
      expect(documented).toContain("POST /api/v1/leases/{leaseId}/heartbeat");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the real App", () => {
  let app: AppHarness;
  beforeAll(async () => {
    app = await startApp({ stores: createMemoryStores(), adminToken: testAdminToken });
  });
  afterAll(async () => {
    await app.close();
  });

  it("serves the committed document at GET /api/v1/openapi.json without credentials", async () => {
    const response = await fetch(`${app.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.text()).toBe(generated);
  });

  it("answers every documented operation (none is the unknown-route 404)", async () => {
    const sample: Record<string, string> = {
      leaseId: "1.1296269.12.1",
      owner: "octo",
      repo: "widgets",
      number: "12",
    };
    for (const route of routeDocs) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => sample[name]!);
      const response = await fetch(`${app.url}${path}`, { method: route.method.toUpperCase() });
      const body = await response.text();
      expect(`${route.method} ${route.path} → ${response.status} ${body.slice(0, 80)}`).not.toMatch(
        /No such route/,
      );
      const statuses = Object.keys(route.answers).concat(
        errorsByStatus(route.errors).map(([s]) => String(s)),
      );
      expect(statuses).toContain(String(response.status));
    }
  });
});
