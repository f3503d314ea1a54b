// The store contract (the claim store and its bookkeeping members): the same tests against the memory store and the Redis store on a real server.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor, ClaimRecord, SubjectKey } from "../src/domain/claim.js";
import { failuresKept } from "../src/domain/failure-breaker.js";
import { type Forge, giteaInstallationRecordId } from "../src/domain/forge.js";
import type {
  EndClaimInput,
  HumanClaimInput,
  MarkStaleInput,
} from "../src/providers/app-transition-types.js";
import { heartbeatGapsTtlMs } from "../src/providers/claim-records.js";
import {
  type ClaimInput,
  type ClaimOutcome,
  type HeartbeatInput,
  StoreUnavailableError,
} from "../src/providers/liveness-store.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import {
  createTestCluster,
  createTestRedis,
  deleteKeysWithPrefix,
  elapseKeysWithPrefix,
  probeRedis,
  redisClusterUrl,
  uniqueKeyPrefix,
} from "./support/redis.js";

const redisProbe = await probeRedis();

interface Harness {
  stores: Stores;
  /** A store that has lost every record (a restarted memory store, a flushed Redis). */
  emptyStore(): Stores;
  /** Stores over separate connections sharing the same data (memory: the one store). */
  concurrentStores(): Stores[];
  /**
   * Lets `ms` pass for the keys that expire on their own, after the test moved its clock by `ms`
   * (memory: its clock is the test's; Redis: their remaining time to live shrinks by `ms`).
   */
  elapse(ms: number): Promise<void>;
}

interface StoreCase {
  name: string;
  setup(): Promise<void>;
  /** `clock` is the test's fake clock. */
  create(clock: () => number): Harness;
  teardown(): Promise<void>;
}

const memoryCase: StoreCase = {
  name: "memory stores",
  setup: async () => {},
  create(clock) {
    const stores = createMemoryStores({ now: clock });
    return {
      stores,
      emptyStore: () => createMemoryStores({ now: clock }),
      concurrentStores: () => [stores],
      elapse: async () => {},
    };
  },
  teardown: async () => {},
};

function redisCase(
  name = "Redis stores",
  connect: () => Promise<Redis | Cluster> = createTestRedis,
): StoreCase {
  const runPrefix = uniqueKeyPrefix("contract");
  const clients: (Redis | Cluster)[] = [];
  let next = 0;
  const prefix = () => `${runPrefix}${++next}:`;
  return {
    name,
    async setup() {
      // One main connection and four more, so the concurrency test races real connections.
      for (let i = 0; i < 5; i++) clients.push(await connect());
    },
    create() {
      const keyPrefix = prefix();
      const [main, ...others] = clients;
      return {
        stores: createRedisStores({ redis: main!, keyPrefix }),
        emptyStore: () => createRedisStores({ redis: main!, keyPrefix: prefix() }),
        concurrentStores: () => others.map((redis) => createRedisStores({ redis, keyPrefix })),
        elapse: (ms) => elapseKeysWithPrefix(main!, keyPrefix, ms),
      };
    },
    async teardown() {
      if (clients[0]) await deleteKeysWithPrefix(clients[0], runPrefix);
      await Promise.all(clients.map((client) => client.quit()));
      clients.length = 0; // the case runs again for the next forge, over new connections
    },
  };
}

const cases: StoreCase[] = [memoryCase];
if (redisProbe.available) cases.push(redisCase());
else {
  console.warn(`Skipping the Redis stores half of the store contract: ${redisProbe.reason}`);
  describe.skip(`Redis stores (${redisProbe.reason})`, () => {
    it("passes the store contract", () => {});
  });
}
// Redis Cluster (scripts/redis-cluster.sh; .ci/run sets REDIS_CLUSTER_URL): every script in one slot.
if (redisClusterUrl) cases.push(redisCase("Redis stores on Redis Cluster", createTestCluster));

/** Every key matching `pattern`: a full SCAN, since one call sees only part of a busy server. */
async function keysMatching(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return keys;
}

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const reviewerDurations = { ttlMs: 15 * minute, reclaimAfterMs: 30 * minute, heartbeatMs: 3 * minute };
const phaseEditEveryMs = 10 * minute;
/**
 * The forge whose installation record the tests' subjects belong to: a GitHub installation (keys
 * under `{i:N}`) or a Gitea instance's record, `2^48 + N` (keys under `{g:N}`, domain/forge.ts).
 * Every store test runs for both, so the Gitea key layout and the scripts' hash tags behave alike.
 */
interface ForgeCase {
  forge: Forge;
  /** The installation record id numbered `n` on this forge. */
  record(n: number): number;
  /** The Redis hash tag of the record numbered `n`. */
  tag(n: number): string;
}
const forgeCases: ForgeCase[] = [
  { forge: "github", record: (n) => n, tag: (n) => `{i:${n}}` },
  { forge: "gitea", record: (n) => giteaInstallationRecordId(n), tag: (n) => `{g:${n}}` },
];
/** The installation record of the subjects, and another one on the same forge (set per forge). */
let inst = 7;
let otherInst = 8;
let key: SubjectKey = { installationId: inst, repoId: 1001, issue: 42 };
function useForge(forgeCase: ForgeCase): void {
  inst = forgeCase.record(7);
  otherInst = forgeCase.record(8);
  key = { installationId: inst, repoId: 1001, issue: 42 };
}
const on = (issue: number, installationId = inst): SubjectKey => ({ installationId, repoId: 1001, issue });
const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const agent = (sessionId: string, login = "octo-agent"): Actor => ({
  kind: "agent",
  login,
  runtime: "claude-code",
  sessionId,
});
const alice = agent("s-alice");
const bob = agent("s-bob");
const carol = agent("s-carol");
const caps = { perSession: 5, perLogin: 20 };

/** The record a claim by `actor` with `token` at `at` creates. */
function recordOf(
  actor: Actor,
  token: string,
  generation: number,
  at: number,
  extra: Partial<ClaimRecord> = {},
): ClaimRecord {
  const subject = { ...key, ...extra };
  return {
    installationId: subject.installationId,
    repoId: subject.repoId,
    issue: subject.issue,
    repo: "acme/widgets",
    generation,
    state: "active",
    actor,
    taskClass: "author",
    durations,
    claimedAt: at,
    lastHeartbeatAt: at,
    tokenDigest: digest(token),
    appAssigned: true,
    sync: "pending",
    branch: `agent/${actor.sessionId}/${subject.issue}-fix`,
    issueNodeId: "I_kwDOAB",
    scope: ["src/lease/**", "test/*.ts"],
    ...extra,
  };
}

/**
 * A heartbeat's `ok` that wrote `record`: its liveness, and the record itself when asked for
 * (`withRecord`) or when the claim comment needs an edit.
 */
function beatOf(
  record: ClaimRecord,
  extra: { editComment?: boolean; withRecord?: boolean; needsHumanBefore?: true } = {},
) {
  const { editComment = false, withRecord = editComment, ...rest } = extra;
  return {
    kind: "ok",
    live: {
      lastHeartbeatAt: record.lastHeartbeatAt,
      durations: record.durations,
      ...(record.waitUntil !== undefined ? { waitUntil: record.waitUntil } : {}),
      ...(record.needsHuman ? { needsHuman: true } : {}),
    },
    editComment,
    ...(withRecord ? { record } : {}),
    ...rest,
  };
}

