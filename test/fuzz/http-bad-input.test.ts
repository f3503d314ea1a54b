// A bad-input corpus against the real App over HTTP: every answer is a clean 4xx, and nothing changes in the store or on GitHub.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { type GitHubSimulator, startGitHubSimulator } from "../../tools/github-sim/index.js";
import { fleetToken, installationId, repo, repoId, seedWorld } from "../faults/support/world.js";
import {
  type AppHarness,
  startApp,
  testAdminToken,
  testAppPrivateKey,
  testWebhookSecret,
} from "../support/app-harness.js";

let sim: GitHubSimulator;
let app: AppHarness;
let stores: Stores;

beforeAll(async () => {
  sim = await startGitHubSimulator({
    appKey: testAppPrivateKey(),
    webhookSecret: testWebhookSecret,
    appId: 1,
  });
  stores = createMemoryStores();
  app = await startApp({ stores, githubBaseUrl: sim.baseUrl, now: Date.now(), adminToken: testAdminToken });
  sim.configureWebhooks({ url: `${app.url}/api/github/webhooks` });
  seedWorld(sim);
  await sim.flush();
});
afterAll(async () => {
  await app?.close();
  await sim?.close();
});

const claimBody = JSON.stringify({ repo, issue: 1, actor: { sessionId: "s" } });
const lease = `${installationId}.${repoId}.1.1`;
const auth = { authorization: `Bearer ${fleetToken}` };
const json = { "content-type": "application/json" };

type Case = [name: string, path: string, init: RequestInit, expected: number[]];
const corpus: Case[] = [
  ["GET on the claim route", "/api/v1/claims", { method: "GET", headers: auth }, [404, 405]],
  [
    "PUT on the claim route",
    "/api/v1/claims",
    { method: "PUT", headers: { ...auth, ...json }, body: claimBody },
    [404, 405],
  ],
  ["DELETE on a lease", `/api/v1/leases/${lease}`, { method: "DELETE", headers: auth }, [404, 405]],
  [
    "text/plain body",
    "/api/v1/claims",
    { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: claimBody },
    [415],
  ],
  [
    "form body",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      body: "repo=octo/widgets",
    },
    [415],
  ],
  ["no content type", "/api/v1/claims", { method: "POST", headers: auth, body: claimBody }, [415]],
  [
    "truncated JSON",
    "/api/v1/claims",
    { method: "POST", headers: { ...auth, ...json }, body: claimBody.slice(0, 20) },
    [400],
  ],
  [
    "JSON that is not an object",
    "/api/v1/claims",
    { method: "POST", headers: { ...auth, ...json }, body: "[1,2,3]" },
    [422],
  ],
  ["null body", "/api/v1/claims", { method: "POST", headers: { ...auth, ...json }, body: "null" }, [422]],
  [
    "__proto__ key",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, ...json },
      body: `{"__proto__":{"admin":true},${claimBody.slice(1)}`,
    },
    [422],
  ],
  [
    "constructor key",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, ...json },
      body: `{"constructor":{"prototype":{"admin":true}},${claimBody.slice(1)}`,
    },
    [422],
  ],
  [
    "nested __proto__ in actor",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify({ repo, issue: 1, actor: JSON.parse('{"sessionId":"s","__proto__":{"x":1}}') }),
    },
    [422],
  ],
  [
    "invalid UTF-8",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, ...json },
      body: Buffer.concat([
        Buffer.from('{"repo":"'),
        Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
        Buffer.from('","issue":1,"actor":{"sessionId":"s"}}'),
      ]),
    },
    [422],
  ],
  [
    "10 MB body",
    "/api/v1/claims",
    { method: "POST", headers: { ...auth, ...json }, body: `{"repo":"${"x".repeat(10 * 1024 * 1024)}"}` },
    [413],
  ],
  [
    "10 MB heartbeat",
    `/api/v1/leases/${lease}/heartbeat`,
    {
      method: "POST",
      headers: { authorization: `Bearer clh_${"a".repeat(43)}`, ...json },
      body: "x".repeat(10 * 1024 * 1024),
    },
    [413],
  ],
  [
    "negative issue",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify({ repo, issue: -1, actor: { sessionId: "s" } }),
    },
    [422],
  ],
  [
    "huge issue number",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify({ repo, issue: 1e300, actor: { sessionId: "s" } }),
    },
    [422],
  ],
  [
    "path traversal repo",
    "/api/v1/claims",
    {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify({ repo: "../../etc", issue: 1, actor: { sessionId: "s" } }),
    },
    [422],
  ],
  [
    "lease id garbage",
    "/api/v1/leases/..%2F..%2Fadmin/heartbeat",
    { method: "POST", headers: { authorization: `Bearer clh_${"a".repeat(43)}` } },
    [404],
  ],
  [
    "lease token of the wrong shape",
    `/api/v1/leases/${lease}`,
    { method: "GET", headers: { authorization: "Bearer not-a-lease-token" } },
    [401],
  ],
  [
    "authorization header of 10 KB",
    "/api/v1/claims",
    { method: "POST", headers: { authorization: `Bearer ${"g".repeat(10_000)}`, ...json }, body: claimBody },
    [401],
  ],
  [
    "admin route with a wrong token",
    "/api/v1/admin/janitor/run",
    { method: "POST", headers: { authorization: "Bearer wrong", ...json }, body: "{}" },
    [401],
  ],
  [
    "webhook without signature",
    "/api/github/webhooks",
    {
      method: "POST",
      headers: { ...json, "x-github-event": "issues", "x-github-delivery": "d1" },
      body: "{}",
    },
    [400, 401],
  ],
  [
    "webhook with a forged signature",
    "/api/github/webhooks",
    {
      method: "POST",
      headers: {
        ...json,
        "x-github-event": "issues",
        "x-github-delivery": "d2",
        "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
      },
      body: JSON.stringify({ action: "closed", issue: { number: 1 }, installation: { id: installationId } }),
    },
    [400, 401],
  ],
  [
    "webhook as text/plain",
    "/api/github/webhooks",
    {
      method: "POST",
      headers: {
        "content-type": "text/plain",
        "x-github-event": "issues",
        "x-github-delivery": "d3",
        "x-hub-signature-256": "sha256=00",
      },
      body: "{}",
    },
    [400, 401, 415],
  ],
];

