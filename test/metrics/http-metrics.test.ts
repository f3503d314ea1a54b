// HTTP RED metrics: requests and durations by method, route template and status, through both doors
// (the heartbeat's own node:http route and Hono), with bounded labels whatever path a client sends.
import { afterEach, describe, expect, it } from "vitest";
import { routeLabelOf, unmatchedRoute } from "../../src/http/route-label.js";
import { methodLabel, statusClassOf } from "../../src/metrics/http-metrics.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { minute, seedAgentClaim } from "../support/seed-claims.js";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const harnesses: AppHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

function sample(text: string, name: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : undefined;
}

const heartbeat = "/api/v1/leases/:leaseId/heartbeat";

describe("the labels", () => {
  it.each([
    ["GET", "GET"],
    ["POST", "POST"],
    ["DELETE", "DELETE"],
    ["PROPFIND", "OTHER"],
    ["get", "OTHER"],
  ])("method %s is labelled %s", (method, label) => {
    expect(methodLabel(method)).toBe(label);
  });

  it.each([
    [200, "2xx"],
    [204, "2xx"],
    [304, "3xx"],
    [401, "4xx"],
    [429, "4xx"],
    [503, "5xx"],
    [99, "other"],
    [600, "other"],
  ])("status %i is in class %s", (status, label) => {
    expect(statusClassOf(status)).toBe(label);
  });

  const use = (path: string) => ({ method: "ALL", path });
  const post = (path: string) => ({ method: "POST", path });
  it.each([
    ["the route that answered", [use("*"), use("/api/*"), post(heartbeat)], 2, heartbeat],
    [
      "the first route when a middleware answered (a body over the limit)",
      [use("*"), use("/api/*"), post("/api/v1/claims")],
      1,
      "/api/v1/claims",
    ],
    ["unmatched when only middleware matched (a 404)", [use("*"), use("/api/*")], 1, unmatchedRoute],
    ["unmatched when nothing matched", [], 0, unmatchedRoute],
  ])("%s", (_, matched, answeredAt, label) => {
    expect(routeLabelOf(matched, answeredAt)).toBe(label);
  });
});

describe("claim_hold_http_requests_total and claim_hold_http_request_duration_seconds", () => {
  it("count both doors under the route template, by status, and never name a path's ids", async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const app = await startApp({ stores, now: T0 });
    harnesses.push(app);
    const claim = await seedAgentClaim(stores, {
      key: { installationId: 7, repoId: 1001, issue: 1 },
      repo: "acme/widgets",
      actor: { login: "octo-agent", runtime: "codex", sessionId: "s-1" },
      now: T0 - minute,
    });
    const beat = (path: string, token: string) =>
      fetch(`${app.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{}",
      });
    // The heartbeat's own node:http route, then Hono's (an encoded id is left to Hono).
    expect((await beat(`/api/v1/leases/${claim.leaseId}/heartbeat`, claim.token)).status).toBe(200);
    const encoded = claim.leaseId.replaceAll(".", "%2E");
    expect((await beat(`/api/v1/leases/${encoded}/heartbeat`, claim.token)).status).toBe(200);
    expect((await beat(`/api/v1/leases/${claim.leaseId}/heartbeat`, "not-the-token")).status).toBe(401);
    const verify = await fetch(`${app.url}/api/v1/leases/${claim.leaseId}`, {
      headers: { authorization: `Bearer ${claim.token}` },
    });
    expect(verify.status).toBe(200);
    expect((await fetch(`${app.url}/api/v1/no-such-route/12345`)).status).toBe(404);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);

    const text = await (await fetch(`${app.url}/metrics`)).text();
    const requests = (method: string, route: string, status: number) =>
      sample(text, `claim_hold_http_requests_total{method="${method}",route="${route}",status="${status}"}`);
    expect(requests("POST", heartbeat, 200)).toBe(2);
    expect(requests("POST", heartbeat, 401)).toBe(1);
    expect(requests("GET", "/api/v1/leases/:leaseId", 200)).toBe(1);
    expect(requests("GET", unmatchedRoute, 404)).toBe(1);
    expect(requests("GET", "/healthz", 200)).toBe(1);
    const durations = (route: string, statusClass: string) =>
      sample(
        text,
        `claim_hold_http_request_duration_seconds_count{method="POST",route="${route}",status_class="${statusClass}"}`,
      );
    expect(durations(heartbeat, "2xx")).toBe(2);
    expect(durations(heartbeat, "4xx")).toBe(1);
    expect(text).toMatch(
      /claim_hold_http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/api\/v1\/leases\/:leaseId\/heartbeat",status_class="2xx"\} 2/,
    );
    // The wrong token is a refusal, counted by code; the 404 is the API's own refusal.
    expect(sample(text, 'claim_hold_refusals_total{code="unauthorized"}')).toBe(1);
    expect(sample(text, 'claim_hold_refusals_total{code="not_found"}')).toBe(undefined);
    // Bounded labels: no lease id, no raw path reaches a label.
    expect(text).not.toContain(claim.leaseId);
    expect(text).not.toContain("no-such-route");
  });

  it("counts the dashboard's and /metrics' own requests on Hono", async () => {
    const app = await startApp({ stores: createMemoryStores(), now: T0 });
    harnesses.push(app);
    expect((await fetch(`${app.url}/login`)).status).toBe(404); // no admin token: no dashboard
    await fetch(`${app.url}/metrics`);
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(sample(text, 'claim_hold_http_requests_total{method="GET",route="/metrics",status="200"}')).toBe(
      1,
    );
    expect(sample(text, 'claim_hold_http_requests_total{method="GET",route="/login",status="404"}')).toBe(1);
  });
});
