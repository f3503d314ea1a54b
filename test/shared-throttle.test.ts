// The GitHub rate limiter shared through Redis: its keys carry one hash tag, and losing them breaks no GitHub call.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { Redis } from "ioredis";
import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
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
  const runId = `test-${randomBytes(4).toString("hex")}`;
  const limiterKeys = () => redis.keys(`b_*${throttleKeyTag}:${runId}*`);

  beforeAll(async () => {
    redis = await createTestRedis({ enableOfflineQueue: true });
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
    await redis?.quit();
  });

  it("keeps the limiter in Redis under one hash tag and rebuilds it after its keys are flushed", async () => {
    const log = createLogger({ level: "silent" });
    const connection = createThrottleConnection(new Redis(redisUrl), log);
    const Octokit = withSharedThrottle(ProbotOctokit, connection);
    const octokit = new Octokit({ baseUrl, throttle: { id: runId } });

    expect((await octokit.request("GET /ping")).data).toStrictEqual({ ok: true });
    const keys = await limiterKeys();
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toContain(`claim-hold${throttleKeyTag}:${runId}`);

    // A flush (or an empty restart) takes the limiter's settings away: the next call must still work.
    await redis.unlink(...keys);
    expect((await octokit.request("GET /ping")).data).toStrictEqual({ ok: true });
    expect(requests).toBe(2);
    expect((await limiterKeys()).some((key) => key.endsWith("_settings"))).toBe(true);
    await connection.disconnect();
  });
});