describe.each(
  cases.flatMap((storeCase) =>
    forgeCases.map((forgeCase) => ({ name: storeCase.name, storeCase, forgeCase })),
  ),
)("$name store contract on a $forgeCase.forge installation record", ({ storeCase, forgeCase }) => {
  let h: Harness;
  let stores: Stores;
  let now: number;

  beforeAll(() => storeCase.setup());
  afterAll(() => storeCase.teardown());
  beforeEach(() => {
    useForge(forgeCase);
    h = storeCase.create(() => now);
    stores = h.stores;
    now = T0;
  });

  function claimInput(actor: Actor, token: string, extra: Partial<ClaimInput> = {}): ClaimInput {
    const subject = extra.key ?? key;
    return {
      key: subject,
      repo: "acme/widgets",
      actor,
      taskClass: "author",
      durations,
      branch: `agent/${actor.sessionId}/${subject.issue}-fix`,
      issueNodeId: "I_kwDOAB",
      scope: ["src/lease/**", "test/*.ts"],
      tokenDigest: digest(token),
      takeover: false,
      now,
      minGeneration: 0,
      appAssigned: true,
      caps,
      ...extra,
    };
  }
  const claim = (actor: Actor, token: string, extra: Partial<ClaimInput> = {}, on: Stores = stores) =>
    on.claims.claim(claimInput(actor, token, extra));
  const heartbeat = (generation: number, token: string, extra: Partial<HeartbeatInput> = {}) =>
    stores.claims.heartbeat({ key, generation, tokenDigest: digest(token), now, phaseEditEveryMs, ...extra });
  const release = (generation: number, token: string, outcome: "handoff" | "completed" = "handoff") =>
    stores.claims.release({ key, generation, tokenDigest: digest(token), now, outcome });
  const snapshot = async (subject: SubjectKey = key) => ({
    record: await stores.claims.get(subject),
    history: await stores.claims.history(subject),
  });

  it("creates generation 1 on an empty subject and records the claim", async () => {
    expect(await stores.claims.get(key)).toBeNull();
    expect(await claim(alice, "ta")).toStrictEqual({
      kind: "created",
      record: recordOf(alice, "ta", 1, T0),
      previous: null,
    });
    expect(await stores.claims.get(key)).toStrictEqual(recordOf(alice, "ta", 1, T0));
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
  });

  it("creates a generation above minGeneration (what the claim comments show)", async () => {
    const outcome = await claim(alice, "ta", { minGeneration: 41 });
    expect(outcome).toStrictEqual({ kind: "created", record: recordOf(alice, "ta", 42, T0), previous: null });
  });

  describe("re-claims (invariant 14)", () => {
    const keyA = "session-key-of-alice-0123456789abcdef";
    const proofKey = { sessionKeyDigest: digest(keyA) };
    const commit = (token: string, extra: { comment?: { commentNodeId: string; commentId?: number } } = {}) =>
      stores.claims.commitReclaim({ key, generation: 1, tokenDigest: digest(token), now, ...extra });

    it("answers a re-claim without proof of the session held, like another session's, and changes nothing", async () => {
      await claim(alice, "ta", proofKey);
      const claimed = recordOf(alice, "ta", 1, T0, proofKey);
      now += 7 * minute;
      const before = await snapshot();
      // The session id is public: naming it proves nothing; nor does a wrong key or token.
      for (const proof of [
        {},
        { sessionKeyDigest: digest("somebody-else-s-key-0123456789abcdef") },
        { leaseTokenDigest: digest("a guessed token") },
      ]) {
        expect(await claim(alice, "tx", proof)).toStrictEqual({ kind: "held", current: claimed });
      }
      expect(await snapshot()).toStrictEqual(before);
      expect(await heartbeat(1, "ta")).toMatchObject({ kind: "ok" });
    });

    it("re-claims with the session key: same generation, the new token pending until the write is committed", async () => {
      await claim(alice, "ta", proofKey);
      now += 7 * minute;
      const reclaimedAt = now;
      const pending = recordOf(alice, "ta", 1, T0, {
        ...proofKey,
        lastHeartbeatAt: now,
        pendingTokenDigest: digest("ta2"),
      });
      expect(await claim(alice, "ta2", proofKey)).toStrictEqual({ kind: "reclaimed", record: pending });
      // Until GitHub confirmed the re-claim, the old token is the lease's and the new one is nothing.
      expect(await heartbeat(1, "ta2")).toStrictEqual({ kind: "invalid_token" });
      expect(
        await stores.claims.verify({ key, generation: 1, tokenDigest: digest("ta2"), now }),
      ).toStrictEqual({
        kind: "invalid_token",
      });
      now += minute;
      expect(await heartbeat(1, "ta", { wantRecord: true })).toStrictEqual(
        beatOf({ ...pending, lastHeartbeatAt: now }, { withRecord: true }),
      );

      now += minute;
      const rotated = recordOf(alice, "ta2", 1, T0, {
        ...proofKey,
        lastHeartbeatAt: now - minute,
        sync: "done",
        commentNodeId: "IC_1",
        commentId: 11,
      });
      expect(await commit("ta2", { comment: { commentNodeId: "IC_1", commentId: 11 } })).toStrictEqual(
        rotated,
      );
      expect(await stores.claims.get(key)).toStrictEqual(rotated);
      expect(await commit("ta2")).toBeNull(); // nothing pending any more
      const rotatedAt = now;
      now += minute;
      expect(await heartbeat(1, "ta2")).toMatchObject({ kind: "ok" });
      const current = { ...rotated, lastHeartbeatAt: now };
      // The rotated-out token is superseded (reason: rotated), on every lease call, and changes nothing.
      const refusal = { kind: "superseded", current, rotatedAt };
      expect(await heartbeat(1, "ta", { phase: "late" })).toStrictEqual(refusal);
      expect(
        await stores.claims.verify({ key, generation: 1, tokenDigest: digest("ta"), now }),
      ).toStrictEqual(refusal);
      expect(await release(1, "ta")).toStrictEqual(refusal);
      expect(await stores.claims.get(key)).toStrictEqual(current);
      expect(await stores.claims.history(key)).toStrictEqual([
        { at: reclaimedAt, generation: 1, kind: "reclaimed", actor: alice },
        { at: T0, generation: 1, kind: "claimed", actor: alice },
      ]);
    });

    it("re-claims with the lease's current token, never with a rotated-out or pending one", async () => {
      await claim(alice, "ta");
      now += minute;
      expect(await claim(alice, "ta2", { leaseTokenDigest: digest("ta") })).toStrictEqual({
        kind: "reclaimed",
        record: recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now, pendingTokenDigest: digest("ta2") }),
      });
      expect((await claim(alice, "ta3", { leaseTokenDigest: digest("ta2") })).kind).toBe("held");
      expect(await commit("ta2")).toMatchObject({ tokenDigest: digest("ta2") });
      expect((await claim(alice, "ta3", { leaseTokenDigest: digest("ta") })).kind).toBe("held");
      // The token proof also records a session key sent along, for the next re-claim.
      expect(await claim(alice, "ta3", { leaseTokenDigest: digest("ta2"), ...proofKey })).toMatchObject({
        kind: "reclaimed",
        record: { ...proofKey, tokenDigest: digest("ta2"), pendingTokenDigest: digest("ta3") },
      });
    });

    it("keeps the old token when the re-claim's write never landed; only the newest pending token can be promoted", async () => {
      await claim(alice, "ta", proofKey);
      now += minute;
      await claim(alice, "ta2", proofKey); // its GitHub write fails: never committed
      now += minute;
      expect(await heartbeat(1, "ta")).toMatchObject({ kind: "ok" });
      expect(await heartbeat(1, "ta2")).toStrictEqual({ kind: "invalid_token" });
      // A retry replaces the pending token; the first re-claim, answering late, promotes nothing.
      await claim(alice, "ta3", proofKey);
      expect(await commit("ta2")).toBeNull();
      expect(await heartbeat(1, "ta")).toMatchObject({ kind: "ok" });
      expect(await commit("ta3")).toMatchObject({ tokenDigest: digest("ta3") });
      expect(await heartbeat(1, "ta3")).toMatchObject({ kind: "ok" });
      expect(await heartbeat(1, "ta2")).toStrictEqual({ kind: "invalid_token" });
      expect(await heartbeat(1, "ta")).toMatchObject({ kind: "superseded", rotatedAt: now });
    });

    it("promotes nothing once the lease was released or superseded meanwhile", async () => {
      await claim(alice, "ta", proofKey);
      await claim(alice, "ta2", proofKey);
      await release(1, "ta");
      expect(await commit("ta2")).toBeNull();
      expect(await release(1, "ta")).toMatchObject({ kind: "released", repeated: true });
    });

    it("after a restore from the claim comment (no session-key digest) only the token proves the session", async () => {
      const restored = recordOf(alice, "ta", 1, T0, { sync: "done" });
      expect(await stores.claims.restore(restored, now)).toBe("restored");
      now += minute;
      expect(await claim(alice, "ta2", proofKey)).toStrictEqual({ kind: "held", current: restored });
      expect(await claim(alice, "ta2", { leaseTokenDigest: digest("ta"), ...proofKey })).toMatchObject({
        kind: "reclaimed",
        record: { ...proofKey, pendingTokenDigest: digest("ta2") },
      });
    });

    it("still answers rotated to a rotated-out token once another generation holds the subject", async () => {
      await claim(alice, "ta", proofKey);
      await claim(alice, "ta2", proofKey);
      const rotatedAt = now;
      await commit("ta2");
      now += durations.reclaimAfterMs;
      const { record: successor } = (await claim(bob, "tb", { takeover: true })) as Extract<
        ClaimOutcome,
        { kind: "created" }
      >;
      expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "superseded", current: successor, rotatedAt });
      expect(await heartbeat(1, "ta2")).toStrictEqual({ kind: "superseded", current: successor });
    });

    it("recognises only the last few rotated-out tokens", async () => {
      await claim(alice, "t0", proofKey);
      for (let i = 1; i <= 5; i++) {
        now += minute;
        await claim(alice, `t${i}`, proofKey);
        await commit(`t${i}`);
      }
      expect(await heartbeat(1, "t0")).toStrictEqual({ kind: "invalid_token" });
      for (let i = 1; i <= 4; i++) {
        expect(await heartbeat(1, `t${i}`)).toMatchObject({
          kind: "superseded",
          rotatedAt: T0 + (i + 1) * minute,
        });
      }
      expect(await heartbeat(1, "t5")).toMatchObject({ kind: "ok" });
    });
  });

  it("answers held to a different session while the claim is live", async () => {
    await claim(alice, "ta");
    now += durations.ttlMs - 1;
    expect(await claim(bob, "tb")).toStrictEqual({ kind: "held", current: recordOf(alice, "ta", 1, T0) });
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "held",
      current: recordOf(alice, "ta", 1, T0),
    });
    expect(await stores.claims.history(key)).toHaveLength(1);
  });

  it("takes over a stale claim only after a grace beat, which an incumbent heartbeat cancels", async () => {
    await claim(alice, "ta");
    now += durations.ttlMs;
    expect(await claim(bob, "tb")).toStrictEqual({ kind: "held", current: recordOf(alice, "ta", 1, T0) });

    const requestedAt = now;
    const intent = { claimant: bob, at: requestedAt, graceMs: durations.heartbeatMs };
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "takeover_pending",
      current: recordOf(alice, "ta", 1, T0, { takeover: intent }),
      retryAfterMs: durations.heartbeatMs,
    });

    now += minute;
    expect(await heartbeat(1, "ta")).toStrictEqual(
      beatOf(recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now })),
    );
    expect(await stores.claims.get(key)).toStrictEqual(
      recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now }),
    );
    now = requestedAt + durations.heartbeatMs;
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "held",
      current: recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: requestedAt + minute }),
    });
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: requestedAt, generation: 1, kind: "takeover-requested", actor: bob },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
  });

  it("supersedes a stale claim when the grace beat passes unanswered; others wait behind the intent", async () => {
    await claim(alice, "ta");
    now += durations.ttlMs + minute;
    const requestedAt = now;
    const intent = { claimant: bob, at: requestedAt, graceMs: durations.heartbeatMs };
    const stale = recordOf(alice, "ta", 1, T0, { takeover: intent });
    expect((await claim(bob, "tb", { takeover: true })).kind).toBe("takeover_pending");

    now += minute;
    expect(await claim(carol, "tc", { takeover: true })).toStrictEqual({
      kind: "held",
      current: stale,
      takeoverPendingBy: bob,
    });
    expect(await claim(carol, "tc")).toStrictEqual({ kind: "held", current: stale, takeoverPendingBy: bob });
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "takeover_pending",
      current: stale,
      retryAfterMs: durations.heartbeatMs - minute,
    });

    now = requestedAt + durations.heartbeatMs;
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "created",
      record: recordOf(bob, "tb", 2, now, { supersedes: 1 }),
      previous: stale,
    });
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: now, generation: 2, kind: "claimed", actor: bob },
      { at: now, generation: 1, kind: "superseded", actor: bob },
      { at: requestedAt, generation: 1, kind: "takeover-requested", actor: bob },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
  });

  it("carries a takeover intent on only for the session key that made it, not for its public session id", async () => {
    await claim(alice, "ta");
    now += durations.ttlMs + minute;
    const keyB = { sessionKeyDigest: digest("session-key-of-bob-0123456789abcdef") };
    expect((await claim(bob, "tb", { takeover: true, ...keyB })).kind).toBe("takeover_pending");
    now += durations.heartbeatMs;
    // Another session naming bob's session id, without bob's key (or with another), waits behind it.
    for (const extra of [{}, { sessionKeyDigest: digest("an-impostor-s-key-0123456789abcdef") }]) {
      expect(await claim(bob, "te", { takeover: true, ...extra })).toMatchObject({
        kind: "held",
        takeoverPendingBy: bob,
      });
    }
    expect(await claim(bob, "tb", { takeover: true, ...keyB })).toMatchObject({
      kind: "created",
      record: { generation: 2, actor: bob },
    });
  });

  it("never renews an expired lease; a takeover supersedes it at once", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs;
    const expired = recordOf(alice, "ta", 1, T0);
    expect(await heartbeat(1, "ta", { phase: "coding" })).toStrictEqual({
      kind: "gone",
      reason: "expired",
      current: expired,
    });
    expect(await stores.claims.verify({ key, generation: 1, tokenDigest: digest("ta"), now })).toStrictEqual({
      kind: "gone",
      reason: "expired",
      current: expired,
    });
    expect(await stores.claims.get(key)).toStrictEqual(expired);
    expect(await claim(bob, "tb")).toStrictEqual({ kind: "held", current: expired });
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "created",
      record: recordOf(bob, "tb", 2, now, { supersedes: 1 }),
      previous: expired,
    });
  });

  it("brings an expired holder back only with a new generation", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs;
    expect(await claim(alice, "ta2")).toStrictEqual({
      kind: "created",
      record: recordOf(alice, "ta2", 2, now, { supersedes: 1 }),
      previous: recordOf(alice, "ta", 1, T0),
    });
  });

  it("refuses a superseded token and changes nothing", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs;
    await claim(bob, "tb", { takeover: true });
    now += minute;
    const before = await snapshot();
    const current = recordOf(bob, "tb", 2, T0 + durations.reclaimAfterMs, { supersedes: 1 });
    expect(await heartbeat(1, "ta", { phase: "late", pullRequest: 9 })).toStrictEqual({
      kind: "superseded",
      current,
    });
    expect(await release(1, "ta")).toStrictEqual({ kind: "superseded", current });
    expect(await stores.claims.verify({ key, generation: 1, tokenDigest: digest("ta"), now })).toStrictEqual({
      kind: "superseded",
      current,
    });
    expect(await snapshot()).toStrictEqual(before);

    await release(2, "tb");
    const ended = await stores.claims.get(key);
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "gone", reason: "released", current: ended });
  });

  it("refuses garbage tokens and unknown generations", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs;
    await claim(bob, "tb", { takeover: true });
    const before = await snapshot();
    expect(await heartbeat(2, "garbage")).toStrictEqual({ kind: "invalid_token" });
    expect(await release(2, "garbage")).toStrictEqual({ kind: "invalid_token" });
    expect(await heartbeat(1, "tb")).toStrictEqual({ kind: "invalid_token" });
    expect(await heartbeat(0, "ta")).toStrictEqual({ kind: "invalid_token" });
    expect(await heartbeat(3, "tb")).toStrictEqual({ kind: "missing" });
    expect(
      await stores.claims.heartbeat({
        key: on(99),
        generation: 1,
        tokenDigest: digest("ta"),
        now,
        phaseEditEveryMs,
      }),
    ).toStrictEqual({ kind: "missing" });
    expect(await snapshot()).toStrictEqual(before);
  });

  it("answers a heartbeat's liveness, and the whole record only when asked for it or for a comment edit", async () => {
    await claim(alice, "ta");
    now += minute;
    const waitUntil = now + 20 * minute;
    const asking = recordOf(alice, "ta", 1, T0, {
      lastHeartbeatAt: now,
      waitUntil,
      needsHuman: true,
      blocker: "b",
    });
    expect(await heartbeat(1, "ta", { waitUntil, needsHuman: true, blocker: "b" })).toStrictEqual(
      beatOf(asking),
    );
    now += minute;
    // Without a wait of its own it answers the stored one; without the ask, the ask is withdrawn.
    const { needsHuman: _, ...withdrawn } = { ...asking, lastHeartbeatAt: now };
    expect(await heartbeat(1, "ta", { wantRecord: true })).toStrictEqual(
      beatOf(withdrawn, { withRecord: true, needsHumanBefore: true }),
    );
    expect(await stores.claims.get(key)).toStrictEqual(withdrawn);
    now += minute;
    expect(await heartbeat(1, "ta", { durations: reviewerDurations })).toStrictEqual(
      beatOf({ ...withdrawn, lastHeartbeatAt: now, durations: reviewerDurations }),
    );
    // A comment edit brings the record along unasked.
    now += minute;
    const edited = {
      ...withdrawn,
      lastHeartbeatAt: now,
      durations: reviewerDurations,
      phase: "p",
      phaseCommentAt: now,
      progressAt: now,
    };
    expect(await heartbeat(1, "ta", { phase: "p" })).toStrictEqual(beatOf(edited, { editComment: true }));
    expect(await stores.claims.get(key)).toStrictEqual(edited);
  });

  it("treats duplicate heartbeats as one", async () => {
    await claim(alice, "ta");
    now += minute;
    const first = await heartbeat(1, "ta", {
      blocker: "CI queue",
      waitUntil: now + 5 * minute,
      pullRequest: 7,
    });
    const second = await heartbeat(1, "ta", {
      blocker: "CI queue",
      waitUntil: now + 5 * minute,
      pullRequest: 7,
    });
    const expected = recordOf(alice, "ta", 1, T0, {
      lastHeartbeatAt: now,
      blocker: "CI queue",
      waitUntil: now + 5 * minute,
      pullRequest: 7,
    });
    expect(first).toStrictEqual(beatOf(expected));
    expect(second).toStrictEqual(first);
    expect(await stores.claims.get(key)).toStrictEqual(expected);
    expect(await stores.claims.history(key)).toHaveLength(1);
  });

  it("keeps the gaps between a generation's accepted heartbeats, the last 60, afresh for a new generation", async () => {
    expect(await stores.claims.heartbeatGaps(key)).toBeNull();
    await claim(alice, "ta");
    expect(await stores.claims.heartbeatGaps(key)).toBeNull();
    // The claim counts as the first beat; a repeated beat (no time passed) and a refused one add nothing.
    for (const gap of [minute, 2 * minute, 0, 30_000]) {
      now += gap;
      expect((await heartbeat(1, "ta")).kind).toBe("ok");
    }
    now += 7_000;
    expect((await heartbeat(1, "not-the-token")).kind).toBe("invalid_token");
    expect(await stores.claims.heartbeatGaps(key)).toStrictEqual({
      generation: 1,
      gapsMs: [minute, 2 * minute, 30_000],
    });
    // Capped: the oldest go first (the refused beat's 7 s count in the next gap).
    for (let i = 1; i <= 60; i++) {
      now += 1_000 + i;
      await heartbeat(1, "ta");
    }
    const capped = await stores.claims.heartbeatGaps(key);
    expect(capped?.gapsMs).toHaveLength(60);
    expect(capped?.gapsMs.slice(0, 2)).toStrictEqual([7_000 + 1_001, 1_002]);
    expect(capped?.gapsMs.at(-1)).toBe(1_060);
    // A takeover of the expired claim: the old generation's gaps stay until the new one beats.
    now += durations.reclaimAfterMs;
    expect((await heartbeat(1, "ta")).kind).toBe("gone");
    expect((await claim(bob, "tb", { takeover: true })).kind).toBe("created");
    expect((await stores.claims.heartbeatGaps(key))?.generation).toBe(1);
    now += 45_000;
    await heartbeat(2, "tb");
    expect(await stores.claims.heartbeatGaps(key)).toStrictEqual({ generation: 2, gapsMs: [45_000] });
  });

  it("applies new durations at a heartbeat", async () => {
    await claim(alice, "ta");
    now += minute;
    const beat = await heartbeat(1, "ta", { durations: reviewerDurations });
    const expected = recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now, durations: reviewerDurations });
    expect(beat).toStrictEqual(beatOf(expected));
    expect(await stores.claims.get(key)).toStrictEqual(expected);
    expect(await stores.index.due(inst, now + reviewerDurations.ttlMs, 10)).toStrictEqual([key]);
  });

  it("releases once and answers repeated releases as repeated", async () => {
    await claim(alice, "ta");
    now += minute;
    const released = recordOf(alice, "ta", 1, T0, {
      state: "released",
      outcome: "handoff",
      endedAt: now,
      endedBy: alice,
    });
    expect(await release(1, "ta")).toStrictEqual({ kind: "released", record: released, repeated: false });
    now += minute;
    expect(await release(1, "ta")).toStrictEqual({ kind: "released", record: released, repeated: true });
    expect(await release(1, "ta", "completed")).toStrictEqual({
      kind: "released",
      record: released,
      repeated: true,
    });
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "gone", reason: "released", current: released });
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: T0 + minute, generation: 1, kind: "released", actor: alice, note: "handoff" },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
    expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    await stores.claims.markSynced(key, 1);
    expect(await stores.claims.get(key)).toStrictEqual({ ...released, sync: "done" });
  });

  it("completes with state completed", async () => {
    await claim(alice, "ta");
    const outcome = await release(1, "ta", "completed");
    expect(outcome).toStrictEqual({
      kind: "released",
      record: recordOf(alice, "ta", 1, T0, {
        state: "completed",
        outcome: "completed",
        endedAt: T0,
        endedBy: alice,
      }),
      repeated: false,
    });
    expect((await stores.claims.history(key))[0]).toStrictEqual({
      at: T0,
      generation: 1,
      kind: "completed",
      actor: alice,
      note: "completed",
    });
    expect(await heartbeat(1, "ta")).toMatchObject({ kind: "gone", reason: "completed" });
  });

  it("allows a release after expiry when nobody else holds the subject", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs + minute;
    expect(await release(1, "ta")).toStrictEqual({
      kind: "released",
      record: recordOf(alice, "ta", 1, T0, {
        state: "released",
        outcome: "handoff",
        endedAt: now,
        endedBy: alice,
      }),
      repeated: false,
    });
  });

  it("caps live claims per session", async () => {
    const one = { perSession: 1, perLogin: 10 };
    await claim(alice, "a42", { caps: one });
    expect(await claim(alice, "a43", { key: on(43), caps: one })).toStrictEqual({
      kind: "cap_reached",
      limit: "session",
      max: 1,
    });
    expect((await claim(alice, "a42b", { caps: one, leaseTokenDigest: digest("a42") })).kind).toBe(
      "reclaimed",
    );
    await stores.claims.commitReclaim({ key, generation: 1, tokenDigest: digest("a42b"), now });
    expect((await claim(bob, "b43", { key: on(43), caps: one })).kind).toBe("created");

    now += durations.ttlMs; // alice's claim on 42 is stale now: it no longer counts
    expect((await claim(alice, "a44", { key: on(44), caps: one })).kind).toBe("created");
    expect((await heartbeat(1, "a42b")).kind).toBe("ok");
    expect(await claim(alice, "a45", { key: on(45), caps: one })).toStrictEqual({
      kind: "cap_reached",
      limit: "session",
      max: 1,
    });
    await release(1, "a42b");
    await stores.claims.release({
      key: on(44),
      generation: 1,
      tokenDigest: digest("a44"),
      now,
      outcome: "handoff",
    });
    expect((await claim(alice, "a45", { key: on(45), caps: one })).kind).toBe("created");
  });

  it("caps live claims per login and leaves humans uncapped", async () => {
    const two = { perSession: 5, perLogin: 2 };
    expect((await claim(alice, "a", { key: on(42), caps: two })).kind).toBe("created");
    expect((await claim(bob, "b", { key: on(43), caps: two })).kind).toBe("created");
    expect(await claim(carol, "c", { key: on(44), caps: two })).toStrictEqual({
      kind: "cap_reached",
      limit: "login",
      max: 2,
    });
    expect((await claim(agent("s-dave", "other-bot"), "d", { key: on(44), caps: two })).kind).toBe("created");
    const human: Actor = { kind: "human", login: "octo-agent" };
    expect((await claim(human, "h", { key: on(45), caps: { perSession: 0, perLogin: 0 } })).kind).toBe(
      "created",
    );
  });

  it("stops counting a subject against a session once another holder has it", async () => {
    const one = { perSession: 1, perLogin: 10 };
    await claim(alice, "a", { caps: one });
    const restored = recordOf(bob, "tb", 5, now);
    expect(await stores.claims.restore(restored, now)).toBe("restored");
    expect((await claim(alice, "a43", { key: on(43), caps: one })).kind).toBe("created");
  });

  it("rolls back a failed claim without reusing its generation", async () => {
    const created = await claim(alice, "ta");
    await stores.claims.rollbackClaim(key, 1, null, now + 1);
    expect(await stores.claims.get(key)).toBeNull();
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "missing" });
    expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: T0 + 1, generation: 1, kind: "rolled-back" },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
    expect(created.kind).toBe("created");
    expect(await claim(alice, "ta2")).toStrictEqual({
      kind: "created",
      record: recordOf(alice, "ta2", 2, now),
      previous: null,
    });
  });

  it("rolls a failed takeover back to the previous record", async () => {
    await claim(alice, "ta");
    await stores.claims.commitClaim(key, 1, { commentNodeId: "IC_kwDOAB", commentId: 11 });
    const committed = recordOf(alice, "ta", 1, T0, {
      commentNodeId: "IC_kwDOAB",
      commentId: 11,
      sync: "done",
    });
    expect(await stores.claims.get(key)).toStrictEqual(committed);
    await stores.claims.rollbackClaim(key, 1, null, now); // committed: nothing to roll back
    expect(await stores.claims.get(key)).toStrictEqual(committed);

    now += durations.reclaimAfterMs;
    const taken = await claim(bob, "tb", { takeover: true });
    expect(taken).toStrictEqual({
      kind: "created",
      record: recordOf(bob, "tb", 2, now, { supersedes: 1 }),
      previous: committed,
    });
    if (taken.kind !== "created") throw new Error("expected created");
    await stores.claims.rollbackClaim(key, 2, taken.previous, now);
    expect(await stores.claims.get(key)).toStrictEqual(committed);
    expect(await heartbeat(2, "tb")).toStrictEqual({ kind: "missing" });
    expect(await stores.index.due(inst, now, 10)).toStrictEqual([key]);
    expect(await claim(carol, "tc", { takeover: true })).toStrictEqual({
      kind: "created",
      record: recordOf(carol, "tc", 3, now, { supersedes: 1 }),
      previous: committed,
    });
  });

  it("restores a lost record and raises generations above it", async () => {
    const created = await claim(alice, "ta", { minGeneration: 4 });
    if (created.kind !== "created") throw new Error("expected created");
    const lost = h.emptyStore();
    expect(await lost.claims.get(key)).toBeNull();
    now += minute;
    expect(await lost.claims.restore(created.record, now)).toBe("restored");
    expect(await lost.claims.get(key)).toStrictEqual(created.record);
    expect(await lost.claims.history(key)).toStrictEqual([
      { at: now, generation: 5, kind: "restored", actor: alice },
    ]);
    expect(await lost.claims.restore(created.record, now)).toBe("exists");
    expect(await lost.claims.restore({ ...created.record, generation: 3 }, now)).toBe("exists");
    expect(
      (await lost.claims.heartbeat({ key, generation: 5, tokenDigest: digest("ta"), now, phaseEditEveryMs }))
        .kind,
    ).toBe("ok");
    await lost.claims.release({ key, generation: 5, tokenDigest: digest("ta"), now, outcome: "handoff" });
    expect(await claim(bob, "tb", {}, lost)).toMatchObject({ kind: "created", record: { generation: 6 } });
  });

  it("raises generations from a restored ended record too", async () => {
    const ended = recordOf(alice, "ta", 9, T0, { state: "released", endedAt: T0, endedBy: alice });
    expect(await stores.claims.restore(ended, now)).toBe("restored");
    expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    expect(await claim(bob, "tb")).toStrictEqual({
      kind: "created",
      record: recordOf(bob, "tb", 10, now, { supersedes: 9 }),
      previous: ended,
    });
  });

  it("answers human_held for a human claim", async () => {
    const human: Actor = { kind: "human", login: "maintainer" };
    const { tokenDigest: _, branch: __, ...rest } = recordOf(human, "x", 3, T0, { state: "human" });
    await stores.claims.restore(rest, now);
    expect(await claim(alice, "ta", { takeover: true })).toStrictEqual({ kind: "human_held", current: rest });
  });

  it("sets the epoch once per installation and keeps it", async () => {
    expect(await stores.claims.epoch(inst, now)).toBe(T0);
    now += 5 * minute;
    expect(await stores.claims.epoch(inst, now)).toBe(T0);
    expect(await stores.claims.epoch(otherInst, now)).toBe(now);
    expect(await h.emptyStore().claims.epoch(inst, now)).toBe(now);
  });

  it("sets the installation's epoch with its first claim, whatever the answer, and keeps it", async () => {
    await claim(alice, "ta");
    now += minute;
    await claim(bob, "tb");
    now += minute;
    expect(await stores.claims.epoch(key.installationId, now)).toBe(T0);
    const refusedFirst = { ...key, installationId: key.installationId + 100 };
    await claim(alice, "tc", { key: refusedFirst, caps: { perSession: 0, perLogin: 0 } });
    expect(await stores.claims.epoch(refusedFirst.installationId, now + minute)).toBe(now);
  });

  it("lists due subjects earliest first, within one installation", async () => {
    await claim(alice, "a", { key: on(42) }); // due T0 + 30m
    now = T0 + minute;
    await claim(bob, "b", { key: on(43), durations: reviewerDurations }); // due T0 + 16m
    now = T0 + 2 * minute;
    await claim(carol, "c", { key: on(44) }); // due T0 + 32m
    const stale = recordOf(agent("s-erin"), "e", 1, T0 - 10 * minute, { issue: 45, staleMarkedAt: T0 });
    await stores.claims.restore(stale, now); // marked stale: due lastHeartbeatAt + reclaimAfter = T0 + 50m
    await claim(agent("s-dave"), "d", { key: on(46) });
    await stores.claims.release({
      key: on(46),
      generation: 1,
      tokenDigest: digest("d"),
      now,
      outcome: "handoff",
    });
    await claim(agent("s-frank"), "f", { key: on(42, otherInst) });

    expect(await stores.index.due(inst, T0 + 60 * minute, 10)).toStrictEqual([
      on(43),
      on(42),
      on(44),
      on(45),
    ]);
    expect(await stores.index.due(inst, T0 + 30 * minute, 10)).toStrictEqual([on(43), on(42)]);
    expect(await stores.index.due(inst, T0 + 60 * minute, 1)).toStrictEqual([on(43)]);
    expect(await stores.index.due(inst, T0 + 15 * minute, 10)).toStrictEqual([]);
    expect(await stores.index.due(otherInst, T0 + 60 * minute, 10)).toStrictEqual([on(42, otherInst)]);

    now = T0 + 20 * minute;
    expect(
      await stores.claims.heartbeat({
        key: on(45),
        generation: 1,
        tokenDigest: digest("e"),
        now,
        phaseEditEveryMs,
      }),
    ).toStrictEqual(
      beatOf(recordOf(agent("s-erin"), "e", 1, T0 - 10 * minute, { issue: 45, lastHeartbeatAt: now }), {
        editComment: true,
      }),
    );
    await stores.claims.heartbeat({
      key: on(43),
      generation: 1,
      tokenDigest: digest("b"),
      now,
      phaseEditEveryMs,
    });
    expect(await stores.index.due(inst, T0 + 60 * minute, 10)).toStrictEqual([
      on(42),
      on(44),
      on(43),
      on(45),
    ]);
  });

  it("asks for a comment edit on a phase change, throttled to phaseEditEveryMs", async () => {
    await claim(alice, "ta");
    now += minute;
    const firstAt = now;
    expect(await heartbeat(1, "ta", { phase: "coding" })).toStrictEqual(
      beatOf(
        recordOf(alice, "ta", 1, T0, {
          lastHeartbeatAt: now,
          phase: "coding",
          phaseCommentAt: firstAt,
          progressAt: firstAt,
        }),
        {
          editComment: true,
        },
      ),
    );
    now += minute;
    const throttled = recordOf(alice, "ta", 1, T0, {
      lastHeartbeatAt: now,
      phase: "testing",
      phaseCommentAt: firstAt,
      progressAt: now,
    });
    expect(await heartbeat(1, "ta", { phase: "testing" })).toStrictEqual(beatOf(throttled));
    expect(await stores.claims.get(key)).toStrictEqual(throttled);
    now = firstAt + phaseEditEveryMs;
    expect((await heartbeat(1, "ta", { phase: "testing" })).kind === "ok").toBe(true);
    expect(await heartbeat(1, "ta", { phase: "testing" })).toMatchObject({ editComment: false });
    expect(await heartbeat(1, "ta", { phase: "review" })).toStrictEqual(
      beatOf(
        recordOf(alice, "ta", 1, T0, {
          lastHeartbeatAt: now,
          phase: "review",
          phaseCommentAt: now,
          progressAt: now,
        }),
        {
          editComment: true,
        },
      ),
    );
  });

  it("edits the comment at the first phase change whatever the clock's origin", async () => {
    now = 5_000;
    await claim(alice, "ta");
    expect(await heartbeat(1, "ta", { phase: "coding" })).toMatchObject({
      kind: "ok",
      record: { phase: "coding", phaseCommentAt: 5_000 },
      editComment: true,
    });
  });

  it("keeps a stale mark at timestamp 0 a stale mark (deadline after reclaimAfter)", async () => {
    await stores.claims.restore(recordOf(alice, "ta", 1, T0, { staleMarkedAt: 0 }), now);
    expect(await stores.index.due(inst, T0 + durations.ttlMs, 10)).toStrictEqual([]);
    expect(await stores.index.due(inst, T0 + durations.reclaimAfterMs, 10)).toStrictEqual([key]);
  });

  it("does not let the caller's input objects alias the stored record", async () => {
    const actor = agent("s-alias");
    const input = claimInput(actor, "ta", {
      durations: { ...durations },
      scope: ["src/lease/**", "test/*.ts"],
    });
    await stores.claims.claim(input);
    actor.sessionId = "s-changed";
    input.durations.ttlMs = 1;
    input.scope?.push("everything");
    expect(await stores.claims.get(key)).toStrictEqual(recordOf(agent("s-alias"), "ta", 1, T0));
  });

  it("lets exactly one of 50 concurrent claimants win", async () => {
    const concurrent = h.concurrentStores();
    const claimants = Array.from({ length: 50 }, (_, i) => agent(`s-${i}`));
    const outcomes: ClaimOutcome[] = await Promise.all(
      claimants.map((actor, i) => claim(actor, `t${i}`, {}, concurrent[i % concurrent.length])),
    );
    const created = outcomes.filter((outcome) => outcome.kind === "created");
    const held = outcomes.filter((outcome) => outcome.kind === "held");
    expect(created).toHaveLength(1);
    expect(held).toHaveLength(49);
    const winner = created[0]!.record;
    expect(winner.generation).toBe(1);
    expect(await stores.claims.get(key)).toStrictEqual(winner);
    for (const outcome of held) expect(outcome).toStrictEqual({ kind: "held", current: winner });
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: T0, generation: 1, kind: "claimed", actor: winner.actor },
    ]);
  });
  // --- Transitions made by the App itself ---

  const maintainer: Actor = { kind: "human", login: "maintainer" };
  const janitor: Actor = { kind: "agent", login: "claim-hold[bot]" };
  const verify = (generation: number, token: string) =>
    stores.claims.verify({ key, generation, tokenDigest: digest(token), now });
  const endClaim = (extra: Partial<EndClaimInput> = {}) =>
    stores.claims.endClaim({ key, generation: 1, now, to: "reaped", bump: false, ...extra });
  const markStale = (extra: Partial<MarkStaleInput> = {}) =>
    stores.claims.markStale({
      key,
      generation: 1,
      now,
      requireSilentMs: durations.ttlMs,
      storeEpoch: T0,
      ...extra,
    });
  const humanClaim = (extra: Partial<HumanClaimInput> = {}) =>
    stores.claims.humanClaim({
      key,
      repo: "acme/widgets",
      actor: maintainer,
      now,
      minGeneration: 0,
      release: false,
      appAssigned: true,
      ...extra,
    });
  const issuesListed = async (repoId = 1001, limit = 10, installationId = inst) =>
    (await stores.index.listRepository(installationId, repoId, limit)).map((record) => record.issue);

  describe("the failure breaker's attempts", () => {
    const attemptOf = (
      generation: number,
      reason: string,
      claimedAt: number,
      endedAt: number,
      actor = alice,
    ) => ({
      generation,
      reason,
      actor,
      claimedAt,
      endedAt,
      branch: `agent/${actor.sessionId}/${key.issue}-fix`,
    });

    it("records a failed end (reap, lost-permission revoke, stalled takeover) atomically and answers the attempts", async () => {
      await claim(alice, "ta");
      now = T0 + durations.reclaimAfterMs;
      const reaped = await endClaim({ bump: true, failure: "reaped" });
      const first = attemptOf(1, "reaped", T0, now);
      expect(reaped).toMatchObject({ kind: "ended", failures: [first] });
      const claimedAt = now;
      await claim(bob, "tb", { minGeneration: 2 });
      now += 1000;
      const revoked = await endClaim({ generation: 3, bump: true, to: "revoked", failure: "revoked" });
      const second = attemptOf(3, "revoked", claimedAt, now, bob);
      expect(revoked).toMatchObject({ kind: "ended", failures: [first, second] });
      const stalledAt = now;
      await claim(alice, "tc", { minGeneration: 4 });
      now += 1000;
      const stalled = await endClaim({ generation: 5, bump: true, failure: "stalled" });
      expect(stalled).toMatchObject({
        kind: "ended",
        failures: [first, second, attemptOf(5, "stalled", stalledAt, now)],
      });
      expect(await stores.claims.failures(key)).toStrictEqual([
        first,
        second,
        attemptOf(5, "stalled", stalledAt, now),
      ]);
    });

    it("records a release with outcome failed, with its note; the other outcomes and ends count nothing", async () => {
      await claim(alice, "ta");
      now += 1000;
      const outcome = await stores.claims.release({
        key,
        generation: 1,
        tokenDigest: digest("ta"),
        now,
        outcome: "failed",
        note: "  tests never pass on CI  ",
      });
      const attempt = { ...attemptOf(1, "failed", T0, now), note: "tests never pass on CI" };
      expect(outcome).toMatchObject({ kind: "released", repeated: false, failures: [attempt] });
      expect(outcome).toHaveProperty("record.outcome", "failed");
      // A repeated release records nothing more.
      expect(
        await stores.claims.release({
          key,
          generation: 1,
          tokenDigest: digest("ta"),
          now,
          outcome: "failed",
        }),
      ).not.toHaveProperty("failures");
      await claim(bob, "tb");
      now += 1000;
      // A handoff counts nothing; it answers the attempts standing (the ending write's trip label).
      expect(await release(2, "tb")).toMatchObject({ failures: [attempt] });
      await claim(alice, "tc");
      now += 1000;
      // A person's revoke (no failure) counts nothing either.
      expect(await endClaim({ generation: 3, to: "revoked", by: maintainer })).toMatchObject({
        failures: [attempt],
      });
      expect(await stores.claims.failures(key)).toStrictEqual([attempt]);
    });

    it("refuses a new generation of a tripped subject without override, in the claim's own step", async () => {
      await claim(alice, "ta");
      now += 1000;
      await stores.claims.release({ key, generation: 1, tokenDigest: digest("ta"), now, outcome: "failed" });
      const before = await snapshot();
      const tripped = await claim(bob, "tb", { breaker: { maxFailures: 1, override: false } });
      expect(tripped).toStrictEqual({ kind: "tripped", failures: 1 });
      expect(await snapshot()).toStrictEqual(before);
      // Below maxFailures, or with override, it is claimed.
      expect(await claim(bob, "tb", { breaker: { maxFailures: 2, override: false } })).toMatchObject({
        kind: "created",
        record: { generation: 2 },
      });
      await release(2, "tb");
      expect(await claim(carol, "tc", { breaker: { maxFailures: 1, override: true } })).toMatchObject({
        kind: "created",
        record: { generation: 3 },
      });
    });

    it("a release with outcome completed ends the run of failures; handoff keeps it", async () => {
      await claim(alice, "ta");
      now += 1000;
      await stores.claims.release({ key, generation: 1, tokenDigest: digest("ta"), now, outcome: "failed" });
      await claim(bob, "tb");
      now += 1000;
      await release(2, "tb", "handoff");
      expect(await stores.claims.failures(key)).toHaveLength(1);
      await claim(alice, "tc");
      now += 1000;
      await release(3, "tc", "completed");
      expect(await stores.claims.failures(key)).toStrictEqual([]);
    });

    it("keeps the attempts across new generations until a person clears them, and only this subject's", async () => {
      const other = { ...key, issue: key.issue + 1 };
      await claim(alice, "ta");
      await claim(bob, "tb", { key: other });
      now += 1000;
      await endClaim({ bump: true, failure: "reaped" });
      await stores.claims.endClaim({
        key: other,
        generation: 1,
        now,
        to: "reaped",
        bump: true,
        failure: "reaped",
      });
      await claim(alice, "tc");
      expect(await stores.claims.failures(key)).toHaveLength(1);
      await stores.claims.clearFailures(key);
      expect(await stores.claims.failures(key)).toStrictEqual([]);
      expect(await stores.claims.failures(other)).toHaveLength(1);
      // Clearing twice (a redelivered webhook) is harmless.
      await stores.claims.clearFailures(key);
      expect(await stores.claims.failures(key)).toStrictEqual([]);
    });

    it("an operator's clear withdraws the ask and forgets the attempts, only at the generation the operator saw", async () => {
      // Generation 1 is reaped (one attempt); generation 3 asks for a person.
      await claim(alice, "ta");
      now += 1000;
      await endClaim({ bump: true, failure: "reaped" });
      await claim(bob, "tb", { minGeneration: 2 });
      now += 1000;
      await stores.claims.heartbeat({
        key,
        generation: 3,
        tokenDigest: digest("tb"),
        now,
        phaseEditEveryMs,
        needsHuman: true,
        blocker: "which schema?",
      });
      const asking = await stores.claims.get(key);
      expect(asking).toMatchObject({ generation: 3, needsHuman: true });

      // A page that showed generation 2 (or any other) changes nothing.
      expect(await stores.claims.clearNeedsHuman({ key, generation: 2, now })).toStrictEqual({
        kind: "skipped",
        reason: "moved-on",
        current: asking,
      });
      expect(await stores.claims.get(key)).toStrictEqual(asking);
      expect(await stores.claims.failures(key)).toHaveLength(1);

      // A person's answer is progress: the clear moves progressAt.
      now += 1000;
      const { needsHuman: _, ...rest } = asking!;
      const withdrawn = { ...rest, progressAt: now };
      expect(await stores.claims.clearNeedsHuman({ key, generation: 3, now })).toStrictEqual({
        kind: "cleared",
        record: withdrawn,
        withdrewAsk: true,
        failuresCleared: 1,
      });
      expect(await stores.claims.get(key)).toStrictEqual(withdrawn);
      expect(await stores.claims.failures(key)).toStrictEqual([]);
      // A second clear (a resent form) finds nothing to clear.
      expect(await stores.claims.clearNeedsHuman({ key, generation: 3, now: now + 1 })).toStrictEqual({
        kind: "skipped",
        reason: "nothing",
        current: withdrawn,
      });
      // The holder asks again with its next heartbeat.
      now += 1000;
      await stores.claims.heartbeat({
        key,
        generation: 3,
        tokenDigest: digest("tb"),
        now,
        phaseEditEveryMs,
        needsHuman: true,
        blocker: "which schema?",
      });
      expect(await stores.claims.get(key)).toMatchObject({ needsHuman: true });
      // No record: nothing to clear.
      expect(
        await stores.claims.clearNeedsHuman({ key: { ...key, issue: key.issue + 1 }, generation: 1, now }),
      ).toStrictEqual({ kind: "skipped", reason: "missing", current: null });
    });

    it("an operator's clear of an ended generation resets a tripped breaker and leaves the record as it was", async () => {
      await claim(alice, "ta");
      now += 1000;
      await endClaim({ bump: true, failure: "reaped" });
      const ended = await stores.claims.get(key);
      expect(await stores.claims.clearNeedsHuman({ key, generation: 2, now })).toStrictEqual({
        kind: "cleared",
        record: ended,
        withdrewAsk: false,
        failuresCleared: 1,
      });
      expect(await stores.claims.get(key)).toStrictEqual(ended);
      expect(await stores.claims.failures(key)).toStrictEqual([]);
    });

    it("keeps only the last failuresKept attempts", async () => {
      let generation = 0;
      for (let i = 0; i < failuresKept + 2; i++) {
        const created = await claim(alice, `t${i}`, { minGeneration: generation });
        generation = (created as { record: ClaimRecord }).record.generation;
        now += 1000;
        await endClaim({ generation, bump: true, failure: "reaped" });
        generation += 1;
      }
      const kept = await stores.claims.failures(key);
      expect(kept).toHaveLength(failuresKept);
      expect(kept.at(-1)!.generation).toBe(generation - 1);
    });
  });

  it("reaps a silent claim with a bump: the old lease answers gone, its generation is spent", async () => {
    await claim(alice, "ta");
    now += durations.ttlMs;
    const requestedAt = now;
    await claim(bob, "tb", { takeover: true }); // a takeover intent the reap clears
    now = T0 + durations.reclaimAfterMs;
    const silent = recordOf(alice, "ta", 1, T0, {
      takeover: { claimant: bob, at: requestedAt, graceMs: durations.heartbeatMs },
    });
    const reaped = recordOf(alice, "ta", 2, T0, {
      state: "reaped",
      endedAt: now,
      endedBy: janitor,
      supersedes: 1,
    });
    expect(
      await endClaim({ bump: true, by: janitor, requireSilentMs: durations.reclaimAfterMs, storeEpoch: T0 }),
    ).toStrictEqual({ kind: "ended", previous: silent, record: reaped });
    expect(await stores.claims.get(key)).toStrictEqual(reaped);
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "gone", reason: "reaped", current: reaped });
    expect(await verify(1, "ta")).toStrictEqual({ kind: "gone", reason: "reaped", current: reaped });
    expect(await release(1, "ta")).toStrictEqual({ kind: "gone", reason: "reaped", current: reaped });
    expect(await heartbeat(2, "ta")).toStrictEqual({ kind: "invalid_token" });
    expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    expect(await stores.index.activeCount(inst)).toBe(0);
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: now, generation: 1, kind: "reaped", actor: janitor },
      { at: requestedAt, generation: 1, kind: "takeover-requested", actor: bob },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
    expect(await claim(bob, "tb")).toStrictEqual({
      kind: "created",
      record: recordOf(bob, "tb", 3, now, { supersedes: 2 }),
      previous: reaped,
    });
  });

  it.each(["reaped", "revoked", "completed"] as const)(
    "answers the old token of a claim ended as %s with gone and that reason",
    async (to) => {
      await claim(alice, "ta");
      now += minute;
      const outcome = await endClaim({ to, bump: true });
      const ended = recordOf(alice, "ta", 2, T0, { state: to, endedAt: now, supersedes: 1 });
      expect(outcome).toStrictEqual({ kind: "ended", previous: recordOf(alice, "ta", 1, T0), record: ended });
      const gone = { kind: "gone", reason: to, current: ended };
      expect(await heartbeat(1, "ta")).toStrictEqual(gone);
      expect(await verify(1, "ta")).toStrictEqual(gone);
      expect(await release(1, "ta", "completed")).toStrictEqual(gone);
      expect(await stores.claims.history(key)).toStrictEqual([
        { at: now, generation: 1, kind: to },
        { at: T0, generation: 1, kind: "claimed", actor: alice },
      ]);
    },
  );

  it("revokes without a bump: the generation stays and the lease answers gone revoked", async () => {
    await claim(alice, "ta");
    now += minute;
    const revoked = recordOf(alice, "ta", 1, T0, { state: "revoked", endedAt: now, endedBy: maintainer });
    expect(await endClaim({ to: "revoked", by: maintainer })).toStrictEqual({
      kind: "ended",
      previous: recordOf(alice, "ta", 1, T0),
      record: revoked,
    });
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "gone", reason: "revoked", current: revoked });
    expect(await verify(1, "ta")).toStrictEqual({ kind: "gone", reason: "revoked", current: revoked });
    expect(await release(1, "ta")).toStrictEqual({ kind: "gone", reason: "revoked", current: revoked });
    expect((await stores.claims.history(key))[0]).toStrictEqual({
      at: now,
      generation: 1,
      kind: "revoked",
      actor: maintainer,
    });
    expect(await claim(bob, "tb")).toMatchObject({
      kind: "created",
      record: { generation: 2, supersedes: 1 },
    });
  });

  it("takes an ended claim out of the caps", async () => {
    const one = { perSession: 1, perLogin: 10 };
    await claim(alice, "a42", { caps: one });
    expect((await claim(alice, "a43", { key: on(43), caps: one })).kind).toBe("cap_reached");
    await endClaim({ to: "revoked" });
    expect((await claim(alice, "a43", { key: on(43), caps: one })).kind).toBe("created");
  });

  it("bumps above a generation burnt by a rolled-back claim", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs;
    const taken = await claim(bob, "tb", { takeover: true });
    if (taken.kind !== "created") throw new Error("expected created");
    await stores.claims.rollbackClaim(key, 2, taken.previous, now);
    expect(await endClaim({ bump: true })).toMatchObject({
      kind: "ended",
      record: { generation: 3, supersedes: 1, state: "reaped" },
    });
    expect(await claim(carol, "tc")).toMatchObject({ kind: "created", record: { generation: 4 } });
  });

  it("skips ending a claim that is missing, moved on or no longer active, and changes nothing", async () => {
    expect(await endClaim()).toStrictEqual({ kind: "skipped", reason: "missing", current: null });
    expect(await stores.claims.get(key)).toBeNull();
    await claim(alice, "ta");
    const live = recordOf(alice, "ta", 1, T0);
    expect(await endClaim({ generation: 2 })).toStrictEqual({
      kind: "skipped",
      reason: "moved-on",
      current: live,
    });
    now += minute;
    await release(1, "ta");
    const before = await snapshot();
    expect(await endClaim({ bump: true })).toStrictEqual({
      kind: "skipped",
      reason: "not-active",
      current: before.record,
    });
    expect(await snapshot()).toStrictEqual(before);
  });

  it("skips a reap when the holder is not silent long enough, counting silence from the store's epoch", async () => {
    const silence = { requireSilentMs: durations.reclaimAfterMs, bump: true };
    await claim(alice, "ta");
    now = T0 + durations.reclaimAfterMs - 1;
    const before = await snapshot();
    expect(await endClaim({ ...silence, storeEpoch: 0 })).toStrictEqual({
      kind: "skipped",
      reason: "live",
      current: recordOf(alice, "ta", 1, T0),
    });
    expect(await snapshot()).toStrictEqual(before);
    now = T0 + durations.reclaimAfterMs;
    // The store came up empty at T0 + 10m: its claims count as heard from then (liveness unknown).
    const epoch = T0 + 10 * minute;
    expect(await endClaim({ ...silence, storeEpoch: epoch })).toMatchObject({
      kind: "skipped",
      reason: "live",
    });
    now = epoch + durations.reclaimAfterMs - 1;
    expect(await endClaim({ ...silence, storeEpoch: epoch })).toMatchObject({
      kind: "skipped",
      reason: "live",
    });
    now = epoch + durations.reclaimAfterMs;
    expect(await endClaim({ ...silence, storeEpoch: epoch })).toMatchObject({
      kind: "ended",
      record: { state: "reaped", generation: 2 },
    });
  });

  it("lets a heartbeat that lands before the reap win: the reap re-checks the silence", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs - minute;
    // The janitor saw the claim due, then the holder heartbeats before the reap lands.
    expect(await stores.index.due(inst, now, 10)).toStrictEqual([key]);
    expect((await heartbeat(1, "ta")).kind).toBe("ok");
    now += minute;
    const outcome = await endClaim({ bump: true, requireSilentMs: durations.reclaimAfterMs, storeEpoch: T0 });
    expect(outcome).toStrictEqual({
      kind: "skipped",
      reason: "live",
      current: recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now - minute }),
    });
    expect((await heartbeat(1, "ta")).kind).toBe("ok");
  });

  it("orders a racing heartbeat and reap one way or the other, never both", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs - 1;
    const [mine, theirs] = [h.concurrentStores()[0]!, h.concurrentStores().at(-1)!];
    const [beat, reap] = await Promise.all([
      mine.claims.heartbeat({
        key,
        generation: 1,
        tokenDigest: digest("ta"),
        now,
        phaseEditEveryMs,
        wantRecord: true,
      }),
      theirs.claims.endClaim({
        key,
        generation: 1,
        now,
        to: "reaped",
        bump: true,
        requireSilentMs: durations.reclaimAfterMs - 1,
      }),
    ]);
    const record = await stores.claims.get(key);
    if (beat.kind === "ok") {
      expect(reap).toStrictEqual({ kind: "skipped", reason: "live", current: beat.record });
      expect(record).toStrictEqual(beat.record);
    } else {
      expect(reap.kind).toBe("ended");
      expect(beat).toStrictEqual({ kind: "gone", reason: "reaped", current: record });
    }
  });

  it("marks a silent claim stale once, moving its deadline to reclaimAfter; a heartbeat clears the mark", async () => {
    await claim(alice, "ta");
    now += durations.ttlMs;
    const marked = recordOf(alice, "ta", 1, T0, { staleMarkedAt: now });
    expect(await markStale()).toStrictEqual({ kind: "marked", record: marked });
    expect(await stores.claims.get(key)).toStrictEqual(marked);
    expect(await stores.index.due(inst, T0 + durations.reclaimAfterMs - 1, 10)).toStrictEqual([]);
    expect(await stores.index.due(inst, T0 + durations.reclaimAfterMs, 10)).toStrictEqual([key]);
    expect(await stores.index.activeCount(inst)).toBe(1);
    now += minute;
    expect(await markStale()).toStrictEqual({ kind: "skipped", reason: "already-marked", current: marked });
    expect(await stores.claims.history(key)).toHaveLength(1);

    expect(await heartbeat(1, "ta")).toStrictEqual(
      beatOf(recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now }), { editComment: true }),
    );
    expect(await stores.index.due(inst, now + durations.ttlMs - 1, 10)).toStrictEqual([]);
    expect(await stores.index.due(inst, now + durations.ttlMs, 10)).toStrictEqual([key]);
  });

  it("skips marking stale a claim that is missing, moved on, ended or still heard from", async () => {
    expect(await markStale()).toStrictEqual({ kind: "skipped", reason: "missing", current: null });
    await claim(alice, "ta");
    const live = recordOf(alice, "ta", 1, T0);
    now += durations.ttlMs - 1;
    expect(await markStale()).toStrictEqual({ kind: "skipped", reason: "live", current: live });
    now += 1;
    expect(await markStale({ storeEpoch: T0 + minute })).toStrictEqual({
      kind: "skipped",
      reason: "live",
      current: live,
    });
    expect(await markStale({ generation: 3 })).toStrictEqual({
      kind: "skipped",
      reason: "moved-on",
      current: live,
    });
    expect(await stores.claims.get(key)).toStrictEqual(live);
    await release(1, "ta");
    expect(await markStale()).toMatchObject({ kind: "skipped", reason: "not-active" });
  });

  it("lets a human take a live agent claim: a new generation, the old lease superseded", async () => {
    await claim(alice, "ta", { durations: reviewerDurations });
    const taken = recordOf(alice, "ta", 1, T0, { durations: reviewerDurations });
    now += minute;
    const human: ClaimRecord = {
      installationId: inst,
      repoId: 1001,
      issue: 42,
      repo: "acme/widgets",
      generation: 2,
      state: "human",
      actor: maintainer,
      taskClass: "author",
      durations: reviewerDurations,
      claimedAt: now,
      lastHeartbeatAt: now,
      appAssigned: true,
      sync: "pending",
      branch: "agent/s-alice/42-fix",
      issueNodeId: "I_kwDOAB",
      assigneeNodeId: "U_maintainer",
      supersedes: 1,
    };
    expect(await humanClaim({ issueNodeId: "I_kwDOAB", assigneeNodeId: "U_maintainer" })).toStrictEqual({
      record: human,
      previous: taken,
    });
    expect(await stores.claims.get(key)).toStrictEqual(human);
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "superseded", current: human });
    expect(await verify(1, "ta")).toStrictEqual({ kind: "superseded", current: human });
    expect(await release(1, "ta")).toStrictEqual({ kind: "superseded", current: human });
    expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    expect(await stores.index.activeCount(inst)).toBe(0);
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({ kind: "human_held", current: human });
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: now, generation: 2, kind: "claimed", actor: maintainer },
      { at: now, generation: 1, kind: "superseded", actor: maintainer },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
  });

  it("frees the agent's cap when a human takes its claim", async () => {
    const one = { perSession: 1, perLogin: 10 };
    await claim(alice, "a42", { caps: one });
    await humanClaim();
    expect((await claim(alice, "a43", { key: on(43), caps: one })).kind).toBe("created");
  });

  it("keeps the issue's title on a human claim, so the dashboard's reclaimed row still names it", async () => {
    await claim(alice, "ta");
    const { record } = await humanClaim({ title: "Fix the parser" });
    expect(record.title).toBe("Fix the parser");
    expect((await stores.claims.get(key))?.title).toBe("Fix the parser");
  });

  it("releases a subject for good on /reclaim release, above minGeneration, with default durations", async () => {
    const released: ClaimRecord = {
      installationId: inst,
      repoId: 1001,
      issue: 42,
      repo: "acme/widgets",
      generation: 7,
      state: "released",
      actor: maintainer,
      taskClass: "author",
      durations: { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute },
      claimedAt: now,
      lastHeartbeatAt: now,
      appAssigned: false,
      sync: "pending",
      outcome: "abandoned",
      endedAt: now,
      endedBy: maintainer,
    };
    expect(await humanClaim({ release: true, appAssigned: false, minGeneration: 6 })).toStrictEqual({
      record: released,
      previous: null,
    });
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: now, generation: 7, kind: "released", actor: maintainer, note: "abandoned" },
    ]);
    expect(await claim(alice, "ta")).toStrictEqual({
      kind: "created",
      record: recordOf(alice, "ta", 8, now, { supersedes: 7 }),
      previous: released,
    });
  });

  it("answers the agent's old lease gone released after a /reclaim release", async () => {
    await claim(alice, "ta");
    now += minute;
    const { record } = await humanClaim({ release: true });
    expect(record).toMatchObject({ generation: 2, state: "released", supersedes: 1, outcome: "abandoned" });
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "gone", reason: "released", current: record });
    expect(await verify(1, "ta")).toStrictEqual({ kind: "gone", reason: "released", current: record });
    expect((await stores.claims.history(key)).map((entry) => entry.kind)).toStrictEqual([
      "released",
      "superseded",
      "claimed",
    ]);
  });

  it("takes an ended subject above the high-water mark and records no supersede", async () => {
    await claim(alice, "ta");
    now += durations.reclaimAfterMs;
    const taken = await claim(bob, "tb", { takeover: true });
    if (taken.kind !== "created") throw new Error("expected created");
    await stores.claims.rollbackClaim(key, 2, taken.previous, now);
    await release(1, "ta");
    const { record, previous } = await humanClaim();
    expect(record).toMatchObject({ generation: 3, supersedes: 1, state: "human" });
    expect(previous).toMatchObject({ generation: 1, state: "released" });
    expect((await stores.claims.history(key)).slice(0, 2)).toStrictEqual([
      { at: now, generation: 3, kind: "claimed", actor: maintainer },
      { at: now, generation: 1, kind: "released", actor: alice, note: "handoff" },
    ]);
    expect(await humanClaim({ minGeneration: 9 })).toMatchObject({
      record: { generation: 10, supersedes: 3 },
      previous: record,
    });
  });

  it("records the latest push of the active generation only", async () => {
    await stores.claims.recordPush(key, 1, T0);
    expect(await stores.claims.get(key)).toBeNull();
    await claim(alice, "ta");
    await stores.claims.recordPush(key, 1, T0 + 5 * minute);
    expect(await stores.claims.get(key)).toStrictEqual(
      recordOf(alice, "ta", 1, T0, { lastPushAt: T0 + 5 * minute }),
    );
    await stores.claims.recordPush(key, 1, T0 + minute); // an older push arriving late
    await stores.claims.recordPush(key, 2, T0 + 9 * minute);
    expect(await stores.claims.get(key)).toStrictEqual(
      recordOf(alice, "ta", 1, T0, { lastPushAt: T0 + 5 * minute }),
    );
    await stores.claims.recordPush(key, 1, T0 + 7 * minute);
    expect((await stores.claims.get(key))?.lastPushAt).toBe(T0 + 7 * minute);
    await release(1, "ta");
    await stores.claims.recordPush(key, 1, T0 + 8 * minute);
    expect((await stores.claims.get(key))?.lastPushAt).toBe(T0 + 7 * minute);
    expect(await stores.claims.history(key)).toHaveLength(2);
  });

  describe("progress and stalled (docs/reference/http-api.md#stalled)", () => {
    const stall = (onStall: "needs-human" | "reclaimable") => ({ stall: { afterMs: 20 * minute, onStall } });
    const usage = (costMicros: number) => ({ usage: { costMicros, tokens: 0 } });

    it("keeps stallAfter and onStall on the record; a phase change or a spend increase is progress, a repeat is not", async () => {
      await claim(alice, "ta", stall("needs-human"));
      expect(await stores.claims.get(key)).toMatchObject({
        stallAfterMs: 20 * minute,
        onStall: "needs-human",
      });
      now += minute;
      await heartbeat(1, "ta", { phase: "coding" });
      expect((await stores.claims.get(key))?.progressAt).toBe(now);
      const phasedAt = now;
      now += minute;
      await heartbeat(1, "ta", { phase: "coding", ...usage(0) });
      expect((await stores.claims.get(key))?.progressAt).toBe(phasedAt);
      now += minute;
      await heartbeat(1, "ta", usage(5));
      expect((await stores.claims.get(key))?.progressAt).toBe(now);
      now += minute;
      await heartbeat(1, "ta", usage(5));
      expect((await stores.claims.get(key))?.progressAt).toBe(now - minute);
    });

    it("answers stalledSince past stallAfter without progress, marks the first such heartbeat once, and a push ends it", async () => {
      await claim(alice, "ta", stall("needs-human"));
      now += 19 * minute;
      const early = await heartbeat(1, "ta");
      expect(early).toMatchObject({ kind: "ok" });
      expect(early).not.toHaveProperty("stalledSince");
      now += 2 * minute;
      const first = await heartbeat(1, "ta");
      expect(first).toMatchObject({
        kind: "ok",
        stalledSince: T0 + 20 * minute,
        stalledNow: true,
        record: { stalledAt: now, generation: 1 },
      });
      now += minute;
      const second = await heartbeat(1, "ta");
      expect(second).toMatchObject({ stalledSince: T0 + 20 * minute });
      expect(second).not.toHaveProperty("stalledNow");
      await stores.claims.recordPush(key, 1, now);
      now += minute;
      expect(await heartbeat(1, "ta")).not.toHaveProperty("stalledSince");
      // An ask for a person is waiting, not stalled.
      now += 30 * minute;
      expect(await heartbeat(1, "ta", { needsHuman: true, blocker: "b" })).not.toHaveProperty("stalledSince");
    });

    it("an operator's clear of an ask is progress: a holder that asked longer than stallAfter is not stalled at once", async () => {
      await claim(alice, "ta", stall("reclaimable"));
      now += minute;
      await heartbeat(1, "ta", { needsHuman: true, blocker: "which schema?" });
      now += 30 * minute;
      expect(await heartbeat(1, "ta", { needsHuman: true, blocker: "which schema?" })).not.toHaveProperty(
        "stalledSince",
      );
      const clearedAt = now;
      expect(await stores.claims.clearNeedsHuman({ key, generation: 1, now })).toMatchObject({
        kind: "cleared",
        withdrewAsk: true,
        record: { progressAt: clearedAt },
      });
      now += minute;
      expect(await heartbeat(1, "ta")).not.toHaveProperty("stalledSince");
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "held" });
      // Stalled again only stallAfter after the clear.
      now = clearedAt + 21 * minute;
      expect(await heartbeat(1, "ta")).toMatchObject({ stalledSince: clearedAt + 20 * minute });
    });

    it("lets another session take over a live claim stalled with onStall reclaimable, and only then", async () => {
      await claim(alice, "ta", stall("needs-human"));
      now += 25 * minute;
      await heartbeat(1, "ta");
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "held" });
      await release(1, "ta");
      await claim(alice, "tc", stall("reclaimable"));
      const claimedAt = now;
      now += 10 * minute;
      await heartbeat(2, "tc");
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "held" });
      now = claimedAt + 25 * minute;
      await heartbeat(2, "tc");
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "takeover_pending" });
      // The holder's heartbeats go on without progress: the intent stays.
      now += minute;
      expect(await heartbeat(2, "tc")).toMatchObject({ kind: "ok", stalledSince: claimedAt + 20 * minute });
      expect((await stores.claims.get(key))?.takeover?.claimant).toStrictEqual(bob);
      now += durations.heartbeatMs;
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({
        kind: "created",
        record: { generation: 3, supersedes: 2 },
        previous: { generation: 2, stalledAt: claimedAt + 25 * minute },
      });
      expect(await heartbeat(2, "tc")).toMatchObject({ kind: "superseded" });
      // The ended generation is identifiable as stalled-and-taken (the failure breaker's count).
      expect((await stores.claims.history(key)).slice(0, 2)).toStrictEqual([
        { at: now, generation: 3, kind: "claimed", actor: bob },
        { at: now, generation: 2, kind: "superseded", actor: bob, note: "stalled" },
      ]);
    });

    /** A live claim by alice stalled with `onStall: reclaimable`, bob's takeover intent past its grace. */
    async function stalledAndAsked(extra: Partial<ClaimInput> = {}) {
      await claim(alice, "ta", { ...stall("reclaimable"), ...extra });
      now += 25 * minute;
      await heartbeat(1, "ta");
      expect(await claim(bob, "tb", { takeover: true, ...extra })).toMatchObject({
        kind: "takeover_pending",
      });
      now += durations.heartbeatMs;
      await heartbeat(1, "ta");
    }
    const stalledAttempt = (generation: number, endedAt: number) => ({
      generation,
      reason: "stalled",
      actor: alice,
      claimedAt: T0,
      endedAt,
      branch: `agent/${alice.sessionId}/${key.issue}-fix`,
    });

    it("counts a stalled generation taken over as a failed attempt, in the claim itself; a rollback takes it back", async () => {
      await stalledAndAsked();
      const taken = await claim(bob, "tb", { takeover: true, breaker: { maxFailures: 3, override: false } });
      expect(taken).toMatchObject({
        kind: "created",
        record: { generation: 2 },
        failures: [stalledAttempt(1, now)],
      });
      expect(await stores.claims.failures(key)).toStrictEqual([stalledAttempt(1, now)]);
      // The takeover's GitHub write failed: the stalled holder is back, and has not failed.
      const { previous } = taken as { previous: ClaimRecord };
      await stores.claims.rollbackClaim(key, 2, previous, now);
      expect(await stores.claims.failures(key)).toStrictEqual([]);
      expect(await stores.claims.get(key)).toMatchObject({ generation: 1, state: "active" });
    });

    it("a stalled takeover whose attempt trips the breaker ends the stalled generation without override, and takes it with", async () => {
      await stalledAndAsked();
      const tripping = { takeover: true, breaker: { maxFailures: 1, override: false } };
      const failing = await claim(bob, "tb", tripping);
      expect(failing).toMatchObject({
        kind: "failing",
        previous: { generation: 1, state: "active" },
        record: { generation: 2, supersedes: 1, state: "reaped", endedAt: now, sync: "pending" },
        failures: [stalledAttempt(1, now)],
      });
      expect(await heartbeat(1, "ta")).toMatchObject({ kind: "gone", reason: "reaped" });
      expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
      expect((await stores.claims.history(key))[0]).toStrictEqual({
        at: now,
        generation: 1,
        kind: "reaped",
        note: "stalled",
      });
      expect(await stores.claims.failures(key)).toStrictEqual([stalledAttempt(1, now)]);

      // With override the takeover proceeds, counted all the same.
      await stores.claims.clearFailures(key);
      now += minute;
      const claimedAt = now;
      await claim(alice, "tc", stall("reclaimable"));
      now += 25 * minute;
      await heartbeat(3, "tc");
      await claim(bob, "td", { takeover: true });
      now += durations.heartbeatMs;
      const override = await claim(bob, "td", {
        takeover: true,
        breaker: { maxFailures: 1, override: true },
      });
      expect(override).toMatchObject({
        kind: "created",
        record: { generation: 4, supersedes: 3 },
        failures: [
          { ...stalledAttempt(3, now), claimedAt, branch: `agent/${alice.sessionId}/${key.issue}-fix` },
        ],
      });
    });

    it("keeps the failure breaker's trip mark next to the attempts: set once written, cleared with them", async () => {
      const other = { ...key, issue: key.issue + 1 };
      expect(await stores.claims.breakers([])).toStrictEqual([]);
      expect(await stores.claims.breakers([key, other])).toStrictEqual([{ attempts: [] }, { attempts: [] }]);
      await stalledAndAsked();
      await claim(bob, "tb", { takeover: true });
      await stores.claims.markTripWritten(key, 1);
      expect(await stores.claims.breakers([other, key])).toStrictEqual([
        { attempts: [] },
        { attempts: [stalledAttempt(1, now)], tripWrittenThrough: 1 },
      ]);
      await stores.claims.clearFailures(key);
      expect(await stores.claims.breakers([key])).toStrictEqual([{ attempts: [] }]);
    });

    it("asks a person on a stall's behalf once with needs-human; progress, the holder's own ask or a person withdraws it", async () => {
      await claim(alice, "ta", stall("needs-human"));
      now += 21 * minute;
      const stalled = await heartbeat(1, "ta");
      expect(stalled).toMatchObject({ stalledNow: true, stallAskChange: "asked", live: { stallAsk: true } });
      expect((await stores.claims.get(key))?.stallAsk).toBe(true);
      now += minute;
      const steady = await heartbeat(1, "ta");
      expect(steady).toMatchObject({ live: { stallAsk: true } });
      expect(steady).not.toHaveProperty("stallAskChange");
      // A push withdraws it (and says so); a second push finds nothing to withdraw.
      expect(await stores.claims.recordPush(key, 1, now)).toStrictEqual({ stallAskWithdrawn: true });
      expect((await stores.claims.get(key))?.stallAsk).toBeUndefined();
      now += minute;
      expect(await stores.claims.recordPush(key, 1, now)).toStrictEqual({ stallAskWithdrawn: false });
      // Stalled again in the generation: asked nobody again.
      now += 25 * minute;
      const again = await heartbeat(1, "ta");
      expect(again).toMatchObject({ stalledSince: now - 5 * minute });
      expect(again).not.toHaveProperty("stallAskChange");
      expect((await stores.claims.get(key))?.stallAsk).toBeUndefined();
      await release(1, "ta");
      // A new generation: a phase change withdraws it, the holder's own ask takes it over.
      await claim(alice, "tb", stall("needs-human"));
      now += 21 * minute;
      expect(await heartbeat(2, "tb")).toMatchObject({ stallAskChange: "asked" });
      now += minute;
      expect(await heartbeat(2, "tb", { phase: "testing" })).toMatchObject({ stallAskChange: "withdrawn" });
      now += 21 * minute;
      expect(await heartbeat(2, "tb")).not.toHaveProperty("stallAskChange");
      await release(2, "tb");
      await claim(alice, "tc", stall("needs-human"));
      now += 21 * minute;
      expect(await heartbeat(3, "tc")).toMatchObject({ stallAskChange: "asked" });
      now += minute;
      const asks = await heartbeat(3, "tc", { needsHuman: true, blocker: "b" });
      expect(asks).toMatchObject({ stallAskChange: "withdrawn" });
      expect((asks as { live: object }).live).not.toHaveProperty("stallAsk");
      await release(3, "tc");
      // A person's answer: withdrawn once, for the generation that asked only.
      await claim(alice, "td", stall("needs-human"));
      now += 21 * minute;
      await heartbeat(4, "td");
      expect(await stores.claims.withdrawStallAsk(key, 3)).toBe(false);
      expect(await stores.claims.withdrawStallAsk(key, 4)).toBe(true);
      expect(await stores.claims.withdrawStallAsk(key, 4)).toBe(false);
      expect((await stores.claims.get(key))?.stallAsk).toBeUndefined();
    });

    it("an operator's clear withdraws the App's ask on a stall's behalf too, as progress", async () => {
      await claim(alice, "ta", stall("needs-human"));
      now += 21 * minute;
      expect(await heartbeat(1, "ta")).toMatchObject({ stallAskChange: "asked" });
      now += minute;
      const cleared = await stores.claims.clearNeedsHuman({ key, generation: 1, now });
      expect(cleared).toMatchObject({ kind: "cleared", withdrewAsk: true, failuresCleared: 0 });
      const record = await stores.claims.get(key);
      expect(record?.stallAsk).toBeUndefined();
      expect(record?.progressAt).toBe(now);
      // Nothing left to clear: the App's ask went with the clear.
      expect(await stores.claims.clearNeedsHuman({ key, generation: 1, now })).toMatchObject({
        kind: "skipped",
        reason: "nothing",
      });
    });

    it("ends a claim the App asked about without stallAsk, the record shape release 0.1.0 reads", async () => {
      const asked = async (generation: number, token: string) => {
        await claim(alice, token, stall("needs-human"));
        now += 21 * minute;
        expect(await heartbeat(generation, token)).toMatchObject({ stallAskChange: "asked" });
      };
      await asked(1, "ta");
      const released = await release(1, "ta");
      expect(released).toMatchObject({ kind: "released", stallAsked: true });
      expect((released as { record: ClaimRecord }).record).not.toHaveProperty("stallAsk");
      expect(await stores.claims.get(key)).not.toHaveProperty("stallAsk");
      await asked(2, "tb");
      const ended = await stores.claims.endClaim({ key, generation: 2, now, to: "reaped", bump: true });
      expect(ended).toMatchObject({ kind: "ended", previous: { stallAsk: true } });
      expect((ended as { record: ClaimRecord }).record).not.toHaveProperty("stallAsk");
      expect(await stores.claims.get(key)).not.toHaveProperty("stallAsk");
      await asked(4, "tc");
      await stores.claims.forget(key, now);
      expect(await stores.claims.get(key)).toMatchObject({ state: "revoked" });
      expect(await stores.claims.get(key)).not.toHaveProperty("stallAsk");
    });

    it("never asks on a stall's behalf with onStall reclaimable", async () => {
      await claim(alice, "ta", stall("reclaimable"));
      now += 21 * minute;
      const stalled = await heartbeat(1, "ta");
      expect(stalled).toMatchObject({ stalledNow: true });
      expect(stalled).not.toHaveProperty("stallAskChange");
      expect((await stores.claims.get(key))?.stallAsk).toBeUndefined();
    });

    it("ends a stalled claim's takeover intent on a push while the holder heartbeats, not a silent holder's", async () => {
      await claim(alice, "ta", stall("reclaimable"));
      now += 25 * minute;
      await heartbeat(1, "ta");
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "takeover_pending" });
      now += minute;
      await stores.claims.recordPush(key, 1, now);
      expect((await stores.claims.get(key))?.takeover).toBeUndefined();
      now += durations.heartbeatMs;
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "held" });
      expect(await claim(bob, "tb", { takeover: true })).not.toHaveProperty("takeoverPendingBy");
      // Silent past the ttl: a push is progress, not proof of life, and the intent stands.
      now += durations.ttlMs + durations.heartbeatMs;
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "takeover_pending" });
      now += minute / 60;
      await stores.claims.recordPush(key, 1, now);
      expect((await stores.claims.get(key))?.takeover?.claimant).toStrictEqual(bob);
    });

    it("drops a stalled claim's takeover intent when the holder makes progress", async () => {
      await claim(alice, "ta", stall("reclaimable"));
      now += 25 * minute;
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "takeover_pending" });
      now += minute;
      expect(await heartbeat(1, "ta", { phase: "testing" })).not.toHaveProperty("stalledSince");
      expect((await stores.claims.get(key))?.takeover).toBeUndefined();
      now += durations.heartbeatMs;
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "held" });
      // A takeover of a claim that went silent is no stalled one.
      now += durations.ttlMs + durations.heartbeatMs;
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "takeover_pending" });
      now += durations.heartbeatMs;
      expect(await claim(bob, "tb", { takeover: true })).toMatchObject({ kind: "created" });
      expect((await stores.claims.history(key))[1]).toStrictEqual({
        at: now,
        generation: 1,
        kind: "superseded",
        actor: bob,
      });
    });
  });

  it("forgets a subject: revoked, synced, out of every index, the old lease gone", async () => {
    await claim(alice, "ta");
    await claim(bob, "tb", { key: on(43) });
    now += minute;
    const held = await stores.claims.get(key);
    // Answers the record it revoked (the holder's stream hears `revoked`); null when it revoked nothing.
    expect(await stores.claims.forget(key, now)).toStrictEqual(held);
    const forgotten = recordOf(alice, "ta", 1, T0, { state: "revoked", endedAt: now, sync: "done" });
    expect(await stores.claims.get(key)).toStrictEqual(forgotten);
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "gone", reason: "revoked", current: forgotten });
    expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([on(43)]);
    expect(await stores.index.activeCount(inst)).toBe(1);
    expect(await issuesListed()).toStrictEqual([43]);
    expect(await stores.claims.history(key)).toStrictEqual([
      { at: now, generation: 1, kind: "revoked", note: "forgotten" },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
    now += minute;
    expect(await stores.claims.forget(key, now)).toBeNull();
    expect(await stores.claims.get(key)).toStrictEqual(forgotten);
    expect(await stores.claims.history(key)).toHaveLength(2);
    expect(await stores.claims.forget(on(99), now)).toBeNull();
    expect(await stores.claims.get(on(99))).toBeNull();
  });

  it("keeps the other forge's installation record of the same number apart: its claims, caps, due list and purge", async () => {
    const sameNumberElsewhere = forgeCases.find((other) => other.forge !== forgeCase.forge)!.record(7);
    await claim(alice, "a", { key: on(42), minGeneration: 4 });
    const there = await claim(bob, "b", { key: on(42, sameNumberElsewhere) });
    expect(there).toMatchObject({ kind: "created", record: { generation: 1 } });
    expect(await stores.claims.get(on(42))).toMatchObject({ generation: 5, actor: alice });
    expect(await stores.index.activeCount(inst)).toBe(1);
    expect(await stores.index.due(sameNumberElsewhere, now + durations.reclaimAfterMs, 10)).toStrictEqual([
      on(42, sameNumberElsewhere),
    ]);
    await stores.installations.purgeInstallation(inst);
    expect(await stores.claims.get(on(42))).toBeNull();
    expect(await stores.claims.get(on(42, sameNumberElsewhere))).toMatchObject({ generation: 1, actor: bob });
    expect(await stores.index.activeCount(sameNumberElsewhere)).toBe(1);
  });

  it("purges every key of one installation and no other", async () => {
    await claim(alice, "a", { key: on(42), minGeneration: 4 });
    await claim(bob, "b", { key: { installationId: inst, repoId: 2002, issue: 5 } });
    await claim(carol, "c", { key: on(42, otherInst) });
    await stores.claims.epoch(inst, now);
    await stores.claims.epoch(otherInst, now);
    await stores.installations.purgeInstallation(inst);
    now += minute;
    expect(await stores.claims.get(on(42))).toBeNull();
    expect(await stores.claims.history(on(42))).toStrictEqual([]);
    expect(await stores.index.due(inst, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    expect(await stores.index.activeCount(inst)).toBe(0);
    expect(await issuesListed()).toStrictEqual([]);
    expect(await issuesListed(2002)).toStrictEqual([]);
    expect(await stores.claims.epoch(inst, now)).toBe(now);
    expect(await stores.claims.get(on(42, otherInst))).toStrictEqual(
      recordOf(carol, "c", 1, T0, { installationId: otherInst }),
    );
    expect(await stores.claims.epoch(otherInst, now)).toBe(T0);
    expect(await stores.index.activeCount(otherInst)).toBe(1);
    // The generation high-water mark went too: only GitHub's claim comments (minGeneration) remember it.
    expect(await claim(alice, "a2", { key: on(42) })).toMatchObject({ record: { generation: 1 } });
  });

  it("lists a repository's records, most recent activity first", async () => {
    await claim(alice, "a", { key: on(42) });
    now = T0 + minute;
    await claim(bob, "b", { key: on(43) });
    now = T0 + 2 * minute;
    await claim(carol, "c", { key: on(44) });
    await claim(carol, "c8", { key: on(41, otherInst) });
    await claim(carol, "r", { key: { installationId: inst, repoId: 2002, issue: 1 } });
    expect(await issuesListed()).toStrictEqual([44, 43, 42]);

    now = T0 + 3 * minute;
    await stores.claims.heartbeat({
      key: on(42),
      generation: 1,
      tokenDigest: digest("a"),
      now,
      phaseEditEveryMs,
    });
    expect(await issuesListed()).toStrictEqual([42, 44, 43]);
    now = T0 + 4 * minute;
    expect((await claim(carol, "x", { key: on(43) })).kind).toBe("held"); // no transition: no move
    expect(await issuesListed()).toStrictEqual([42, 44, 43]);
    await stores.claims.release({
      key: on(43),
      generation: 1,
      tokenDigest: digest("b"),
      now,
      outcome: "handoff",
    });
    expect(await issuesListed()).toStrictEqual([43, 42, 44]);
    expect(await stores.index.listRepository(inst, 1001, 2)).toStrictEqual([
      await stores.claims.get(on(43)),
      await stores.claims.get(on(42)),
    ]);
    expect(await issuesListed(1001, 0)).toStrictEqual([]);
    expect(await issuesListed(2002)).toStrictEqual([1]);
    expect(await issuesListed(1001, 10, otherInst)).toStrictEqual([41]);
    expect(await issuesListed(3003)).toStrictEqual([]);
  });

  it("lists the repositories an installation holds records in, without GitHub", async () => {
    expect(await stores.index.repositories(inst)).toStrictEqual([]);
    await claim(alice, "a", { key: { installationId: inst, repoId: 2002, issue: 1 } });
    await claim(bob, "b", { key: on(42) });
    await claim(carol, "c", { key: on(43) });
    await claim(carol, "c8", { key: on(41, otherInst) });
    await stores.claims.humanClaim({
      key: { installationId: inst, repoId: 3003, issue: 5 },
      repo: "acme/gadgets",
      actor: { kind: "human", login: "maintainer" },
      now,
      minGeneration: 0,
      release: false,
      appAssigned: false,
    });
    expect(await stores.index.repositories(inst)).toStrictEqual([1001, 2002, 3003]);
    expect(await stores.index.repositories(otherInst)).toStrictEqual([1001]);
    expect(await stores.index.repositories(9)).toStrictEqual([]);
    await stores.installations.purgeInstallation(inst);
    expect(await stores.index.repositories(inst)).toStrictEqual([]);
  });

  it("moves a subject up the listing at every App-made transition, and drops a rolled-back one", async () => {
    await claim(alice, "a", { key: on(42) });
    await claim(bob, "b", { key: on(43) });
    await claim(carol, "c", { key: on(44) });
    await claim(agent("s-dave"), "d", { key: on(45) });
    await claim(agent("s-erin"), "e", { key: on(46) });
    // Same time: ties in reverse order of the issue number's text, as Redis orders them.
    expect(await issuesListed()).toStrictEqual([46, 45, 44, 43, 42]);
    now += durations.ttlMs;
    await stores.claims.markStale({ key: on(42), generation: 1, now, requireSilentMs: 1, storeEpoch: T0 });
    expect((await issuesListed())[0]).toBe(42);
    now += minute;
    await stores.claims.endClaim({ key: on(43), generation: 1, now, to: "revoked", bump: false });
    expect((await issuesListed())[0]).toBe(43);
    now += minute;
    await stores.claims.humanClaim({
      key: on(44),
      repo: "acme/widgets",
      actor: maintainer,
      now,
      minGeneration: 0,
      release: false,
      appAssigned: false,
    });
    expect((await issuesListed())[0]).toBe(44);
    now += minute;
    await stores.claims.restore(recordOf(alice, "r", 3, now, { issue: 47 }), now);
    expect((await issuesListed())[0]).toBe(47);
    now += minute;
    await stores.claims.rollbackClaim(on(46), 1, null, now);
    expect(await issuesListed()).toStrictEqual([47, 44, 43, 42, 45]);
    await claim(agent("s-erin"), "e2", { key: on(9) });
    await claim(agent("s-frank"), "f", { key: on(10) });
    expect((await issuesListed()).slice(0, 2)).toStrictEqual([9, 10]);
  });

  it("remembers the installations it holds claims for, once each, until purged", async () => {
    expect(await stores.installations.installations()).toStrictEqual([]);
    await stores.installations.rememberInstallation(12);
    await stores.installations.rememberInstallation(inst);
    await stores.installations.rememberInstallation(12);
    await stores.installations.rememberInstallation(100);
    expect(await stores.installations.installations()).toStrictEqual([inst, 12, 100].sort((a, b) => a - b));
    await stores.installations.purgeInstallation(12);
    expect(await stores.installations.installations()).toStrictEqual([inst, 100].sort((a, b) => a - b));
  });

  it("remembers fleet logins per installation, whatever their case, until the installation is purged", async () => {
    expect(await stores.fleetLogins.isFleetLogin(inst, "fleet-bot")).toBe(false);
    await stores.fleetLogins.rememberFleetLogin(inst, "Fleet-Bot");
    await stores.fleetLogins.rememberFleetLogin(inst, "fleet-bot");
    expect(await stores.fleetLogins.isFleetLogin(inst, "FLEET-BOT")).toBe(true);
    expect(await stores.fleetLogins.isFleetLogin(otherInst, "fleet-bot")).toBe(false);
    expect(await stores.fleetLogins.isFleetLogin(inst, "alice")).toBe(false);
    await stores.installations.purgeInstallation(inst);
    expect(await stores.fleetLogins.isFleetLogin(inst, "fleet-bot")).toBe(false);
  });

  it("learns an agent's login as a fleet login when a record is restored (from its claim comment)", async () => {
    const created = await claim(alice, "ta");
    if (created.kind !== "created") throw new Error("expected created");
    const lost = h.emptyStore();
    const { installationId } = created.record;
    expect(await lost.fleetLogins.isFleetLogin(installationId, alice.login)).toBe(false);
    expect(await lost.claims.restore(created.record, now)).toBe("restored");
    expect(await lost.fleetLogins.isFleetLogin(installationId, alice.login.toUpperCase())).toBe(true);
  });

  it("counts the active claims of an installation", async () => {
    expect(await stores.index.activeCount(inst)).toBe(0);
    await claim(alice, "a", { key: on(42) });
    await claim(bob, "b", { key: on(43) });
    await claim(carol, "c", { key: on(44, otherInst) });
    now += durations.reclaimAfterMs; // expired but not yet reaped: still active
    expect(await stores.index.activeCount(inst)).toBe(2);
    await stores.claims.release({
      key: on(42),
      generation: 1,
      tokenDigest: digest("a"),
      now,
      outcome: "handoff",
    });
    expect(await stores.index.activeCount(inst)).toBe(1);
    expect(await stores.index.activeCount(otherInst)).toBe(1);
  });

  // --- Expiring bookkeeping (deliveries, locks, documents) ---

  const advance = async (ms: number) => {
    now += ms;
    await h.elapse(ms);
  };

  it("sees a webhook delivery once within its time to live", async () => {
    const ttl = 10 * minute;
    expect(await stores.deliveries.firstDelivery("d-1", ttl)).toBe(true);
    expect(await stores.deliveries.firstDelivery("d-1", ttl)).toBe(false);
    expect(await stores.deliveries.firstDelivery("d-2", ttl)).toBe(true);
    await advance(ttl - minute);
    expect(await stores.deliveries.firstDelivery("d-1", ttl)).toBe(false);
    await advance(minute);
    expect(await stores.deliveries.firstDelivery("d-1", ttl)).toBe(true);
    expect(await stores.deliveries.firstDelivery("d-1", ttl)).toBe(false);
  });

  it("holds a named lock for one owner, renews it for that owner, and frees it at expiry", async () => {
    const ttl = 10 * minute;
    expect(await stores.locks.acquireLock("janitor", "replica-a", ttl)).toBe(true);
    expect(await stores.locks.acquireLock("janitor", "replica-b", ttl)).toBe(false);
    expect(await stores.locks.acquireLock("other", "replica-b", ttl)).toBe(true);
    await advance(ttl - minute);
    expect(await stores.locks.acquireLock("janitor", "replica-a", ttl)).toBe(true); // renewed for ttl from now
    await advance(ttl - minute);
    expect(await stores.locks.acquireLock("janitor", "replica-b", ttl)).toBe(false);
    await advance(minute);
    expect(await stores.locks.acquireLock("janitor", "replica-b", ttl)).toBe(true);
    expect(await stores.locks.acquireLock("janitor", "replica-a", ttl)).toBe(false);
  });

  it("holds a subject's write lock for one owner with the record read, and commits and frees it after the write", async () => {
    const ttl = 10 * minute;
    expect(await stores.writeLocks.lockWrite(key, "write-a", ttl)).toStrictEqual({
      locked: true,
      record: null,
    });
    await claim(alice, "ta");
    const claimed = recordOf(alice, "ta", 1, T0);
    expect(await stores.writeLocks.lockWrite(key, "write-b", ttl)).toStrictEqual({ locked: false });
    // Renewed for its owner, with the record as it is now.
    expect(await stores.writeLocks.lockWrite(key, "write-a", ttl)).toStrictEqual({
      locked: true,
      record: claimed,
    });
    const sentFor = { generation: 1, state: "active", stale: false } as const;
    const comment = { commentNodeId: "IC_kwDOAB", commentId: 11 };
    // The record as before the commit; the comment committed; the lock free (the record did not move on).
    expect(
      await stores.writeLocks.finishWrite({
        key,
        owner: "write-a",
        sentFor,
        commit: { generation: 1, comment },
      }),
    ).toStrictEqual(claimed);
    expect(await stores.claims.get(key)).toStrictEqual({ ...claimed, ...comment, sync: "done" });
    expect(await stores.writeLocks.lockWrite(key, "write-b", ttl)).toMatchObject({ locked: true });
    await stores.writeLocks.unlockWrite(key, "write-b");
  });

  it("takes the subject's write lock with a new generation when asked and free, and answers whether it did", async () => {
    const ttl = 10 * minute;
    const created = await claim(alice, "ta", { writeLock: { owner: "claim-a", ttlMs: ttl } });
    expect(created).toMatchObject({ kind: "created", writeLocked: true });
    expect(await stores.writeLocks.lockWrite(key, "write-b", ttl)).toStrictEqual({ locked: false });
    // Refused: no lock asked for is taken, and the answer is as without one.
    expect(await claim(bob, "tb", { writeLock: { owner: "claim-b", ttlMs: ttl } })).toMatchObject({
      kind: "held",
    });
    await stores.writeLocks.unlockWrite(key, "claim-b");
    expect(await stores.writeLocks.lockWrite(key, "write-b", ttl)).toStrictEqual({ locked: false });
    // Created while another write holds the lock: not taken.
    await stores.writeLocks.unlockWrite(key, "claim-a");
    now += durations.reclaimAfterMs;
    await stores.writeLocks.lockWrite(key, "write-b", ttl);
    const taken = await claim(bob, "tb", { takeover: true, writeLock: { owner: "claim-b", ttlMs: ttl } });
    expect(taken).toMatchObject({ kind: "created", writeLocked: false });
    expect(await claim(carol, "tc", { key: on(43) })).not.toHaveProperty("writeLocked");
  });

  it("keeps a subject's write lock when the record moved on from the write, until its owner gives it up", async () => {
    const ttl = 10 * minute;
    await claim(alice, "ta");
    await stores.writeLocks.lockWrite(key, "write-a", ttl);
    const sentFor = { generation: 1, state: "active", stale: true } as const;
    const comment = { commentNodeId: "IC_kwDOAB" };
    // A comment of another generation is not committed; the stale mark differs: moved on, still locked.
    expect(
      await stores.writeLocks.finishWrite({
        key,
        owner: "write-a",
        sentFor,
        commit: { generation: 2, comment },
      }),
    ).toStrictEqual(recordOf(alice, "ta", 1, T0));
    expect(await stores.claims.get(key)).toStrictEqual(recordOf(alice, "ta", 1, T0));
    expect(await stores.writeLocks.lockWrite(key, "write-b", ttl)).toStrictEqual({ locked: false });
    await stores.writeLocks.unlockWrite(key, "write-b");
    expect(await stores.writeLocks.lockWrite(key, "write-b", ttl)).toStrictEqual({ locked: false });
    await stores.writeLocks.unlockWrite(key, "write-a");
    expect(await stores.writeLocks.lockWrite(key, "write-b", ttl)).toMatchObject({ locked: true });
    await advance(ttl);
    expect(await stores.writeLocks.lockWrite(key, "write-c", ttl)).toMatchObject({ locked: true });
  });

  it("releases a lock only for its owner", async () => {
    const ttl = 10 * minute;
    await stores.locks.acquireLock("janitor", "replica-a", ttl);
    await stores.locks.releaseLock("janitor", "replica-b");
    expect(await stores.locks.acquireLock("janitor", "replica-b", ttl)).toBe(false);
    await stores.locks.releaseLock("janitor", "replica-a");
    expect(await stores.locks.acquireLock("janitor", "replica-b", ttl)).toBe(true);
    await stores.locks.releaseLock("never-taken", "replica-a");
  });

  it("keeps JSON documents until their time to live runs out", async () => {
    const ttl = 10 * minute;
    const report = {
      installations: 2,
      actions: [{ subject: "acme/widgets#42", action: "reap" }],
      dryRun: false,
    };
    expect(await stores.documents.getDocument("janitor-report")).toBeNull();
    await stores.documents.putDocument("janitor-report", report, ttl);
    expect(await stores.documents.getDocument("janitor-report")).toStrictEqual(report);
    report.installations = 3; // the stored document is a copy
    expect(await stores.documents.getDocument("janitor-report")).toMatchObject({ installations: 2 });
    await advance(ttl - minute);
    await stores.documents.putDocument("janitor-report", ["newer"], ttl);
    await advance(ttl - minute);
    expect(await stores.documents.getDocument("janitor-report")).toStrictEqual(["newer"]);
    await advance(minute);
    expect(await stores.documents.getDocument("janitor-report")).toBeNull();
  });

  it("refuses a document without a JSON form and a time to live that is not a positive whole number", async () => {
    await expect(stores.documents.putDocument("nothing", undefined, minute)).rejects.toThrow(
      /has no JSON form/,
    );
    await expect(stores.documents.putDocument("report", {}, 0)).rejects.toThrow(RangeError);
    await expect(stores.deliveries.firstDelivery("d", 1.5)).rejects.toThrow(RangeError);
    await expect(stores.locks.acquireLock("janitor", "replica-a", -1)).rejects.toThrow(RangeError);
    expect(await stores.documents.getDocument("report")).toBeNull();
    expect(await stores.locks.acquireLock("janitor", "replica-b", minute)).toBe(true);
  });
});

