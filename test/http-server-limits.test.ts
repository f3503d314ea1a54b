// The App process's HTTP limits: slow clients are cut off at the request and header timeouts, big headers get 431, SIGTERM exits 0.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../src/config/env.js";
import { httpServerLimits } from "../src/start-app-server.js";
import { freePort, testAppPrivateKey, testTokenSecret, testWebhookSecret } from "./support/app-harness.js";

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

describe("httpServerLimits", () => {
  it.each([
    [undefined, { requestTimeout: 30_000, headersTimeout: 20_000, connectionsCheckingInterval: 5_000 }],
    [4_000, { requestTimeout: 4_000, headersTimeout: 2_666, connectionsCheckingInterval: 666 }],
    [1_000, { requestTimeout: 1_000, headersTimeout: 666, connectionsCheckingInterval: 166 }],
    [300_000, { requestTimeout: 300_000, headersTimeout: 20_000, connectionsCheckingInterval: 5_000 }],
  ])("a request timeout of %s ms gives %o, headers always first, 16 KiB of headers", (timeout, expected) => {
    expect(httpServerLimits(timeout)).toEqual({ ...expected, maxHeaderSize: 16_384, maxConnections: 10_000 });
  });

  it.each(["999", "300001", "1.5", "soon"])(
    "CLAIM_HOLD_REQUEST_TIMEOUT_MS=%s is refused at start-up",
    (value) => {
      expect(() => parseEnv({ CLAIM_HOLD_REQUEST_TIMEOUT_MS: value })).toThrow(EnvError);
    },
  );

  it.each(["9", "1000001", "many"])("CLAIM_HOLD_MAX_CONNECTIONS=%s is refused at start-up", (value) => {
    expect(() => parseEnv({ CLAIM_HOLD_MAX_CONNECTIONS: value })).toThrow(EnvError);
  });
});

/** Starts `src/main.ts` with fake credentials and no Redis; resolves once `/healthz` answers. */
async function startMain(
  env: Record<string, string>,
): Promise<{ port: number; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "test",
      APP_ID: "1",
      PRIVATE_KEY: testAppPrivateKey(),
      WEBHOOK_SECRET: testWebhookSecret,
      CLAIM_HOLD_TOKEN_SECRET: testTokenSecret,
      // Nothing here should reach GitHub; if something did, it would find no one at this address.
      GHE_HOST: "127.0.0.1:9",
      GHE_PROTOCOL: "http",
      HOST: "127.0.0.1",
      PORT: String(port),
      CLAIM_HOLD_DISABLE_JOBS: "janitor",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  cleanup.push(() => child.kill("SIGKILL"));
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { port, child, output: () => output };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the App process did not start:\n${output}`);
}

/**
 * A slow-loris client: writes `head` at once, then `drip` every 200 ms, never finishing. Resolves with
 * what the server answered and how long after connecting it hung up.
 */
async function slowClient(
  port: number,
  head: string,
  drip: string,
): Promise<{ answer: string; afterMs: number }> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined); // a drip written as the server hangs up
  cleanup.push(() => socket.destroy());
  await once(socket, "connect");
  const started = Date.now();
  let answer = "";
  socket.on("data", (chunk) => {
    answer += chunk;
  });
  socket.write(head);
  const dribble = setInterval(() => {
    if (socket.writable) socket.write(drip);
  }, 200);
  try {
    await once(socket, "close");
  } finally {
    clearInterval(dribble);
  }
  return { answer, afterMs: Date.now() - started };
}

/** Sends a request whose headers pass the 16 KiB limit in one write; reports the answer or the socket error. */
async function oversizedHeaders(port: number): Promise<{ answer: string; error?: string }> {
  const socket = connect(port, "127.0.0.1");
  cleanup.push(() => socket.destroy());
  let answer = "";
  let error: string | undefined;
  socket.on("data", (chunk) => {
    answer += chunk;
  });
  socket.on("error", (e: NodeJS.ErrnoException) => {
    error = e.code;
  });
  await once(socket, "connect");
  socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${"p".repeat(20_000)}\r\n\r\n`);
  await once(socket, "close");
  return { answer, ...(error ? { error } : {}) };
}

describe("the App process (node --import tsx src/main.ts)", () => {
  it("cuts off a slow body at the request timeout and slow headers at the header timeout, keeps serving others, refuses 20 KB of headers, and exits 0 on SIGTERM", {
    timeout: 30_000,
  }, async () => {
    // 4 s for a request, 2.67 s for its headers, checked every 0.67 s (production: 30 s, 20 s, 5 s).
    const { port, child, output } = await startMain({ CLAIM_HOLD_REQUEST_TIMEOUT_MS: "4000" });
    const url = `http://127.0.0.1:${port}`;
    const slowBody = slowClient(
      port,
      "POST /api/v1/claims HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        'Content-Length: 1000\r\nAuthorization: Bearer ghp_slow\r\n\r\n{"repo":',
      " ",
    );
    const slowHeaders = slowClient(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n");
    const others = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${url}/healthz`).then((r) => r.status)),
    );
    expect(others).toEqual([200, 200, 200, 200, 200]);

    const headers = await slowHeaders;
    expect(headers.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(headers.afterMs).toBeGreaterThanOrEqual(2_600);
    // Upper bounds leave room for a loaded CI machine; Node's defaults would be 60 s and 300 s.
    expect(headers.afterMs).toBeLessThan(8_000);
    const body = await slowBody;
    expect(body.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(body.afterMs).toBeGreaterThanOrEqual(3_900);
    expect(body.afterMs).toBeLessThan(10_000);

    // The server answers 431 and hangs up; a client still writing its headers may see the reset first.
    const big = await oversizedHeaders(port);
    expect(big.answer.startsWith("HTTP/1.1 431 ") || big.error === "ECONNRESET", JSON.stringify(big)).toBe(
      true,
    );
    expect(big.answer).not.toMatch(/^HTTP\/1\.1 200 /);
    expect((await fetch(`${url}/healthz`)).status).toBe(200); // leaves an idle keep-alive connection

    const started = Date.now();
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    expect({ code, signal }, output()).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("closes connections past CLAIM_HOLD_MAX_CONNECTIONS as they arrive, while a heartbeat on an open connection keeps answering", {
    timeout: 30_000,
  }, async () => {
    const { port } = await startMain({ CLAIM_HOLD_MAX_CONNECTIONS: "20" });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanup.push(() => agent.destroy());
    const heartbeat = () =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            agent,
            method: "POST",
            path: "/api/v1/leases/42.1.1.1/heartbeat",
            headers: { "content-type": "application/json" },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end("{}");
      });
    // The lease is unknown: an answer (not a dropped connection) is what counts here.
    // No credential: the route answers 401 at once (an answer, not a dropped connection, is what counts).
    expect(await heartbeat()).toBe(401);
    // 30 idle sockets that never send a byte: the server keeps 19 more, and closes the rest at once.
    const idle = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const socket = connect(port, "127.0.0.1");
        socket.on("error", () => undefined);
        cleanup.push(() => socket.destroy());
        await once(socket, "connect");
        return socket;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closed = idle.filter((socket) => socket.destroyed || socket.readyState === "closed");
    expect(closed.length).toBeGreaterThanOrEqual(10);
    expect(closed.length).toBeLessThan(30);
    expect(await heartbeat()).toBe(401);
    expect(await heartbeat()).toBe(401);
  });
});
