// The read and failed-auth limits counted in Redis (docs/deploy.md#5-scale-out): two replicas share one count, and an outage falls back to memory.
import type { Redis } from "ioredis";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { createReadLimiter } from "../src/http/read-limiter.js";
import { createRedisClient } from "../src/providers/create-store.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { createRedisRateLimits } from "../src/providers/redis/redis-rate-limits.js";
import { type PrivateRedis, startPrivateRedis } from "../tools/local-stack/start-private-redis.js";
import { type AppHarness, startApp } from "./support/app-harness.js";
import {
  agent,
  agentToken,
  GitHubRequestLog,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetRepoInstallation,
  nockGetUser,
  nockNoConfigFile,
  nockOpenIssues,
} from "./support/github-fake/index.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const repoId = 1296269;
/** The failed-auth limit's threshold (the App's default). */
const maxFailures = 20;

/** What a test started, stopped in reverse order after it. */
const started: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const stop of started.splice(0).reverse()) await stop();
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

/** A replica: its own connection to Redis, its own memory for claims, the limits on `keyPrefix`. */
async function replica(keyPrefix: string, options: { readsPerMinute?: number } = {}): Promise<AppHarness> {
  const connection = await createTestRedis();
  const app = await startApp({
    stores: createMemoryStores(),
    limits: createRedisRateLimits({ redis: connection, keyPrefix }),
    ...options,
  });
  started.push(async () => {
    await app.close();
    connection.disconnect();
  });
  return app;
}

/** A heartbeat with a credential that is no lease token: a failed authentication, nothing else. */
async function badHeartbeat(app: AppHarness): Promise<number> {
  const response = await fetch(`${app.url}/api/v1/leases/42.1296269.12.1/heartbeat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer not-a-lease-token" },
    body: "{}",
  });
  await response.arrayBuffer();
  return response.status;
}

async function readClaims(app: AppHarness): Promise<{ status: number; retryAfter: string | null }> {
  const response = await fetch(`${app.url}/api/v1/repos/${repo}/claims`, {
    headers: { authorization: `Bearer ${agentToken}` },
  });
  await response.arrayBuffer();
  return { status: response.status, retryAfter: response.headers.get("retry-after") };
}

describe.skipIf(!redisProbe.available)("two replicas on one Redis prefix count one limit", () => {
  async function sharedPrefix(label: string): Promise<string> {
    const keyPrefix = uniqueKeyPrefix(label);
    const cleaner = await createTestRedis();
    started.push(async () => {
      await deleteKeysWithPrefix(cleaner, keyPrefix);
      cleaner.disconnect();
    });
    return keyPrefix;
  }

  it("20 failed authentications split over both limit the address on both", async () => {
    const keyPrefix = await sharedPrefix("fleet-auth");
    const a = await replica(keyPrefix);
    const b = await replica(keyPrefix);
    const statuses: number[] = [];
    for (let n = 0; n < maxFailures; n++) statuses.push(await badHeartbeat(n % 2 === 0 ? a : b));
    expect(statuses).toEqual(Array(maxFailures).fill(401));
    // Per replica each would have allowed 20: together they allowed 20.
    expect([await badHeartbeat(a), await badHeartbeat(b)]).toEqual([429, 429]);
  });

  it("a read limit of 4 a minute: four reads spread over both pass, the next is 429 on either", async () => {
    const keyPrefix = await sharedPrefix("fleet-reads");
    const a = await replica(keyPrefix, { readsPerMinute: 4 });
    const b = await replica(keyPrefix, { readsPerMinute: 4 });
    const github = new GitHubRequestLog();
    // Each replica reads GitHub once (its own identity and answer caches), then answers from them.
    for (let n = 0; n < 2; n++) {
      nockGetUser(github, agentToken, agent);
      nockGetCollaboratorPermission(github, repo, agent.login, "read");
      nockGetRepoInstallation(github, repo);
      nockCreateInstallationToken(github);
      nockNoConfigFile(github, repo);
      nockOpenIssues(github, repo, repoId, []);
    }
    const answers = [];
    for (const app of [a, b, a, b]) answers.push((await readClaims(app)).status);
    expect(answers).toEqual([200, 200, 200, 200]);
    const mark = github.count();
    for (const app of [a, b]) {
      const refused = await readClaims(app);
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(59);
    }
    expect(github.count()).toBe(mark);
  });
});

describe("a Redis outage", () => {
  let server: PrivateRedis;

  async function limitsOnPrivateRedis() {
    server = await startPrivateRedis();
    // The App's own client settings: no offline queue, one retry, a 2 s command timeout.
    const client = createRedisClient(server.url) as Redis;
    client.on("error", () => undefined);
    started.push(async () => {
      client.disconnect();
      await server.stop();
    });
    // Until the client is ready the limits count in memory (`rejectIfRedisNotReady`): start on Redis.
    if (client.status !== "ready") await new Promise((resolve) => client.once("ready", resolve));
    const outages: number[] = [];
    const keyPrefix = "claim-hold:";
    const limits = createRedisRateLimits({
      redis: client,
      keyPrefix,
      onOutage: () => outages.push(1),
    });
    return { client, keyPrefix, limits, outages };
  }

  it("falls back to counting in the replica's memory: invalid credentials still get 401, then 429, never 500", async () => {
    const { limits, outages } = await limitsOnPrivateRedis();
    const app = await startApp({ stores: createMemoryStores(), limits });
    started.push(() => app.close());
    const before: number[] = [];
    for (let n = 0; n < 5; n++) before.push(await badHeartbeat(app));
    expect(before).toEqual(Array(5).fill(401));
    const keys = (await server.command("KEYS", "claim-hold:limit:failed-auth:*")) as string[];
    expect(keys).toHaveLength(1);
    expect(await server.command("GET", keys[0]!)).toBe("5");
    expect(outages).toEqual([]);

    await server.kill();
    const during: number[] = [];
    for (let n = 0; n < maxFailures + 1; n++) during.push(await badHeartbeat(app));
    // The insurance limiter did not see the 5 counted in Redis: this replica alone allows 20 more.
    expect(during).toEqual([...Array(maxFailures).fill(401), 429]);
    expect(outages.length).toBeGreaterThan(0);
  });

  it("keeps the read limit from memory, answering within the limit at once rather than after a timeout", async () => {
    const { limits } = await limitsOnPrivateRedis();
    const limiter = createReadLimiter({ limits, perMinute: 2 });
    expect(await limiter.take("inventory", "fleet-bot")).toBe(0);
    await server.kill();
    const startedAt = performance.now();
    expect([
      await limiter.take("inventory", "fleet-bot"),
      await limiter.take("inventory", "fleet-bot"),
    ]).toEqual([0, 0]);
    expect(await limiter.take("inventory", "fleet-bot")).toBeGreaterThanOrEqual(59);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});
