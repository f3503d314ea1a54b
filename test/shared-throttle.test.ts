// GitHub's write spacing shared through Redis: one script call per write under one hash tag, spaced across replicas, unharmed by losing its key or Redis, and never reached by GraphQL queries.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Redis } from "ioredis";
import pino from "pino";
import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createClaimHoldOctokit } from "../src/providers/github/claim-hold-octokit.js";
import {
  createSharedThrottle,
  type SharedThrottle,
  throttleKeyTag,
  withSharedThrottle,
} from "../src/providers/github/shared-throttle.js";
import { createTestRedis, probeRedis, redisUrl } from "./support/redis.js";

const redisProbe = await probeRedis();

interface Arrival {
  route: string;
  /** When the fake GitHub received it (ms, this process's clock). */
  at: number;
}

/** A log that keeps its lines, to see what the throttle said. */
function capturedLog() {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

describe.skipIf(!redisProbe.available)("GitHub write spacing shared through Redis", () => {
  let redis: Redis;
  let monitorClient: Redis;
  let server: Server;
  let baseUrl = "";
  const arrivals: Arrival[] = [];
  const throttles: SharedThrottle[] = [];
  const runId = `test-${randomBytes(4).toString("hex")}`;
  const spacingKeys = () => redis.keys(`claim-hold${throttleKeyTag}:${runId}*`);
  /** A replica's throttle: its own Redis connection, as each App process has. */
  const replica = (client = new Redis(redisUrl, { enableOfflineQueue: true }), log = capturedLog().log) => {
    const throttle = createSharedThrottle(client, log);
    throttles.push(throttle);
    return throttle;
  };

  beforeAll(async () => {
    redis = await createTestRedis({ enableOfflineQueue: true });
    monitorClient = await createTestRedis({ enableOfflineQueue: true });
    server = createServer(async (req: IncomingMessage, res) => {
      for await (const _ of req);
      arrivals.push({ route: `${req.method} ${req.url}`, at: Date.now() });
      res.writeHead(200, { "content-type": "application/json", "x-ratelimit-remaining": "4999" });
      res.end(JSON.stringify({ data: { ok: true } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });

  afterAll(async () => {
    const keys = await spacingKeys();
    if (keys.length) await redis.unlink(...keys);
    server?.close();
    await Promise.all(throttles.map((throttle) => throttle.close()));
    await monitorClient?.quit();
    await redis?.quit();
  });

  it("spaces one installation's writes a second apart across two replicas, one script call each, under one hash tag", async () => {
    const id = `${runId}-replicas`;
    const [one, two] = [replica(), replica()].map((throttle) => {
      const Octokit = withSharedThrottle(ProbotOctokit, throttle);
      return new Octokit({ baseUrl, throttle: { id } });
    });
    const sent: string[][] = [];
    const monitor = await monitorClient.monitor();
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      if (source !== "lua" && args.some((arg) => arg.includes(id))) sent.push(args);
    });
    const before = arrivals.length;
    await Promise.all([
      one!.request("POST /write/1"),
      two!.request("POST /write/2"),
      one!.request("POST /write/3"),
    ]);
    monitor.disconnect();
    const times = arrivals
      .slice(before)
      .map((arrival) => arrival.at)
      .sort((a, b) => a - b);
    expect(times).toHaveLength(3);
    // Lower bounds only: a busy machine can only widen the gaps.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(950);
    // One script call per write (EVAL the first time a connection meets the script, EVALSHA after).
    expect(sent.map((args) => args[0]?.toLowerCase().replace("evalsha", "eval"))).toEqual([
      "eval",
      "eval",
      "eval",
    ]);
    expect(await spacingKeys()).toContain(`claim-hold${throttleKeyTag}:${id}:write`);
  });

  it("spaces installations apart: two installations' first writes go at once", async () => {
    const throttle = replica();
    const Octokit = withSharedThrottle(ProbotOctokit, throttle);
    const [one, two] = ["a", "b"].map(
      (name) => new Octokit({ baseUrl, throttle: { id: `${runId}-${name}` } }),
    );
    const started = Date.now();
    await Promise.all([one!.request("POST /write/a"), two!.request("POST /write/b")]);
    // Not a timing bound on the test: a second write of one installation could not have gone before a second.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("lets the next write go when the spacing key was flushed", async () => {
    const Octokit = withSharedThrottle(ProbotOctokit, replica());
    const octokit = new Octokit({ baseUrl, throttle: { id: `${runId}-flushed` } });
    await octokit.request("POST /write/before");
    const keys = await spacingKeys();
    expect(keys).toContain(`claim-hold${throttleKeyTag}:${runId}-flushed:write`);
    await redis.unlink(...keys);
    expect((await octokit.request("POST /write/after")).data).toStrictEqual({ data: { ok: true } });
  });

  it("keeps writing, spaced in the process, when Redis does not answer, and says so once", async () => {
    const printed = vi.spyOn(console, "error");
    // A client on a port nothing listens on: every script call fails within the client's retries.
    const deadRedis = new Redis({
      port: 1,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const { log, lines } = capturedLog();
    const Octokit = withSharedThrottle(ProbotOctokit, replica(deadRedis, log));
    const octokit = new Octokit({ baseUrl, throttle: { id: `${runId}-outage` } });
    const before = arrivals.length;
    await Promise.all([octokit.request("POST /write/x"), octokit.request("POST /write/y")]);
    const [first, second] = arrivals.slice(before).map((arrival) => arrival.at);
    expect(second! - first!).toBeGreaterThanOrEqual(950);
    expect(lines.filter((line) => /Redis did not answer/.test(line.msg))).toHaveLength(1);
    // The connection's errors reach no stderr print of their own: the one line above says it.
    expect(printed.mock.calls.filter((call) => String(call[0]).includes("Unhandled error event"))).toEqual(
      [],
    );
  });

  it("keeps a write it spaced alone during an outage in the spacing once Redis answers again", async () => {
    // Not connected yet and no offline queue: the first call fails at once, as during an outage.
    const client = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false });
    const { log, lines } = capturedLog();
    const Octokit = withSharedThrottle(ProbotOctokit, replica(client, log));
    const octokit = new Octokit({ baseUrl, throttle: { id: `${runId}-recovery` } });
    const before = arrivals.length;
    await octokit.request("POST /write/alone");
    // The failed call set the lazy client connecting: the next write goes once it is ready.
    if (client.status !== "ready") await new Promise((resolve) => client.once("ready", resolve));
    await octokit.request("POST /write/shared");
    const [alone, shared] = arrivals.slice(before).map((arrival) => arrival.at);
    expect(shared! - alone!).toBeGreaterThanOrEqual(950);
    expect(lines.map((line) => line.msg)).toEqual([
      "GitHub write spacing: Redis did not answer, spacing this process's writes alone",
      "GitHub write spacing: shared through Redis again",
    ]);
  });

  it("keeps GraphQL queries out of Redis; a mutation is spaced through it", async () => {
    // The App's client as production builds it with Redis.
    const id = `${runId}-reads`;
    const octokit = new (withSharedThrottle(createClaimHoldOctokit(), replica()))({
      baseUrl,
      throttle: { id },
    });
    await Promise.all([1, 2, 3].map((n) => octokit.graphql(`query Read${n} { viewer { login } }`)));
    expect(await redis.exists(`claim-hold${throttleKeyTag}:${id}:write`)).toBe(0);
    await octokit.graphql("mutation Write { addComment(input: {}) { clientMutationId } }");
    expect(await redis.exists(`claim-hold${throttleKeyTag}:${id}:write`)).toBe(1);
  });
});
