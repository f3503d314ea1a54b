// A Redis store written by the previous release (test/fixtures/store-<release>-<commit>.json, made by scripts/make-store-fixture.sh) is read, heartbeaten, released and taken over by this one.
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { SubjectKey } from "../src/domain/claim.js";
import type { ClaimInput } from "../src/providers/liveness-store.js";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const fixtureFile = "store-0.1.0-c2fe89f.json";

const Lease = z.strictObject({
  issue: z.number(),
  holder: z.string(),
  token: z.string(),
  tokenDigest: z.string(),
  sessionKeyDigest: z.string(),
});
const DumpedKey = z.strictObject({
  key: z.string(),
  type: z.enum(["string", "hash", "list", "set", "zset"]),
  ttlMs: z.number().int().positive().nullable(),
  value: z.union([
    z.string(),
    z.array(z.string()),
    z.record(z.string(), z.string()),
    z.array(z.tuple([z.string(), z.string()])),
  ]),
});
const StoreFixture = z.strictObject({
  release: z.string(),
  commit: z.string(),
  writtenAt: z.number(),
  lastWriteAt: z.number(),
  keyPrefix: z.string(),
  installationId: z.number(),
  repoId: z.number(),
  repo: z.string(),
  durations: z.strictObject({ ttlMs: z.number(), reclaimAfterMs: z.number(), heartbeatMs: z.number() }),
  subjects: z.strictObject({
    live: Lease.extend({ pullRequest: z.number(), headSha: z.string() }),
    waiting: Lease,
    released: Lease,
    intent: Lease.extend({
      claimant: z.string(),
      claimantToken: z.string(),
      claimantTokenDigest: z.string(),
      claimantKeyDigest: z.string(),
    }),
    human: z.strictObject({ issue: z.number(), person: z.string() }),
  }),
  keys: z.array(DumpedKey),
});

const fixture = StoreFixture.parse(
  JSON.parse(readFileSync(new URL(`fixtures/${fixtureFile}`, import.meta.url), "utf8")),
);
const { subjects, durations, installationId, repoId } = fixture;
const minute = 60_000;
const on = (issue: number): SubjectKey => ({ installationId, repoId, issue });
/** The test's clock: a minute after the old release's last write. */
const later = (ms = 0) => fixture.lastWriteAt + minute + ms;

/** Writes the fixture's keys under `prefix` (also where a value names a key, as the holders hash does). */
async function loadFixture(redis: Redis, prefix: string): Promise<void> {
  const keys = z
    .array(DumpedKey)
    .parse(JSON.parse(JSON.stringify(fixture.keys).replaceAll(fixture.keyPrefix, prefix)));
  for (const { key, type, ttlMs, value } of keys) {
    const name = `${prefix}${key}`;
    if (type === "string") await redis.set(name, value as string);
    else if (type === "hash") await redis.hset(name, value as Record<string, string>);
    else if (type === "list") await redis.rpush(name, ...(value as string[]));
    else if (type === "set") await redis.sadd(name, ...(value as string[]));
    else
      await redis.zadd(name, ...(value as [string, string][]).flatMap(([member, score]) => [score, member]));
    if (ttlMs !== null) await redis.pexpire(name, ttlMs);
  }
}

function claimInput(issue: number, sessionId: string, tokenDigest: string, extra: Partial<ClaimInput> = {}) {
  return {
    key: on(issue),
    repo: fixture.repo,
    actor: { kind: "agent", login: "octo-agent", runtime: "claude-code", sessionId },
    taskClass: "author",
    durations,
    tokenDigest,
    takeover: false,
    now: later(),
    minGeneration: 0,
    appAssigned: true,
    caps: { perSession: 5, perLogin: 10 },
    ...extra,
  } satisfies ClaimInput;
}

const redisProbe = await probeRedis();

