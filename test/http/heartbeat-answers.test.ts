// The heartbeat route's answers, byte for byte (minus Date), for a table of good and bad requests sent as raw HTTP.
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHeartbeatRoute } from "../../src/http/heartbeat-route.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { type GitHubSimulator, startGitHubSimulator } from "../../tools/github-sim/index.js";
import { installationId, repo, repoId, seedWorld } from "../faults/support/world.js";
import { type AppHarness, startApp, testAppPrivateKey, testWebhookSecret } from "../support/app-harness.js";
import { minute, type SeededClaim, seedAgentClaim } from "../support/seed-claims.js";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const fixture = new URL("../fixtures/heartbeat-answers.json", import.meta.url);
const widgets = { installationId, repoId };

let sim: GitHubSimulator;
let app: AppHarness;
let live: SeededClaim;
let superseded: SeededClaim;

beforeAll(async () => {
  sim = await startGitHubSimulator({
    appKey: testAppPrivateKey(),
    webhookSecret: testWebhookSecret,
    appId: 1,
  });
  const stores = createMemoryStores({ now: () => T0 });
  // One trusted hop: the transports' comparison below gives each its own client address (X-Forwarded-For).
  app = await startApp({ stores, githubBaseUrl: sim.baseUrl, now: T0, trustProxyHops: 1 });
  sim.configureWebhooks({ url: `${app.url}/api/github/webhooks` });
  seedWorld(sim);
  await sim.flush();
  const actor = (sessionId: string) => ({ login: "fleet-bot", runtime: "codex", sessionId });
  live = await seedAgentClaim(stores, {
    key: { ...widgets, issue: 1 },
    repo,
    actor: actor("s-1"),
    now: T0 - minute,
  });
  superseded = await seedAgentClaim(stores, {
    key: { ...widgets, issue: 2 },
    repo,
    actor: actor("s-2"),
    now: T0 - 70 * minute,
  });
  await seedAgentClaim(stores, {
    key: { ...widgets, issue: 2 },
    repo,
    actor: actor("s-3"),
    now: T0 - minute,
    takeover: true,
  });
});
afterAll(async () => {
  await app?.close();
  await sim?.close();
});

/** One request as raw bytes on its own connection; the whole answer back, its Date header left out. */
function exchange(request: string | Buffer): Promise<string> {
  const { port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () =>
      resolve(
        Buffer.concat(chunks)
          .toString("latin1")
          .replace(/\r\nDate: [^\r]*/i, ""),
      ),
    );
    // Not half-closed: the server ends the connection after its answer (Connection: close).
    socket.write(request);
  });
}

interface Case {
  name: string;
  path?: (lease: { live: string; superseded: string }) => string;
  headers: (tokens: { live: string; superseded: string }) => string[];
  body?: string | Buffer;
  /** Send the body chunked instead of with a Content-Length. */
  chunked?: boolean;
  /** A Content-Length to claim instead of the body's. */
  contentLength?: number;
}

const json = "Content-Type: application/json";
const bearer = (token: string) => `Authorization: Bearer ${token}`;
const big = `{"phase":"${"x".repeat(64 * 1024)}"}`;

