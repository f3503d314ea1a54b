// A heartbeat the lease core fails: node:http's route and Hono's answer it, and log it, alike (the request id included).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiHandler, createApi } from "../../src/http/create-api.js";
import { createFailedAuthLimiter } from "../../src/http/failed-auth-limiter.js";
import { createHeartbeatRoute } from "../../src/http/heartbeat-route.js";
import { createReadCache } from "../../src/http/read-cache.js";
import { createReadLimiter } from "../../src/http/read-limiter.js";
import { GitHubWriteError } from "../../src/providers/assignment-provider.js";
import { StoreUnavailableError } from "../../src/providers/liveness-store.js";
import { createMemoryRateLimits } from "../../src/providers/memory/memory-rate-limits.js";

const now = () => Date.parse("2026-11-29T10:00:00Z");
const lines: string[] = [];
const log = pino(
  { base: null, timestamp: false },
  new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  }),
);
/** What the core throws for the next heartbeat. */
let failure: Error = new Error("boom");
const core = {
  heartbeat: async () => {
    throw failure;
  },
} as never;

let server: Server;
let port: number;
beforeAll(async () => {
  const limiter = createFailedAuthLimiter({ now, limits: createMemoryRateLimits() });
  const app = createApi({
    core,
    identity: {} as never,
    limiter,
    reads: {
      cache: createReadCache({ now }),
      limiter: createReadLimiter({ limits: createMemoryRateLimits() }),
    },
    ready: async () => ({ ok: true, checks: {} }),
    log,
  });
  const heartbeat = createHeartbeatRoute({
    core,
    auth: {
      identity: {} as never,
      limiter,
      readLimiter: createReadLimiter({ limits: createMemoryRateLimits() }),
    },
    log,
  });
  const handler = apiHandler(app, (path) => path.startsWith("/api/"), [heartbeat]);
  server = createServer((req, res) => {
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** One heartbeat as raw bytes; the whole answer back (its Date left out) and the log lines it wrote. */
async function beat(host: string, extra: string[]): Promise<{ answer: string; logged: string[] }> {
  const before = lines.length;
  const request = [
    "POST /api/v1/leases/1.2.3.4/heartbeat HTTP/1.1",
    `Host: ${host}`,
    "Connection: close",
    "Authorization: Bearer clh_token",
    "Content-Type: application/json",
    "Content-Length: 2",
    ...extra,
  ].join("\r\n");
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
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
    socket.write(`${request}\r\n\r\n{}`);
  });
  return { answer, logged: lines.slice(before) };
}

// 127.0.0.1:80 makes @hono/node-server parse a URL: node:http's route leaves it to Hono.
const transports = { "node:http": "127.0.0.1:1234", Hono: "127.0.0.1:80" };

describe("a heartbeat the lease core fails", () => {
  const failures: [string, () => Error, RegExp][] = [
    ["an internal error", () => new Error("boom"), /^HTTP\/1.1 500 /],
    ["the store unavailable", () => new StoreUnavailableError(new Error("down")), /^HTTP\/1.1 503 /],
    ["GitHub failing", () => new GitHubWriteError("assign failed", 502), /^HTTP\/1.1 502 /],
  ];
  it.each(failures)("is answered and logged alike by both transports: %s", async (_name, make, status) => {
    const seen: Record<string, { answer: string; logged: string[] }> = {};
    // One error for both, so that even its logged stack is the same.
    failure = make();
    for (const [name, host] of Object.entries(transports)) {
      seen[name] = await beat(host, ["X-Request-Id: req-7"]);
    }
    const [fast, hono] = [seen["node:http"]!, seen.Hono!];
    expect(fast.answer).toMatch(status);
    expect(hono).toStrictEqual(fast);
    expect(fast.logged).toHaveLength(1);
    expect(JSON.parse(fast.logged[0]!)).toMatchObject({ level: 50, requestId: "req-7" });
  });

  it("names a fresh request id in a 500's body and its log line when none was sent", async () => {
    failure = new Error("boom");
    for (const host of Object.values(transports)) {
      const { answer, logged } = await beat(host, []);
      const id = /Internal error \(request ([0-9a-f-]{36})\)/.exec(answer)?.[1];
      expect(id).toBeDefined();
      expect(JSON.parse(logged[0]!)).toMatchObject({ level: 50, requestId: id });
    }
  });
});