describe.skipIf(!redisProbe.available)(
  `a store written by release ${fixture.release} (${fixture.commit.slice(0, 7)})`,
  () => {
    const runPrefix = uniqueKeyPrefix("upgrade");
    let redis: Redis;
    let stores: Stores;
    let fence: RedisFenceStore;
    let prefix = "";
    let next = 0;

    beforeAll(async () => {
      redis = await createTestRedis();
    });
    beforeEach(async () => {
      prefix = `${runPrefix}${++next}:`;
      await loadFixture(redis, prefix);
      stores = createRedisStores({ redis, keyPrefix: prefix });
      fence = new RedisFenceStore({ redis, keyPrefix: prefix });
    });
    afterAll(async () => {
      if (redis) {
        await deleteKeysWithPrefix(redis, runPrefix);
        await redis.quit();
      }
    });

    const beat = (lease: { issue: number; tokenDigest: string }, extra: object = {}) =>
      stores.claims.heartbeat({
        key: on(lease.issue),
        generation: 1,
        tokenDigest: lease.tokenDigest,
        now: later(),
        phaseEditEveryMs: 10 * minute,
        ...extra,
      });

    it("reads every old record, the repository listing and the indexes", async () => {
      const records = await Promise.all(
        [subjects.live, subjects.waiting, subjects.released, subjects.intent, subjects.human].map((s) =>
          stores.claims.get(on(s.issue)),
        ),
      );
      expect(records.map((r) => [r?.issue, r?.state, r?.generation])).toStrictEqual([
        [1, "active", 1],
        [2, "active", 1],
        [3, "released", 1],
        [4, "active", 1],
        [5, "human", 1],
      ]);
      const [live, waiting, released, intent, human] = records;
      expect(live).toMatchObject({
        phase: "testing",
        pullRequest: 77,
        sync: "done",
        commentId: 9001,
        durations,
      });
      expect(live?.actor).toStrictEqual({
        kind: "agent",
        login: "octo-agent",
        runtime: "claude-code",
        sessionId: "s-live",
      });
      expect(waiting).toMatchObject({ needsHuman: true, blocker: "needs a product decision" });
      expect(waiting?.waitUntil).toBeGreaterThan(fixture.lastWriteAt);
      expect(released).toMatchObject({ outcome: "handoff", endedAt: fixture.lastWriteAt });
      expect(intent?.takeover?.claimant.sessionId).toBe(subjects.intent.claimant);
      expect(intent?.takeover?.keyDigest).toBe(subjects.intent.claimantKeyDigest);
      expect(human?.actor).toStrictEqual({ kind: "human", login: subjects.human.person });

      const listed = await stores.index.listRepository(installationId, repoId, 10);
      expect(listed.map((r) => r.issue).sort()).toStrictEqual([1, 2, 3, 4, 5]);
      expect(await stores.index.repositories(installationId)).toStrictEqual([repoId]);
      expect(await stores.index.activeCount(installationId)).toBe(3);
      expect(await stores.installations.installations()).toStrictEqual([installationId]);
      expect(await stores.fleetLogins.isFleetLogin(installationId, "octo-agent")).toBe(true);
      expect(await stores.spend.spendOf([on(subjects.live.issue)])).toStrictEqual([1_500_000]);
      expect((await stores.claims.history(on(subjects.intent.issue))).map((t) => t.kind)).toStrictEqual([
        "takeover-requested",
        "claimed",
      ]);
      // The janitor finds the old deadlines: #4's holder has been silent longest.
      expect((await stores.index.due(installationId, later(durations.reclaimAfterMs), 10))[0]).toStrictEqual(
        on(4),
      );
    });

    it("keeps the installation's epoch from before the upgrade", async () => {
      const epoch = await stores.claims.epoch(installationId, later());
      expect(epoch).toBeLessThanOrEqual(fixture.lastWriteAt);
      await stores.claims.claim(claimInput(3, "s-new", "d".repeat(64)));
      expect(await stores.claims.epoch(installationId, later())).toBe(epoch);
    });

    it("heartbeats an old lease: its token, its spend and its fixed facts hold", async () => {
      expect(await beat(subjects.live, { usage: { costMicros: 1_000_000 } })).toStrictEqual({
        kind: "usage_decreased",
        field: "costUsd",
        last: 1.5,
      });
      expect((await beat({ ...subjects.live, tokenDigest: "e".repeat(64) })).kind).toBe("invalid_token");
      const outcome = await beat(subjects.live, { usage: { costMicros: 2_000_000 }, wantRecord: true });
      if (outcome.kind !== "ok") throw new Error(`heartbeat answered ${outcome.kind}`);
      expect(outcome.live.lastHeartbeatAt).toBe(later());
      expect(outcome.spend).toMatchObject({ beforeMicros: 1_500_000, afterMicros: 2_000_000 });
      expect(outcome.record).toMatchObject({
        state: "active",
        generation: 1,
        phase: "testing",
        pullRequest: 77,
      });
      expect((await stores.claims.get(on(subjects.live.issue)))?.lastHeartbeatAt).toBe(later());
    });

    it("withdraws an old ask for a person at the next heartbeat without one", async () => {
      const outcome = await beat(subjects.waiting, { needsHuman: false });
      if (outcome.kind !== "ok") throw new Error(`heartbeat answered ${outcome.kind}`);
      expect(outcome.needsHumanBefore).toBe(true);
      expect(outcome.live.needsHuman).toBeUndefined();
      expect((await stores.claims.get(on(subjects.waiting.issue)))?.needsHuman).toBeUndefined();
    });

    it("releases an old lease, and answers its old released one as gone", async () => {
      const released = await stores.claims.release({
        key: on(subjects.live.issue),
        generation: 1,
        tokenDigest: subjects.live.tokenDigest,
        now: later(),
        outcome: "handoff",
      });
      expect(released).toMatchObject({ kind: "released", repeated: false, record: { state: "released" } });
      expect(await stores.index.activeCount(installationId)).toBe(2);
      const gone = await stores.claims.verify({
        key: on(subjects.released.issue),
        generation: 1,
        tokenDigest: subjects.released.tokenDigest,
        now: later(),
      });
      expect(gone).toMatchObject({ kind: "gone", reason: "released" });
    });

    it("claims an old released subject as the next generation", async () => {
      const outcome = await stores.claims.claim(claimInput(subjects.released.issue, "s-new", "d".repeat(64)));
      expect(outcome).toMatchObject({
        kind: "created",
        record: { generation: 2 },
        previous: { state: "released" },
      });
    });

    it("carries an old takeover intent on for its own session once the grace is out", async () => {
      const claimant = (now: number) =>
        claimInput(subjects.intent.issue, subjects.intent.claimant, subjects.intent.claimantTokenDigest, {
          takeover: true,
          sessionKeyDigest: subjects.intent.claimantKeyDigest,
          now,
        });
      expect((await stores.claims.claim(claimant(later()))).kind).toBe("takeover_pending");
      const taken = await stores.claims.claim(claimant(later(durations.heartbeatMs)));
      expect(taken).toMatchObject({
        kind: "created",
        record: { generation: 2 },
        previous: { generation: 1 },
      });
      const superseded = await stores.claims.heartbeat({
        key: on(subjects.intent.issue),
        generation: 1,
        tokenDigest: subjects.intent.tokenDigest,
        now: later(durations.heartbeatMs),
        phaseEditEveryMs: 10 * minute,
      });
      expect(superseded.kind).toBe("superseded");
    });

    it("lets the old holder keep its lease by heartbeating through a takeover intent", async () => {
      const outcome = await beat(subjects.intent, { wantRecord: true });
      if (outcome.kind !== "ok") throw new Error(`heartbeat answered ${outcome.kind}`);
      expect(outcome.record?.takeover).toBeUndefined();
      expect((await stores.claims.get(on(subjects.intent.issue)))?.takeover).toBeUndefined();
    });

    it("reads the merge fence's old notes, attestation and pull request index", async () => {
      const { issue, holder, tokenDigest, pullRequest, headSha } = subjects.live;
      const branch = `agent/${holder}/${issue}-fix`;
      const evidence = await fence.evidence(on(issue), headSha, later(), { generation: 1, tokenDigest });
      expect(evidence.attestedGenerations).toStrictEqual([1]);
      expect(evidence.claims.map((note) => [note.generation, note.branch])).toStrictEqual([[1, branch]]);
      expect(await fence.subjectsForBranch({ installationId, repoId }, branch)).toStrictEqual([issue]);
      expect((await fence.pullRequestsFor(on(issue))).map((pr) => pr.number)).toStrictEqual([pullRequest]);
      // This release's note of a new claim answers the PRs an old replica linked to the subject
      // (0.1.0 kept no cross-repository links in the fence's store: none to answer).
      const linked = await fence.recordClaim(on(issue), {
        generation: 2,
        actor: { kind: "agent", login: "octo-agent", sessionId: "s-new" },
        branch,
      });
      expect(linked.pullRequests.map((pr) => [pr.number, pr.headSha])).toStrictEqual([
        [pullRequest, headSha],
      ]);
      expect(linked.crossLinks).toStrictEqual([]);
    });

    it("reads and ranks the old candidate index, and reserves from it", async () => {
      const repo = { installationId, repoId, repo: fixture.repo };
      expect(await stores.queue.repoOf(installationId, fixture.repo.toUpperCase())).toMatchObject({ repoId });
      const indexed = await stores.queue.indexedCandidate(repo, 6);
      expect(indexed.refreshedAt).toBe(fixture.lastWriteAt);
      expect(indexed.candidate?.blockers).toStrictEqual([`${fixture.repo}#7`]);
      const page = await stores.queue.rankedCandidates(
        repo,
        { priority: ["p0", "p1", "p2", "p3"], order: "oldest" },
        { offset: 0, limit: 10 },
      );
      expect(page.candidates.map((c) => c.issue)).toStrictEqual([7, 6]);
      expect(await stores.queue.reserve(repo, [7, 6], "picker", 5_000, later())).toBe(7);
    });

    it("ends a claim the App asked about with no stallAsk in its hash, so the old release reads it again", async () => {
      const recordKey = `${prefix}{i:${installationId}}:s:${repoId}:77:rec`;
      const stall = { afterMs: 20 * minute, onStall: "needs-human" as const };
      await stores.claims.claim(claimInput(77, "s-new", "e".repeat(64), { stall }));
      const asked = await stores.claims.heartbeat({
        key: on(77),
        generation: 1,
        tokenDigest: "e".repeat(64),
        now: later(21 * minute),
        phaseEditEveryMs: 10 * minute,
      });
      expect(asked).toMatchObject({ stallAskChange: "asked" });
      expect(await redis.hget(recordKey, "stallAsk")).not.toBeNull();
      await stores.claims.release({
        key: on(77),
        generation: 1,
        tokenDigest: "e".repeat(64),
        now: later(22 * minute),
        outcome: "handoff",
      });
      expect(await redis.hexists(recordKey, "stallAsk")).toBe(0);
    });

    it("refuses a record with a field it does not know rather than dropping it (a later release's record)", async () => {
      const record = `${prefix}{i:${installationId}}:s:${repoId}:${subjects.live.issue}:rec`;
      await redis.hset(record, "fieldOfALaterRelease", "1");
      await expect(stores.claims.get(on(subjects.live.issue))).rejects.toThrow(/corrupt claim record/);
    });

    it("answers a person's old claim as held by a person", async () => {
      expect(
        (await stores.claims.claim(claimInput(subjects.human.issue, "s-new", "d".repeat(64)))).kind,
      ).toBe("human_held");
    });
  },
);