const cases: Case[] = [
  { name: "an empty JSON object", headers: (t) => [bearer(t.live), json], body: "{}" },
  { name: "no body and no media type", headers: (t) => [bearer(t.live)] },
  { name: "a blank body and no media type", headers: (t) => [bearer(t.live)], body: " \r\n\t" },
  {
    name: "every field",
    headers: (t) => [bearer(t.live), json],
    body: JSON.stringify({
      phase: "testing",
      pullRequest: 12,
      blocker: "review",
      waitUntil: "2026-11-29T11:00:00Z",
    }),
  },
  {
    name: "a byte-order mark before the JSON",
    headers: (t) => [bearer(t.live), json],
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"phase":"bom"}')]),
  },
  {
    name: "JSON with a charset",
    headers: (t) => [bearer(t.live), "Content-Type: application/json; charset=utf-8"],
    body: "{}",
  },
  { name: "GitHub's token scheme", headers: (t) => [`Authorization: token ${t.live}`, json], body: "{}" },
  {
    name: "a query string",
    path: (l) => `/api/v1/leases/${l.live}/heartbeat?debug=1`,
    headers: (t) => [bearer(t.live), json],
    body: "{}",
  },
  {
    name: "a chunked body",
    headers: (t) => [bearer(t.live), json],
    body: '{"phase":"chunked"}',
    chunked: true,
  },
  {
    name: "invalid UTF-8 in a field",
    headers: (t) => [bearer(t.live), json],
    body: Buffer.from([0x7b, 0x22, 0x70, 0x68, 0x61, 0x73, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  },
  { name: "text/plain", headers: (t) => [bearer(t.live), "Content-Type: text/plain"], body: "{}" },
  { name: "JSON without a media type", headers: (t) => [bearer(t.live)], body: "{}" },
  {
    name: "a JSON prefix of another media type",
    headers: (t) => [bearer(t.live), "Content-Type: application/jsonp"],
    body: "{}",
  },
  {
    name: "two media types, JSON first",
    headers: (t) => [bearer(t.live), json, "Content-Type: text/plain"],
    body: "{}",
  },
  {
    name: "two media types, JSON second",
    headers: (t) => [bearer(t.live), "Content-Type: text/plain", json],
    body: "{}",
  },
  { name: "broken JSON", headers: (t) => [bearer(t.live), json], body: '{"phase":' },
  { name: "a JSON array", headers: (t) => [bearer(t.live), json], body: "[]" },
  { name: "JSON null", headers: (t) => [bearer(t.live), json], body: "null" },
  { name: "an unknown field", headers: (t) => [bearer(t.live), json], body: '{"phase":"x","colour":"red"}' },
  { name: "a field of the wrong type", headers: (t) => [bearer(t.live), json], body: '{"pullRequest":"12"}' },
  { name: "an empty phase", headers: (t) => [bearer(t.live), json], body: '{"phase":""}' },
  { name: "a bad waitUntil", headers: (t) => [bearer(t.live), json], body: '{"waitUntil":"tomorrow"}' },
  { name: "a bad body and no credential (the body is read first)", headers: () => [json], body: "{" },
  { name: "over 64 KiB with a Content-Length", headers: (t) => [bearer(t.live), json], body: big },
  {
    name: "over 64 KiB claimed, nothing sent",
    headers: (t) => [bearer(t.live), json],
    body: "",
    contentLength: 64 * 1024 + 1,
  },
  {
    name: "exactly 64 KiB of broken JSON",
    headers: (t) => [bearer(t.live), json],
    body: "x".repeat(64 * 1024),
  },
  { name: "over 64 KiB chunked", headers: (t) => [bearer(t.live), json], body: big, chunked: true },
  {
    name: "a superseded lease",
    path: (l) => `/api/v1/leases/${l.superseded}/heartbeat`,
    headers: (t) => [bearer(t.superseded), json],
    body: "{}",
  },
  { name: "two credentials", headers: (t) => [bearer(t.live), bearer(t.live), json], body: "{}" },
  {
    name: "a credential with a space",
    headers: (t) => [`Authorization: Bearer ${t.live} x`, json],
    body: "{}",
  },
  {
    name: "lower-case bearer",
    headers: (t) => [`authorization: bearer ${t.live}`, "content-type: application/json"],
    body: "{}",
  },
  {
    name: "the wrong method",
    headers: (t) => [bearer(t.live), json],
    body: "{}",
    path: (l) => `/api/v1/leases/${l.live}/heartbeat/`,
  },
  {
    name: "an encoded lease id",
    path: (l) => `/api/v1/leases/${encodeURIComponent(l.live).replaceAll(".", "%2E")}/heartbeat`,
    headers: (t) => [bearer(t.live), json],
    body: "{}",
  },
  // Failed authentications from here on: the limiter counts them, the 21st is refused with Retry-After.
  { name: "no credential", headers: () => [json], body: "{}" },
  { name: "a GitHub token", headers: () => ["Authorization: Bearer ghp_notalease", json], body: "{}" },
  { name: "the wrong lease token", headers: (t) => [bearer(t.superseded), json], body: "{}" },
  {
    name: "a lease nobody holds",
    path: () => `/api/v1/leases/${installationId}.${repoId}.99.1/heartbeat`,
    headers: (t) => [bearer(t.live), json],
    body: "{}",
  },
  {
    name: "a lease id that is no lease id",
    path: () => "/api/v1/leases/nonsense/heartbeat",
    headers: (t) => [bearer(t.live), json],
    body: "{}",
  },
  ...Array.from(
    { length: 16 },
    (_, i): Case => ({
      name: `failure ${i + 5}`,
      headers: () => ["Authorization: Bearer clh_wrong", json],
      body: "{}",
    }),
  ),
  { name: "failure 21: limited", headers: () => ["Authorization: Bearer clh_wrong", json], body: "{}" },
  { name: "no credential while limited", headers: () => [json], body: "{}" },
  {
    name: "a lease nobody holds while limited",
    path: () => `/api/v1/leases/${installationId}.${repoId}.99.1/heartbeat`,
    headers: (t) => [bearer(t.live), json],
    body: "{}",
  },
  { name: "the right token while limited", headers: (t) => [bearer(t.live), json], body: "{}" },
];

/** The request of a case; `host` and `extra` headers as the transports' comparison sends them. */
function requestOf(c: Case, host = "127.0.0.1", extra: string[] = []): Buffer {
  const leases = { live: live.leaseId, superseded: superseded.leaseId };
  const tokens = { live: live.token, superseded: superseded.token };
  const path = c.path?.(leases) ?? `/api/v1/leases/${leases.live}/heartbeat`;
  const body = c.body === undefined ? Buffer.alloc(0) : Buffer.from(c.body);
  const lines = [
    `POST ${path} HTTP/1.1`,
    `Host: ${host}`,
    "Connection: close",
    ...c.headers(tokens),
    ...extra,
  ];
  if (c.chunked) {
    lines.push("Transfer-Encoding: chunked");
    const chunks: Buffer[] = [];
    for (let at = 0; at < body.length; at += 1000) {
      const part = body.subarray(at, at + 1000);
      chunks.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n"));
    }
    return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), ...chunks, Buffer.from("0\r\n\r\n")]);
  }
  if (c.body !== undefined || c.contentLength !== undefined)
    lines.push(`Content-Length: ${c.contentLength ?? body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), body]);
}

describe("POST /api/v1/leases/:leaseId/heartbeat", () => {
  it("answers every request of the table exactly as recorded", async () => {
    const answers: Record<string, string> = {};
    for (const c of cases) answers[c.name] = await exchange(requestOf(c));
    if (process.env.RECORD_HEARTBEAT_ANSWERS) writeFileSync(fixture, `${JSON.stringify(answers, null, 2)}\n`);
    const recorded = JSON.parse(readFileSync(fixture, "utf8")) as Record<string, string>;
    expect(answers).toStrictEqual(recorded);
  });
});

describe("the heartbeat's two transports", () => {
  // A Host with a port @hono/node-server parses a URL for: the node:http route leaves the request to Hono.
  const honoHost = "127.0.0.1:80";

  it("are told apart by that Host: the node:http route declines it", () => {
    const route = createHeartbeatRoute({ core: {} as never, auth: {} as never, log: {} as never });
    const request = {
      method: "POST",
      url: `/api/v1/leases/${live.leaseId}/heartbeat`,
      headers: { host: honoHost },
    };
    expect(route(request as never, {} as never)).toBe(false);
  });

  it("answer every request of the table byte for byte alike (node:http's route and Hono's)", async () => {
    // Each transport fails authentications from its own address, so both meet the limit at the same row.
    const fast: Record<string, string> = {};
    const hono: Record<string, string> = {};
    for (const c of cases) {
      fast[c.name] = await exchange(requestOf(c, "127.0.0.1", ["X-Forwarded-For: 10.0.0.1"]));
      hono[c.name] = await exchange(requestOf(c, honoHost, ["X-Forwarded-For: 10.0.0.2"]));
    }
    expect(hono).toStrictEqual(fast);
    const recorded = JSON.parse(readFileSync(fixture, "utf8")) as Record<string, string>;
    // The table's answers: a live lease's as recorded (its state moved on since), every refusal exactly.
    for (const c of cases)
      if (!recorded[c.name]!.startsWith("HTTP/1.1 200")) expect(fast[c.name]).toBe(recorded[c.name]);
  });
});

describe("a heartbeat whose client goes away mid-body", () => {
  it("is not answered nor logged as an error, and the next heartbeat is answered", async () => {
    const { port } = new URL(app.url);
    const before = app.logs.length;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /api/v1/leases/${live.leaseId}/heartbeat HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer(live.token)}\r\n${json}\r\nContent-Length: 100\r\n\r\n{"pha`,
        );
        setImmediate(() => socket.destroy());
      });
      socket.on("error", reject);
      socket.on("close", () => resolve());
    });
    const next = await fetch(`${app.url}/api/v1/leases/${live.leaseId}/heartbeat`, {
      method: "POST",
      headers: { authorization: `Bearer ${live.token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(next.status).toBe(200);
    expect(app.logs.slice(before).filter((line) => line.includes('"level":50'))).toStrictEqual([]);
  });
});
