// Records indexed before the live-claim sorted sets existed still count: the claim script moves them in once per installation.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Actor, SubjectKey } from "../src/domain/claim.js";
import type { ClaimInput, ClaimOutcome } from "../src/providers/liveness-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const on = (issue: number): SubjectKey => ({ installationId: 7, repoId: 1001, issue });
const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const agent = (login: string, sessionId: string): Actor => ({
  kind: "agent",
  login,
  runtime: "claude-code",
  sessionId,
});
const aliceOne = agent("alice", "s1");
const aliceTwo = agent("alice", "s2");

describe.skipIf(!redisProbe.available)("live-claim sets on an installation indexed before them", () => {
  const runPrefix = uniqueKeyPrefix("live-backfill");
  let redis: Redis;
  let keyPrefix: string;
  let stores: Stores;
  let next = 0;
  let now: number;

  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, runPrefix);
    await redis.quit();
  });
  beforeEach(() => {
    keyPrefix = `${runPrefix}${++next}:`;
    stores = createRedisStores({ redis, keyPrefix });
    now = T0;
  });

  const base = () => `${keyPrefix}{i:7}`;
  const claim = (actor: Actor, issue: number, token: string, extra: Partial<ClaimInput> = {}) =>
    stores.claims.claim({
      key: on(issue),
      repo: "acme/widgets",
      actor,
      taskClass: "author",
      durations,
      tokenDigest: digest(token),
      takeover: false,
      now,
      minGeneration: 0,
      appAssigned: true,
      caps: { perSession: 100, perLogin: 100 },
      ...extra,
    });
  const capOf = (outcome: ClaimOutcome) => (outcome.kind === "cap_reached" ? outcome.limit : outcome.kind);

  /**
   * Rewrites the installation's index as the scripts before the sorted sets left it: holders entries
   * "liveUntil\nloginSet\nsessionSet" naming plain sets `…:login:…` / `…:session:…`, no marker.
   */
  async function indexAsBefore(): Promise<void> {
    const holders = `${base()}:holders`;
    const live = `${base()}:live`;
    for (const [member, entry] of Object.entries(await redis.hgetall(holders))) {
      const [, login, session] = entry.split("\n") as [string, string, string];
      const liveUntil = await redis.zscore(login, member);
      const plain = (key: string) => `${base()}${key.slice(live.length)}`;
      await redis.sadd(plain(login), member);
      if (session) await redis.sadd(plain(session), member);
      await redis.hset(holders, member, `${liveUntil}\n${plain(login)}\n${session ? plain(session) : ""}`);
    }
    // A full SCAN: one call sees only part of a server holding other tests' keys.
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${live}:*`, "COUNT", 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  }

  it("counts the claims indexed before, after heartbeats and releases made before the first claim", async () => {
    for (const issue of [1, 2, 3]) await claim(aliceOne, issue, `a${issue}`);
    await claim(aliceTwo, 4, "a4");
    await indexAsBefore();
    expect(await redis.exists(`${base()}:login:"alice"`)).toBe(1);

    now = T0 + durations.ttlMs; // none of them live by time now
    const beat = { generation: 1, now, phaseEditEveryMs: minute };
    expect((await stores.claims.heartbeat({ ...beat, key: on(1), tokenDigest: digest("a1") })).kind).toBe(
      "ok",
    );
    expect((await stores.claims.heartbeat({ ...beat, key: on(2), tokenDigest: digest("a2") })).kind).toBe(
      "ok",
    );
    expect((await stores.claims.heartbeat({ ...beat, key: on(4), tokenDigest: digest("a4") })).kind).toBe(
      "ok",
    );
    await stores.claims.release({
      key: on(2),
      generation: 1,
      tokenDigest: digest("a2"),
      now,
      outcome: "handoff",
    });
    // Live now: 1 (alice s1) and 4 (alice s2); 3 went silent.

    expect(capOf(await claim(aliceOne, 5, "a5", { caps: { perSession: 100, perLogin: 2 } }))).toBe("login");
    expect(capOf(await claim(aliceOne, 5, "a5", { caps: { perSession: 1, perLogin: 3 } }))).toBe("session");
    expect(capOf(await claim(aliceOne, 5, "a5", { caps: { perSession: 2, perLogin: 3 } }))).toBe("created");
    expect(capOf(await claim(aliceTwo, 6, "a6", { caps: { perSession: 1, perLogin: 100 } }))).toBe("session");

    expect(await redis.exists(`${base()}:login:"alice"`, `${base()}:session:["alice","s1"]`)).toBe(0);
    expect(await redis.get(`${base()}:live:indexed`)).toBe("1");
    expect(await redis.zrange(`${base()}:live:login:"alice"`, 0, -1)).toStrictEqual([
      "1001:3",
      "1001:1",
      "1001:4",
      "1001:5",
    ]);
  });

  it("counts a claim an old replica indexed after the backfill from the claim's next heartbeat", async () => {
    await claim(aliceOne, 1, "a1");
    await claim(aliceOne, 2, "a2");
    await indexAsBefore();
    await redis.set(`${base()}:live:indexed`, "1"); // the backfill ran before the old replica wrote them
    const beat = { key: on(1), generation: 1, tokenDigest: digest("a1"), now, phaseEditEveryMs: minute };
    expect((await stores.claims.heartbeat(beat)).kind).toBe("ok");
    // Claim 2 is not counted until its own next heartbeat (or transition): the rolling upgrade's gap.
    expect(capOf(await claim(aliceOne, 5, "a5", { caps: { perSession: 1, perLogin: 100 } }))).toBe("session");
    expect(capOf(await claim(aliceOne, 5, "a5", { caps: { perSession: 2, perLogin: 100 } }))).toBe("created");
  });

  it("counts a record restored before the first claim once, beside the ones moved in", async () => {
    const created = await claim(aliceOne, 1, "a1");
    if (created.kind !== "created") throw new Error("expected created");
    await claim(aliceOne, 2, "a2");
    await indexAsBefore();
    expect(await stores.claims.restore({ ...created.record, issue: 3, generation: 4 }, now)).toBe("restored");
    expect(capOf(await claim(aliceOne, 5, "a5", { caps: { perSession: 3, perLogin: 100 } }))).toBe("session");
    expect(capOf(await claim(aliceOne, 5, "a5", { caps: { perSession: 4, perLogin: 4 } }))).toBe("created");
  });
});
