// The LivenessStore contract: the same tests against the memory store and the Redis store on a real server.
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor, ClaimRecord, SubjectKey } from "../src/domain/claim.js";
import {
  type ClaimInput,
  type ClaimOutcome,
  type HeartbeatInput,
  type LivenessStore,
  StoreUnavailableError,
} from "../src/providers/liveness-store.js";
import { MemoryLivenessStore } from "../src/providers/memory-store.js";
import { RedisLivenessStore } from "../src/providers/redis-store.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();

interface Harness {
  store: LivenessStore;
  /** A store that has lost every record (a restarted memory store, a flushed Redis). */
  emptyStore(): LivenessStore;
  /** Stores over separate connections sharing the same data (memory: the one store). */
  concurrentStores(): LivenessStore[];
}

interface StoreCase {
  name: string;
  setup(): Promise<void>;
  create(): Harness;
  teardown(): Promise<void>;
}

const memoryCase: StoreCase = {
  name: "MemoryLivenessStore",
  setup: async () => {},
  create() {
    const store = new MemoryLivenessStore();
    return { store, emptyStore: () => new MemoryLivenessStore(), concurrentStores: () => [store] };
  },
  teardown: async () => {},
};

function redisCase(): StoreCase {
  const runPrefix = uniqueKeyPrefix("contract");
  const clients: Redis[] = [];
  let next = 0;
  const prefix = () => `${runPrefix}${++next}:`;
  return {
    name: "RedisLivenessStore",
    async setup() {
      // One main connection and four more, so the concurrency test races real connections.
      for (let i = 0; i < 5; i++) clients.push(await createTestRedis());
    },
    create() {
      const keyPrefix = prefix();
      const [main, ...others] = clients;
      return {
        store: new RedisLivenessStore({ redis: main!, keyPrefix }),
        emptyStore: () => new RedisLivenessStore({ redis: main!, keyPrefix: prefix() }),
        concurrentStores: () => others.map((redis) => new RedisLivenessStore({ redis, keyPrefix })),
      };
    },
    async teardown() {
      if (clients[0]) await deleteKeysWithPrefix(clients[0], runPrefix);
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
}

const cases: StoreCase[] = [memoryCase];
if (redisProbe.available) cases.push(redisCase());
else {
  console.warn(`Skipping the RedisLivenessStore half of the store contract: ${redisProbe.reason}`);
  describe.skip(`RedisLivenessStore (${redisProbe.reason})`, () => {
    it("passes the store contract", () => {});
  });
}

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const reviewerDurations = { ttlMs: 15 * minute, reclaimAfterMs: 30 * minute, heartbeatMs: 3 * minute };
const phaseEditEveryMs = 10 * minute;
const key: SubjectKey = { installationId: 7, repoId: 1001, issue: 42 };
const on = (issue: number, installationId = 7): SubjectKey => ({ installationId, repoId: 1001, issue });
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

describe.each(cases)("$name store contract", (storeCase) => {
  let h: Harness;
  let store: LivenessStore;
  let now: number;

  beforeAll(() => storeCase.setup());
  afterAll(() => storeCase.teardown());
  beforeEach(() => {
    h = storeCase.create();
    store = h.store;
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
  const claim = (actor: Actor, token: string, extra: Partial<ClaimInput> = {}, on: LivenessStore = store) =>
    on.claim(claimInput(actor, token, extra));
  const heartbeat = (generation: number, token: string, extra: Partial<HeartbeatInput> = {}) =>
    store.heartbeat({ key, generation, tokenDigest: digest(token), now, phaseEditEveryMs, ...extra });
  const release = (generation: number, token: string, outcome: "handoff" | "completed" = "handoff") =>
    store.release({ key, generation, tokenDigest: digest(token), now, outcome });
  const snapshot = async (subject: SubjectKey = key) => ({
    record: await store.get(subject),
    history: await store.history(subject),
  });

  it("creates generation 1 on an empty subject and records the claim", async () => {
    expect(await store.get(key)).toBeNull();
    expect(await claim(alice, "ta")).toStrictEqual({
      kind: "created",
      record: recordOf(alice, "ta", 1, T0),
      previous: null,
    });
    expect(await store.get(key)).toStrictEqual(recordOf(alice, "ta", 1, T0));
    expect(await store.history(key)).toStrictEqual([
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
  });

  it("creates a generation above minGeneration (what the claim comments show)", async () => {
    const outcome = await claim(alice, "ta", { minGeneration: 41 });
    expect(outcome).toStrictEqual({ kind: "created", record: recordOf(alice, "ta", 42, T0), previous: null });
  });

  it("lets the same session re-claim: same generation, new token, old token refused", async () => {
    await claim(alice, "ta");
    now += 7 * minute;
    const again = await claim(alice, "ta2");
    expect(again).toStrictEqual({
      kind: "reclaimed",
      record: recordOf(alice, "ta2", 1, T0, { lastHeartbeatAt: now }),
    });
    expect(await heartbeat(1, "ta2")).toStrictEqual({
      kind: "ok",
      record: recordOf(alice, "ta2", 1, T0, { lastHeartbeatAt: now }),
      editComment: false,
    });
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "invalid_token" });
    expect(await store.history(key)).toStrictEqual([
      { at: now, generation: 1, kind: "reclaimed", actor: alice },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
  });

  it("answers held to a different session while the claim is live", async () => {
    await claim(alice, "ta");
    now += durations.ttlMs - 1;
    expect(await claim(bob, "tb")).toStrictEqual({ kind: "held", current: recordOf(alice, "ta", 1, T0) });
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "held",
      current: recordOf(alice, "ta", 1, T0),
    });
    expect(await store.history(key)).toHaveLength(1);
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
    expect(await heartbeat(1, "ta")).toStrictEqual({
      kind: "ok",
      record: recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now }),
      editComment: false,
    });
    now = requestedAt + durations.heartbeatMs;
    expect(await claim(bob, "tb", { takeover: true })).toStrictEqual({
      kind: "held",
      current: recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: requestedAt + minute }),
    });
    expect(await store.history(key)).toStrictEqual([
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
    expect(await store.history(key)).toStrictEqual([
      { at: now, generation: 2, kind: "claimed", actor: bob },
      { at: now, generation: 1, kind: "superseded", actor: bob },
      { at: requestedAt, generation: 1, kind: "takeover-requested", actor: bob },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
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
    expect(await store.verify({ key, generation: 1, tokenDigest: digest("ta"), now })).toStrictEqual({
      kind: "gone",
      reason: "expired",
      current: expired,
    });
    expect(await store.get(key)).toStrictEqual(expired);
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
    expect(await store.verify({ key, generation: 1, tokenDigest: digest("ta"), now })).toStrictEqual({
      kind: "superseded",
      current,
    });
    expect(await snapshot()).toStrictEqual(before);

    await release(2, "tb");
    const ended = await store.get(key);
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
      await store.heartbeat({ key: on(99), generation: 1, tokenDigest: digest("ta"), now, phaseEditEveryMs }),
    ).toStrictEqual({ kind: "missing" });
    expect(await snapshot()).toStrictEqual(before);
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
    expect(first).toStrictEqual({ kind: "ok", record: expected, editComment: false });
    expect(second).toStrictEqual(first);
    expect(await store.get(key)).toStrictEqual(expected);
    expect(await store.history(key)).toHaveLength(1);
  });

  it("applies new durations at a heartbeat", async () => {
    await claim(alice, "ta");
    now += minute;
    const beat = await heartbeat(1, "ta", { durations: reviewerDurations });
    expect(beat).toStrictEqual({
      kind: "ok",
      record: recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now, durations: reviewerDurations }),
      editComment: false,
    });
    expect(await store.due(7, now + reviewerDurations.ttlMs, 10)).toStrictEqual([key]);
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
    expect(await store.history(key)).toStrictEqual([
      { at: T0 + minute, generation: 1, kind: "released", actor: alice, note: "handoff" },
      { at: T0, generation: 1, kind: "claimed", actor: alice },
    ]);
    expect(await store.due(7, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    await store.markSynced(key, 1);
    expect(await store.get(key)).toStrictEqual({ ...released, sync: "done" });
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
    expect((await store.history(key))[0]).toStrictEqual({
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
    expect((await claim(alice, "a42b", { caps: one })).kind).toBe("reclaimed");
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
    await store.release({ key: on(44), generation: 1, tokenDigest: digest("a44"), now, outcome: "handoff" });
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
    expect(await store.restore(restored, now)).toBe("restored");
    expect((await claim(alice, "a43", { key: on(43), caps: one })).kind).toBe("created");
  });

  it("rolls back a failed claim without reusing its generation", async () => {
    const created = await claim(alice, "ta");
    await store.rollbackClaim(key, 1, null, now + 1);
    expect(await store.get(key)).toBeNull();
    expect(await heartbeat(1, "ta")).toStrictEqual({ kind: "missing" });
    expect(await store.due(7, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    expect(await store.history(key)).toStrictEqual([
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
    await store.commitClaim(key, 1, { commentNodeId: "IC_kwDOAB", commentId: 11 });
    const committed = recordOf(alice, "ta", 1, T0, {
      commentNodeId: "IC_kwDOAB",
      commentId: 11,
      sync: "done",
    });
    expect(await store.get(key)).toStrictEqual(committed);
    await store.rollbackClaim(key, 1, null, now); // committed: nothing to roll back
    expect(await store.get(key)).toStrictEqual(committed);

    now += durations.reclaimAfterMs;
    const taken = await claim(bob, "tb", { takeover: true });
    expect(taken).toStrictEqual({
      kind: "created",
      record: recordOf(bob, "tb", 2, now, { supersedes: 1 }),
      previous: committed,
    });
    if (taken.kind !== "created") throw new Error("expected created");
    await store.rollbackClaim(key, 2, taken.previous, now);
    expect(await store.get(key)).toStrictEqual(committed);
    expect(await heartbeat(2, "tb")).toStrictEqual({ kind: "missing" });
    expect(await store.due(7, now, 10)).toStrictEqual([key]);
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
    expect(await lost.get(key)).toBeNull();
    now += minute;
    expect(await lost.restore(created.record, now)).toBe("restored");
    expect(await lost.get(key)).toStrictEqual(created.record);
    expect(await lost.history(key)).toStrictEqual([
      { at: now, generation: 5, kind: "restored", actor: alice },
    ]);
    expect(await lost.restore(created.record, now)).toBe("exists");
    expect(await lost.restore({ ...created.record, generation: 3 }, now)).toBe("exists");
    expect(
      (await lost.heartbeat({ key, generation: 5, tokenDigest: digest("ta"), now, phaseEditEveryMs })).kind,
    ).toBe("ok");
    await lost.release({ key, generation: 5, tokenDigest: digest("ta"), now, outcome: "handoff" });
    expect(await claim(bob, "tb", {}, lost)).toMatchObject({ kind: "created", record: { generation: 6 } });
  });

  it("raises generations from a restored ended record too", async () => {
    const ended = recordOf(alice, "ta", 9, T0, { state: "released", endedAt: T0, endedBy: alice });
    expect(await store.restore(ended, now)).toBe("restored");
    expect(await store.due(7, now + durations.reclaimAfterMs, 10)).toStrictEqual([]);
    expect(await claim(bob, "tb")).toStrictEqual({
      kind: "created",
      record: recordOf(bob, "tb", 10, now, { supersedes: 9 }),
      previous: ended,
    });
  });

  it("answers human_held for a human claim", async () => {
    const human: Actor = { kind: "human", login: "maintainer" };
    const { tokenDigest: _, branch: __, ...rest } = recordOf(human, "x", 3, T0, { state: "human" });
    await store.restore(rest, now);
    expect(await claim(alice, "ta", { takeover: true })).toStrictEqual({ kind: "human_held", current: rest });
  });

  it("sets the epoch once per installation and keeps it", async () => {
    expect(await store.epoch(7, now)).toBe(T0);
    now += 5 * minute;
    expect(await store.epoch(7, now)).toBe(T0);
    expect(await store.epoch(8, now)).toBe(now);
    expect(await h.emptyStore().epoch(7, now)).toBe(now);
  });

  it("lists due subjects earliest first, within one installation", async () => {
    await claim(alice, "a", { key: on(42) }); // due T0 + 30m
    now = T0 + minute;
    await claim(bob, "b", { key: on(43), durations: reviewerDurations }); // due T0 + 16m
    now = T0 + 2 * minute;
    await claim(carol, "c", { key: on(44) }); // due T0 + 32m
    const stale = recordOf(agent("s-erin"), "e", 1, T0 - 10 * minute, { issue: 45, staleMarkedAt: T0 });
    await store.restore(stale, now); // marked stale: due lastHeartbeatAt + reclaimAfter = T0 + 50m
    await claim(agent("s-dave"), "d", { key: on(46) });
    await store.release({ key: on(46), generation: 1, tokenDigest: digest("d"), now, outcome: "handoff" });
    await claim(agent("s-frank"), "f", { key: on(42, 8) });

    expect(await store.due(7, T0 + 60 * minute, 10)).toStrictEqual([on(43), on(42), on(44), on(45)]);
    expect(await store.due(7, T0 + 30 * minute, 10)).toStrictEqual([on(43), on(42)]);
    expect(await store.due(7, T0 + 60 * minute, 1)).toStrictEqual([on(43)]);
    expect(await store.due(7, T0 + 15 * minute, 10)).toStrictEqual([]);
    expect(await store.due(8, T0 + 60 * minute, 10)).toStrictEqual([on(42, 8)]);

    now = T0 + 20 * minute;
    expect(
      await store.heartbeat({ key: on(45), generation: 1, tokenDigest: digest("e"), now, phaseEditEveryMs }),
    ).toStrictEqual({
      kind: "ok",
      record: recordOf(agent("s-erin"), "e", 1, T0 - 10 * minute, { issue: 45, lastHeartbeatAt: now }),
      editComment: true,
    });
    await store.heartbeat({ key: on(43), generation: 1, tokenDigest: digest("b"), now, phaseEditEveryMs });
    expect(await store.due(7, T0 + 60 * minute, 10)).toStrictEqual([on(42), on(44), on(43), on(45)]);
  });

  it("asks for a comment edit on a phase change, throttled to phaseEditEveryMs", async () => {
    await claim(alice, "ta");
    now += minute;
    const firstAt = now;
    expect(await heartbeat(1, "ta", { phase: "coding" })).toStrictEqual({
      kind: "ok",
      record: recordOf(alice, "ta", 1, T0, {
        lastHeartbeatAt: now,
        phase: "coding",
        phaseCommentAt: firstAt,
      }),
      editComment: true,
    });
    now += minute;
    expect(await heartbeat(1, "ta", { phase: "testing" })).toStrictEqual({
      kind: "ok",
      record: recordOf(alice, "ta", 1, T0, {
        lastHeartbeatAt: now,
        phase: "testing",
        phaseCommentAt: firstAt,
      }),
      editComment: false,
    });
    now = firstAt + phaseEditEveryMs;
    expect((await heartbeat(1, "ta", { phase: "testing" })).kind === "ok").toBe(true);
    expect(await heartbeat(1, "ta", { phase: "testing" })).toMatchObject({ editComment: false });
    expect(await heartbeat(1, "ta", { phase: "review" })).toStrictEqual({
      kind: "ok",
      record: recordOf(alice, "ta", 1, T0, { lastHeartbeatAt: now, phase: "review", phaseCommentAt: now }),
      editComment: true,
    });
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
    await store.restore(recordOf(alice, "ta", 1, T0, { staleMarkedAt: 0 }), now);
    expect(await store.due(7, T0 + durations.ttlMs, 10)).toStrictEqual([]);
    expect(await store.due(7, T0 + durations.reclaimAfterMs, 10)).toStrictEqual([key]);
  });

  it("does not let the caller's input objects alias the stored record", async () => {
    const actor = agent("s-alias");
    const input = claimInput(actor, "ta", {
      durations: { ...durations },
      scope: ["src/lease/**", "test/*.ts"],
    });
    await store.claim(input);
    actor.sessionId = "s-changed";
    input.durations.ttlMs = 1;
    input.scope?.push("everything");
    expect(await store.get(key)).toStrictEqual(recordOf(agent("s-alias"), "ta", 1, T0));
  });

  it("lets exactly one of 50 concurrent claimants win", async () => {
    const stores = h.concurrentStores();
    const claimants = Array.from({ length: 50 }, (_, i) => agent(`s-${i}`));
    const outcomes: ClaimOutcome[] = await Promise.all(
      claimants.map((actor, i) => claim(actor, `t${i}`, {}, stores[i % stores.length])),
    );
    const created = outcomes.filter((outcome) => outcome.kind === "created");
    const held = outcomes.filter((outcome) => outcome.kind === "held");
    expect(created).toHaveLength(1);
    expect(held).toHaveLength(49);
    const winner = created[0]!.record;
    expect(winner.generation).toBe(1);
    expect(await store.get(key)).toStrictEqual(winner);
    for (const outcome of held) expect(outcome).toStrictEqual({ kind: "held", current: winner });
    expect(await store.history(key)).toStrictEqual([
      { at: T0, generation: 1, kind: "claimed", actor: winner.actor },
    ]);
  });
});

describe.skipIf(!redisProbe.available)("RedisLivenessStore on Redis", () => {
  const runPrefix = uniqueKeyPrefix("redis");
  let redis: Redis;
  let now = T0;

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
    const store = new RedisLivenessStore({ redis, keyPrefix });
    await store.claim(input());
    await store.epoch(7, now);
    const [, keys] = await redis.scan("0", "MATCH", `${keyPrefix}*`, "COUNT", 1000);
    expect(keys.length).toBeGreaterThanOrEqual(7);
    for (const name of keys) expect(name.startsWith(`${keyPrefix}{i:7}:`)).toBe(true);
  });

  it("heartbeats in one round trip (EVALSHA)", async () => {
    const store = new RedisLivenessStore({ redis, keyPrefix: `${runPrefix}trip:` });
    await store.claim(input());
    await store.heartbeat({ key, generation: 1, tokenDigest: digest("ta"), now, phaseEditEveryMs });
    const sent = vi.spyOn(redis, "sendCommand");
    try {
      now += minute;
      await store.heartbeat({ key, generation: 1, tokenDigest: digest("ta"), now, phaseEditEveryMs });
      expect(sent.mock.calls.map(([command]) => command.name)).toStrictEqual(["evalsha"]);
    } finally {
      sent.mockRestore();
    }
  });

  it("rejects a corrupt stored record rather than returning it", async () => {
    const keyPrefix = `${runPrefix}corrupt:`;
    const store = new RedisLivenessStore({ redis, keyPrefix });
    await store.claim(input());
    await redis.hset(`${keyPrefix}{i:7}:s:1001:42:rec`, "state", "haunted");
    await expect(store.get(key)).rejects.toThrow(/corrupt claim record/);
  });

  it("quits the client on close only when it owns it", async () => {
    const borrowed = await createTestRedis();
    await new RedisLivenessStore({ redis: borrowed, keyPrefix: `${runPrefix}close:` }).close();
    expect(borrowed.status).toBe("ready");
    const owned = new RedisLivenessStore({
      redis: borrowed,
      keyPrefix: `${runPrefix}close:`,
      ownsClient: true,
    });
    await owned.ping();
    await owned.close();
    await expect(owned.get(key)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(["close", "end"]).toContain(borrowed.status);
  });

  it.each([
    ["without an offline queue", { enableOfflineQueue: false }],
    [
      "with one retry per request",
      { enableOfflineQueue: true, maxRetriesPerRequest: 1, retryStrategy: () => 5 },
    ],
  ])("answers StoreUnavailableError from every method when Redis is unreachable (%s)", async (_, options) => {
    // Port 1 on loopback refuses connections.
    const down = new Redis({
      host: "127.0.0.1",
      port: 1,
      lazyConnect: true,
      connectTimeout: 500,
      ...options,
    });
    down.on("error", () => {});
    const store = new RedisLivenessStore({ redis: down, keyPrefix: `${runPrefix}down:`, ownsClient: true });
    const lease = { key, generation: 1, tokenDigest: digest("ta"), now };
    const calls: [string, () => Promise<unknown>][] = [
      ["claim", () => store.claim(input())],
      ["commitClaim", () => store.commitClaim(key, 1, { commentNodeId: "IC_x" })],
      ["rollbackClaim", () => store.rollbackClaim(key, 1, null, now)],
      ["heartbeat", () => store.heartbeat({ ...lease, phaseEditEveryMs })],
      ["verify", () => store.verify(lease)],
      ["release", () => store.release({ ...lease, outcome: "handoff" })],
      ["markSynced", () => store.markSynced(key, 1)],
      ["get", () => store.get(key)],
      ["restore", () => store.restore(recordOf(alice, "ta", 1, T0), now)],
      ["history", () => store.history(key)],
      ["due", () => store.due(7, now, 10)],
      ["epoch", () => store.epoch(7, now)],
      ["ping", () => store.ping()],
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
  });
});