describe.skipIf(!redisProbe.available).each(forgeCases)(
  "Redis stores on Redis, $forge installation record",
  (forgeCase) => {
    const runPrefix = uniqueKeyPrefix("redis");
    let redis: Redis;
    let now = T0;

    beforeEach(() => useForge(forgeCase));

    beforeAll(async () => {
      redis = await createTestRedis();
    });
    afterAll(async () => {
      await deleteKeysWithPrefix(redis, runPrefix);
      await redis.quit();
    });

    const input = (): ClaimInput => ({
      key,
      repo: "acme/widgets",
      actor: alice,
      taskClass: "author",
      durations,
      tokenDigest: digest("ta"),
      takeover: false,
      now,
      minGeneration: 0,
      appAssigned: false,
      caps,
    });

    it("keeps every key of an installation under its hash tag", async () => {
      const keyPrefix = `${runPrefix}tags:`;
      const stores = createRedisStores({ redis, keyPrefix });
      await stores.claims.claim(input());
      await stores.claims.epoch(inst, now);
      const keys = await keysMatching(redis, `${keyPrefix}*`);
      expect(keys.length).toBeGreaterThanOrEqual(7);
      for (const name of keys) expect(name.startsWith(`${keyPrefix}${forgeCase.tag(7)}:`)).toBe(true);
    });

    it("keeps the heartbeat gaps in a key of their own that lapses a week after the last beat", async () => {
      const keyPrefix = `${runPrefix}gaps:`;
      const stores = createRedisStores({ redis, keyPrefix });
      await stores.claims.claim(input());
      now += minute;
      await stores.claims.heartbeat({ key, generation: 1, tokenDigest: digest("ta"), now, phaseEditEveryMs });
      const gaps = `${keyPrefix}${forgeCase.tag(7)}:s:1001:42:gaps`;
      expect(await redis.get(gaps)).toBe("1:60000");
      const left = await redis.pttl(gaps);
      expect(left).toBeGreaterThan(heartbeatGapsTtlMs - minute);
      expect(left).toBeLessThanOrEqual(heartbeatGapsTtlMs);
      await redis.set(gaps, "1:60000,x");
      await expect(stores.claims.heartbeatGaps(key)).rejects.toThrow(`corrupt heartbeat gaps at ${gaps}`);
    });

    it("reads and writes only a steady heartbeat's fields of the record: no whole record, nothing deleted", async () => {
      const keyPrefix = `${runPrefix}fields:`;
      const stores = createRedisStores({ redis, keyPrefix });
      await stores.claims.claim(input());
      const record = `${keyPrefix}${forgeCase.tag(7)}:s:1001:42:rec`;
      /** The commands the heartbeat's script sent on the record's key. */
      const onRecord = async (beat: () => Promise<unknown>): Promise<string[]> => {
        const monitor = await redis.monitor();
        const seen: string[][] = [];
        const marker = `${keyPrefix}marker`;
        const marked = new Promise<void>((resolve) => {
          monitor.on("monitor", (_time: string, args: string[]) => {
            seen.push(args);
            if (args[1] === marker) resolve();
          });
        });
        try {
          await beat();
          await redis.get(marker);
          await marked;
        } finally {
          monitor.disconnect();
        }
        return seen.filter((args) => args[1] === record).map((args) => args[0]!.toUpperCase());
      };
      const beat = (extra: Partial<HeartbeatInput> = {}) =>
        stores.claims.heartbeat({
          key,
          generation: 1,
          tokenDigest: digest("ta"),
          now,
          phaseEditEveryMs,
          ...extra,
        });
      now += minute;
      expect(await onRecord(beat)).toStrictEqual(["HMGET", "HSET"]);
      // The whole record is read only when asked for, or for a comment edit (here: a stale mark cleared).
      now += minute;
      expect(await onRecord(() => beat({ wantRecord: true }))).toStrictEqual(["HMGET", "HSET", "HGETALL"]);
      now += durations.ttlMs;
      await stores.claims.markStale({
        key,
        generation: 1,
        now,
        requireSilentMs: durations.ttlMs,
        storeEpoch: T0,
      });
      now += minute;
      expect(await onRecord(beat)).toStrictEqual(["HMGET", "HSET", "HDEL", "HGETALL"]);
      // A refusal that shows the record reads it whole; one that shows none does not.
      now += minute;
      expect(await onRecord(() => beat({ tokenDigest: digest("tx") }))).toStrictEqual(["HMGET"]);
      await stores.claims.release({ key, generation: 1, tokenDigest: digest("ta"), now, outcome: "handoff" });
      expect(await onRecord(beat)).toStrictEqual(["HMGET", "HGETALL"]);
    });

    it("compares digests exactly (lua/includes/session.lua): every length, every position, every byte value", async () => {
      const lua = readFileSync(
        new URL("../src/providers/redis/lua/includes/session.lua", import.meta.url),
        "utf8",
      );
      const pairs: [string, string][] = [];
      for (const length of [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65]) {
        const text = digest(`d${length}`).repeat(2).slice(0, length);
        pairs.push([text, text]);
        for (const at of new Set([0, Math.floor(length / 2), length - 1].filter((i) => i >= 0))) {
          const other = text.slice(0, at) + (text[at] === "0" ? "1" : "0") + text.slice(at + 1);
          pairs.push([text, other], [other, text]);
        }
        pairs.push([text, `${text}0`], [`${text}0`, text]);
      }
      pairs.push(["\xff\x00", "\xff\x00"], ["\xff\x00", "\xfe\x00"], ["ab", "ba"]);
      const script = `${lua}
local out = {}
for i = 1, #ARGV, 2 do out[#out + 1] = digests_equal(ARGV[i], ARGV[i + 1]) and 1 or 0 end
-- A missing digest (HGET of nothing) never equals one.
out[#out + 1] = digests_equal(false, ARGV[1]) and 1 or 0
out[#out + 1] = digests_equal(ARGV[1], false) and 1 or 0
return out`;
      expect(await redis.eval(script, 0, ...pairs.flat())).toStrictEqual([
        ...pairs.map(([a, b]) => (a === b ? 1 : 0)),
        0,
        0,
      ]);
    });

    it("heartbeats in one round trip (EVALSHA)", async () => {
      const stores = createRedisStores({ redis, keyPrefix: `${runPrefix}trip:` });
      await stores.claims.claim(input());
      await stores.claims.heartbeat({ key, generation: 1, tokenDigest: digest("ta"), now, phaseEditEveryMs });
      const sent = vi.spyOn(redis, "sendCommand");
      try {
        now += minute;
        await stores.claims.heartbeat({
          key,
          generation: 1,
          tokenDigest: digest("ta"),
          now,
          phaseEditEveryMs,
        });
        expect(sent.mock.calls.map(([command]) => command.name)).toStrictEqual(["evalsha"]);
      } finally {
        sent.mockRestore();
      }
    });

    it("comes up empty after losing every key: a new epoch, and generations above the restored ones", async () => {
      const keyPrefix = `${runPrefix}flush:`;
      const stores = createRedisStores({ redis, keyPrefix });
      const created = await stores.claims.claim({ ...input(), minGeneration: 4 });
      if (created.kind !== "created") throw new Error("expected created");
      expect(await stores.claims.epoch(inst, now)).toBe(now);
      expect(await deleteKeysWithPrefix(redis, keyPrefix)).toBeGreaterThan(0); // FLUSHALL, on our keys only
      const later = now + 10 * minute;
      expect(await stores.claims.epoch(inst, later)).toBe(later);
      expect(await stores.claims.epoch(inst, later + minute)).toBe(later);
      expect(await stores.claims.get(key)).toBeNull();
      expect(await stores.claims.restore(created.record, later)).toBe("restored");
      const afterExpiry = created.record.lastHeartbeatAt + durations.reclaimAfterMs;
      expect(
        await stores.claims.claim({ ...input(), actor: bob, takeover: true, now: afterExpiry }),
      ).toMatchObject({
        kind: "created",
        record: { generation: 6, supersedes: 5 },
      });
    });

    it("lists a repository without the records whose keys vanished", async () => {
      const keyPrefix = `${runPrefix}vanish:`;
      const stores = createRedisStores({ redis, keyPrefix });
      await stores.claims.claim({ ...input(), key: on(42) });
      await stores.claims.claim({ ...input(), key: on(43), now: now + 1 });
      await redis.unlink(`${keyPrefix}${forgeCase.tag(7)}:s:1001:43:rec`);
      expect(await stores.index.listRepository(inst, 1001, 10)).toStrictEqual([
        await stores.claims.get(on(42)),
      ]);
    });

    it("leaves no key of a purged installation behind", async () => {
      const keyPrefix = `${runPrefix}purge:`;
      const stores = createRedisStores({ redis, keyPrefix });
      await stores.claims.claim({ ...input(), key: on(42) });
      await stores.claims.claim({ ...input(), key: on(43, otherInst) });
      await stores.claims.epoch(inst, now);
      await stores.deliveries.firstDelivery("d-1", minute);
      await stores.installations.purgeInstallation(inst);
      const left = await keysMatching(redis, `${keyPrefix}*`);
      expect(left.sort()).toStrictEqual(
        [
          `${keyPrefix}delivery:d-1`,
          `${keyPrefix}${forgeCase.tag(8)}:deadlines`,
          `${keyPrefix}${forgeCase.tag(8)}:epoch`,
          `${keyPrefix}${forgeCase.tag(8)}:holders`,
          `${keyPrefix}${forgeCase.tag(8)}:live:indexed`,
          `${keyPrefix}${forgeCase.tag(8)}:live:login:"octo-agent"`,
          `${keyPrefix}${forgeCase.tag(8)}:repo:1001`,
          `${keyPrefix}${forgeCase.tag(8)}:repos`,
          `${keyPrefix}${forgeCase.tag(8)}:s:1001:43:gen`,
          `${keyPrefix}${forgeCase.tag(8)}:s:1001:43:hist`,
          `${keyPrefix}${forgeCase.tag(8)}:s:1001:43:rec`,
          `${keyPrefix}${forgeCase.tag(8)}:s:1001:43:tok`,
          `${keyPrefix}${forgeCase.tag(8)}:live:session:["octo-agent","s-alice"]`,
        ].sort(),
      );
    });

    it("stores the App's bookkeeping under plain keys with a time to live", async () => {
      const keyPrefix = `${runPrefix}ttl:`;
      const stores = createRedisStores({ redis, keyPrefix });
      await stores.deliveries.firstDelivery("d-1", 10 * minute);
      await stores.locks.acquireLock("janitor", "replica-a", 5 * minute);
      await stores.documents.putDocument("report", { ok: true }, 2 * minute);
      for (const [name, ttl] of [
        ["delivery:d-1", 10 * minute],
        ["lock:janitor", 5 * minute],
        ["doc:report", 2 * minute],
      ] as const) {
        const left = await redis.pttl(`${keyPrefix}${name}`);
        expect(left, name).toBeGreaterThan(ttl - minute);
        expect(left, name).toBeLessThanOrEqual(ttl);
      }
      expect(await redis.get(`${keyPrefix}doc:report`)).toBe('{"ok":true}');
      await redis.set(`${keyPrefix}doc:report`, "{not json");
      await expect(stores.documents.getDocument("report")).rejects.toThrow(/corrupt document/);
    });

    it("rejects a corrupt stored record rather than returning it", async () => {
      const keyPrefix = `${runPrefix}corrupt:`;
      const stores = createRedisStores({ redis, keyPrefix });
      await stores.claims.claim(input());
      await redis.hset(`${keyPrefix}${forgeCase.tag(7)}:s:1001:42:rec`, "state", "haunted");
      await expect(stores.claims.get(key)).rejects.toThrow(/corrupt claim record/);
    });

    it("quits the client on close only when it owns it", async () => {
      const borrowed = await createTestRedis();
      await createRedisStores({ redis: borrowed, keyPrefix: `${runPrefix}close:` }).connection.close();
      expect(borrowed.status).toBe("ready");
      const owned = createRedisStores({
        redis: borrowed,
        keyPrefix: `${runPrefix}close:`,
        ownsClient: true,
      });
      await owned.connection.ping();
      await owned.connection.close();
      await expect(owned.claims.get(key)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(["close", "end"]).toContain(borrowed.status);
    });

    it.each([
      ["without an offline queue", { enableOfflineQueue: false }],
      [
        "with one retry per request",
        { enableOfflineQueue: true, maxRetriesPerRequest: 1, retryStrategy: () => 5 },
      ],
    ])(
      "answers StoreUnavailableError from every method when Redis is unreachable (%s)",
      async (_, options) => {
        // Port 1 on loopback refuses connections.
        const down = new Redis({
          host: "127.0.0.1",
          port: 1,
          lazyConnect: true,
          connectTimeout: 500,
          ...options,
        });
        down.on("error", () => {});
        const stores = createRedisStores({ redis: down, keyPrefix: `${runPrefix}down:`, ownsClient: true });
        const lease = { key, generation: 1, tokenDigest: digest("ta"), now };
        const calls: [string, () => Promise<unknown>][] = [
          ["claim", () => stores.claims.claim(input())],
          ["commitClaim", () => stores.claims.commitClaim(key, 1, { commentNodeId: "IC_x" })],
          ["rollbackClaim", () => stores.claims.rollbackClaim(key, 1, null, now)],
          ["heartbeat", () => stores.claims.heartbeat({ ...lease, phaseEditEveryMs })],
          ["verify", () => stores.claims.verify(lease)],
          ["release", () => stores.claims.release({ ...lease, outcome: "handoff" })],
          ["markSynced", () => stores.claims.markSynced(key, 1)],
          ["get", () => stores.claims.get(key)],
          ["restore", () => stores.claims.restore(recordOf(alice, "ta", 1, T0), now)],
          ["history", () => stores.claims.history(key)],
          ["due", () => stores.index.due(inst, now, 10)],
          ["epoch", () => stores.claims.epoch(inst, now)],
          ["endClaim", () => stores.claims.endClaim({ key, generation: 1, now, to: "reaped", bump: true })],
          [
            "markStale",
            () =>
              stores.claims.markStale({ key, generation: 1, now, requireSilentMs: minute, storeEpoch: T0 }),
          ],
          [
            "humanClaim",
            () =>
              stores.claims.humanClaim({
                key,
                repo: "acme/widgets",
                actor: { kind: "human", login: "maintainer" },
                now,
                minGeneration: 0,
                release: false,
                appAssigned: false,
              }),
          ],
          ["recordPush", () => stores.claims.recordPush(key, 1, now)],
          ["forget", () => stores.claims.forget(key, now)],
          ["purgeInstallation", () => stores.installations.purgeInstallation(inst)],
          ["listRepository", () => stores.index.listRepository(inst, 1001, 10)],
          ["repositories", () => stores.index.repositories(inst)],
          ["activeCount", () => stores.index.activeCount(inst)],
          ["rememberInstallation", () => stores.installations.rememberInstallation(inst)],
          ["installations", () => stores.installations.installations()],
          ["rememberFleetLogin", () => stores.fleetLogins.rememberFleetLogin(inst, "fleet-bot")],
          ["isFleetLogin", () => stores.fleetLogins.isFleetLogin(inst, "fleet-bot")],
          ["firstDelivery", () => stores.deliveries.firstDelivery("d-1", minute)],
          ["acquireLock", () => stores.locks.acquireLock("janitor", "replica-a", minute)],
          ["releaseLock", () => stores.locks.releaseLock("janitor", "replica-a")],
          ["lockWrite", () => stores.writeLocks.lockWrite(key, "write-a", minute)],
          [
            "finishWrite",
            () =>
              stores.writeLocks.finishWrite({
                key,
                owner: "write-a",
                sentFor: { generation: 1, state: "active", stale: false },
              }),
          ],
          ["unlockWrite", () => stores.writeLocks.unlockWrite(key, "write-a")],
          ["putDocument", () => stores.documents.putDocument("report", {}, minute)],
          ["getDocument", () => stores.documents.getDocument("report")],
          ["ping", () => stores.connection.ping()],
        ];
        try {
          for (const [name, call] of calls) {
            const error = await call().then(
              () => new Error(`${name} resolved`),
              (reason: unknown) => reason,
            );
            expect(error, name).toBeInstanceOf(StoreUnavailableError);
          }
        } finally {
          down.disconnect();
        }
      },
    );
  },
);
