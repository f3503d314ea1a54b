// GitHub's write limiter shared through Redis: its keys carry one hash tag, losing them breaks no GitHub call, GraphQL queries never reach it, and the other limiters stay in the process.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { createClaimHoldOctokit } from "../src/providers/github/claim-hold-octokit.js";
import {
  createThrottleConnection,
  throttleKeyTag,
  withSharedThrottle,
} from "../src/providers/github/shared-throttle.js";
import { createTestRedis, probeRedis, redisUrl } from "./support/redis.js";

const redisProbe = await probeRedis();

describe.skipIf(!redisProbe.available)("shared GitHub throttling", () => {
  let redis: Redis;
  let server: Server;
  let baseUrl = "";
  let requests = 0;
  // One connection for the whole file: the throttling plugin builds its limiter groups once per
  // process, on the connection of the first client that sends a request.
  let connection: Bottleneck.IORedisConnection;
  const runId = `test-${randomBytes(4).toString("hex")}`;
  const limiterKeys = () => redis.keys(`b_*${throttleKeyTag}:${runId}*`);

  beforeAll(async () => {
    redis = await createTestRedis({ enableOfflineQueue: true });
    connection = createThrottleConnection(new Redis(redisUrl), createLogger({ level: "silent" }));
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { "content-type": "application/json", "x-ratelimit-remaining": "4999" });
      res.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });

  afterAll(async () => {
    const keys = await limiterKeys();
    if (keys.length) await redis.unlink(...keys);
    server?.close();
    await connection?.disconnect();
    await redis?.quit();
  });

  it("keeps the write limiter in Redis under one hash tag and rebuilds it after its keys are flushed", async () => {
    const Octokit = withSharedThrottle(ProbotOctokit, connection);
    const octokit = new Octokit({ baseUrl, throttle: { id: runId } });

    expect((await octokit.request("POST /ping")).data).toStrictEqual({ ok: true });
    const keys = await limiterKeys();
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toContain(`claim-hold${throttleKeyTag}:${runId}`);

    // A flush (or an empty restart) takes the limiter's settings away: the next call must still work.
    await redis.unlink(...keys);
    expect((await octokit.request("POST /ping")).data).toStrictEqual({ ok: true });
    expect(requests).toBe(2);
    expect((await limiterKeys()).some((key) => key.endsWith("_settings"))).toBe(true);
  });

  it("keeps GraphQL queries out of Redis; a mutation goes through the shared write limiter alone", async () => {
    // The App's client as production builds it with Redis.
    const Octokit = withSharedThrottle(createClaimHoldOctokit(), connection);
    const id = `${runId}-reads`;
    const octokit = new Octokit({ baseUrl, throttle: { id } });
    const limiterKeysOf = async (group: string) =>
      (await redis.keys(`b_octokit-${group}-claim-hold${throttleKeyTag}:${id}_*`)).length;
    const before = requests;

    await Promise.all([1, 2, 3].map((n) => octokit.graphql(`query Read${n} { viewer { login } }`)));
    expect(requests - before).toBe(3);
    expect(await limiterKeysOf("global")).toBe(0);
    expect(await limiterKeysOf("write")).toBe(0);

    await octokit.graphql("mutation Write { addComment(input: {}) { clientMutationId } }");
    expect(requests - before).toBe(4);
    expect(await limiterKeysOf("write")).toBeGreaterThan(0);
    // Every request's concurrency cap is per process: it keeps nothing in Redis.
    expect(await limiterKeysOf("global")).toBe(0);
  });
});
