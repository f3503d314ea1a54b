// Cross-repository links release 0.1.0 kept as documents are moved into the fence's store, so a takeover after the upgrade still re-runs those pull requests' checks.
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();

describe.skipIf(!redisProbe.available)("cross-link documents of release 0.1.0", () => {
  let redis: Redis;
  const prefix = uniqueKeyPrefix("xlinks-adopt");
  const subject = { installationId: 7, repoId: 1001, issue: 42 };
  const links = [
    { repo: "acme/other", repoId: 2002, number: 5 },
    { repo: "acme/third", repoId: 2003, number: 9 },
  ];

  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  });

  it("moves each document into the subject's cross links once, drops unreadable ones, and is safe to repeat", async () => {
    // Written as 0.1.0 wrote them: a document store entry per subject, with a 30-day time to live.
    const documents = createRedisStores({ redis, keyPrefix: prefix }).documents;
    await documents.putDocument("cross-links:7:1001:42", links, 30 * 24 * 3_600_000);
    await documents.putDocument("cross-links:7:1001:43", { not: "a list" }, 60_000);
    const fences = new RedisFenceStore({ redis, keyPrefix: prefix });
    // One link the new release learned already: kept, not doubled.
    await fences.rememberCrossLink(subject, links[1]!);

    expect(await fences.adoptCrossLinkDocuments()).toBe(1);
    expect(await fences.crossLinksOf(subject)).toEqual([links[1], links[0]]);
    expect(
      (await fences.recordClaim(subject, { generation: 1, actor: { kind: "human", login: "alice" } }))
        .crossLinks,
    ).toEqual([links[1], links[0]]);
    expect(await redis.keys(`${prefix}doc:cross-links:*`)).toEqual([]);
    expect(await fences.adoptCrossLinkDocuments()).toBe(0);
    expect(await fences.crossLinksOf({ ...subject, issue: 43 })).toEqual([]);
  });
});