describe("the HTTP bad-input corpus", () => {
  it.each(corpus)("%s → a clean 4xx, nothing changed", async (_name, path, init, expected) => {
    const mark = sim.requests.mark();
    const response = await fetch(`${app.url}${path}`, init);
    const text = await response.text();
    expect(expected).toContain(response.status);
    if (path.startsWith("/api/v1/")) {
      const body = JSON.parse(text) as { error: string; message: string };
      expect(typeof body.error).toBe("string");
      expect(typeof body.message).toBe("string");
      expect(text.length).toBeLessThan(2_000);
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(await stores.index.listRepository(installationId, repoId, 10)).toEqual([]);
    const writes = sim.requests
      .since(mark)
      .filter(
        (r) =>
          r.operationType === "mutation" ||
          (!r.route.endsWith("/graphql") && r.method !== "GET" && !r.path.includes("access_tokens")),
      );
    expect(writes).toEqual([]);
  });

  it("headers larger than the server allows are refused with 431", async () => {
    const response = await fetch(`${app.url}/healthz`, { headers: { "x-padding": "p".repeat(20_000) } });
    expect(response.status).toBe(431);
  });

  it("a slow, never-finished body holds only its own connection: the server keeps answering others", async () => {
    const { port } = new URL(app.url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST /api/v1/claims HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n${"Authorization"}: Bearer ${fleetToken}\r\n\r\n{"repo":`,
    );
    const dribble = setInterval(() => socket.write(" "), 50);
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => fetch(`${app.url}/healthz`).then((r) => r.status)),
      );
      expect(answers).toEqual([200, 200, 200, 200, 200]);
    } finally {
      clearInterval(dribble);
      socket.destroy();
    }
    expect(await stores.index.listRepository(installationId, repoId, 10)).toEqual([]);
  });
});
