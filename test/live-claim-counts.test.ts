// The caps' live-claim counts, kept by the transitions: exact at the boundary, never drifting from a recount, in both stores.
import { createHash } from "node:crypto";
import fc from "fast-check";
import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Actor, ClaimRecord, SubjectKey } from "../src/domain/claim.js";
import { aliveAt } from "../src/domain/liveness.js";
import type { ClaimInput, ClaimOutcome } from "../src/providers/liveness-store.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import {
  createTestCluster,
  createTestRedis,
  deleteKeysWithPrefix,
  probeRedis,
  redisClusterUrl,
  uniqueKeyPrefix,
} from "./support/redis.js";

const redisProbe = await probeRedis();

interface CountCase {
  name: string;
  setup(): Promise<void>;
  /** A store with no records (memory: a new one; Redis: a key prefix of its own). */
  newStore(clock: () => number): Stores;
  teardown(): Promise<void>;
}

const memoryCase: CountCase = {
  name: "memory stores",
  setup: async () => {},
  newStore: (clock) => createMemoryStores({ now: clock }),
  teardown: async () => {},
};

function redisCase(name: string, connect: () => Promise<Redis | Cluster>): CountCase {
  const runPrefix = uniqueKeyPrefix("live-counts");
  let redis: Redis | Cluster | undefined;
  let next = 0;
  return {
    name,
    async setup() {
      redis = await connect();
    },
    newStore: () => createRedisStores({ redis: redis!, keyPrefix: `${runPrefix}${++next}:` }),
    async teardown() {
      if (!redis) return;
      await deleteKeysWithPrefix(redis, runPrefix);
      await redis.quit();
    },
  };
}

const cases: CountCase[] = [memoryCase];
if (redisProbe.available) cases.push(redisCase("Redis stores", createTestRedis));
if (redisProbe.available && redisClusterUrl) {
  cases.push(redisCase("Redis stores on Redis Cluster", createTestCluster));
}

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const phaseEditEveryMs = 10 * minute;
const uncapped = { perSession: 1_000, perLogin: 1_000 };
const on = (issue: number): SubjectKey => ({ installationId: 7, repoId: 1001, issue });
const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const agent = (login: string, sessionId?: string): Actor => ({
  kind: "agent",
  login,
  runtime: "claude-code",
  ...(sessionId ? { sessionId } : {}),
});
const aliceOne = agent("alice", "s1");
const aliceTwo = agent("alice", "s2");
const aliceUnnamed = agent("alice");
const bob = agent("bob", "s1");
const aliceByHand: Actor = { kind: "human", login: "alice" };

function claimInput(actor: Actor, token: string, now: number, extra: Partial<ClaimInput> = {}): ClaimInput {
  return {
    key: on(1),
    repo: "acme/widgets",
    actor,
    taskClass: "author",
    durations,
    tokenDigest: digest(token),
    takeover: false,
    now,
    minGeneration: 0,
    appAssigned: true,
    caps: uncapped,
    ...extra,
  };
}

function created(outcome: ClaimOutcome): { record: ClaimRecord; previous: ClaimRecord | null } {
  if (outcome.kind !== "created") throw new Error(`expected created, got ${outcome.kind}`);
  return outcome;
}

describe.each(cases)("$name live-claim counts", (countCase) => {
  let stores: Stores;
  let now: number;
  const clock = () => now;

  beforeAll(() => countCase.setup());
  afterAll(() => countCase.teardown());
  beforeEach(() => {
    stores = countCase.newStore(clock);
    now = T0;
  });

  const claim = (actor: Actor, issue: number, extra: Partial<ClaimInput> = {}) =>
    stores.claims.claim(
      claimInput(actor, `${actor.login}-${actor.sessionId}-${issue}-${now}`, now, {
        key: on(issue),
        ...extra,
      }),
    );
  const claimAs = (actor: Actor, issue: number, token: string, extra: Partial<ClaimInput> = {}) =>
    stores.claims.claim(claimInput(actor, token, now, { key: on(issue), ...extra }));
  const capOf = (outcome: ClaimOutcome) => (outcome.kind === "cap_reached" ? outcome.limit : outcome.kind);

  it("refuses the claim past the login cap, and admits it once a release frees a place", async () => {
    const two = { perSession: 5, perLogin: 2 };
    expect(capOf(await claimAs(aliceOne, 1, "a1", { caps: two }))).toBe("created");
    expect(capOf(await claimAs(aliceTwo, 2, "a2", { caps: two }))).toBe("created");
    expect(capOf(await claim(aliceUnnamed, 3, { caps: two }))).toBe("login");
    expect(capOf(await claim(bob, 3, { caps: two }))).toBe("created");
    await stores.claims.release({
      key: on(1),
      generation: 1,
      tokenDigest: digest("a1"),
      now,
      outcome: "handoff",
    });
    expect(capOf(await claim(aliceUnnamed, 4, { caps: two }))).toBe("created");
    expect(capOf(await claim(aliceOne, 5, { caps: two }))).toBe("login");
  });

  it("refuses the claim past the session cap; the login's other session and a re-claim are not counted", async () => {
    const one = { perSession: 1, perLogin: 5 };
    expect(capOf(await claimAs(aliceOne, 1, "a1", { caps: one }))).toBe("created");
    expect(capOf(await claim(aliceOne, 2, { caps: one }))).toBe("session");
    expect(capOf(await claim(aliceTwo, 2, { caps: one }))).toBe("created");
    expect(capOf(await claimAs(aliceOne, 1, "a1b", { caps: one, leaseTokenDigest: digest("a1") }))).toBe(
      "reclaimed",
    );
    expect(capOf(await claim(aliceOne, 3, { caps: one }))).toBe("session");
  });

  it("stops counting a claim when its ttl passes and counts it again after a heartbeat or a wait", async () => {
    const one = { perSession: 5, perLogin: 1 };
    await claimAs(aliceOne, 1, "a1", { caps: one });
    now = T0 + durations.ttlMs - 1;
    expect(capOf(await claim(aliceOne, 2, { caps: one }))).toBe("login");
    now = T0 + durations.ttlMs; // exactly at live-until: no longer live
    expect(capOf(await claimAs(aliceOne, 2, "a2", { caps: one }))).toBe("created");
    await stores.claims.release({
      key: on(2),
      generation: 1,
      tokenDigest: digest("a2"),
      now,
      outcome: "handoff",
    });
    const beat = { key: on(1), generation: 1, tokenDigest: digest("a1"), phaseEditEveryMs };
    expect((await stores.claims.heartbeat({ ...beat, now })).kind).toBe("ok");
    expect(capOf(await claim(aliceOne, 3, { caps: one }))).toBe("login");
    // A heartbeat announcing a wait keeps the claim live until the wait ends, plus the ttl.
    const waitUntil = now + 2 * durations.ttlMs;
    expect((await stores.claims.heartbeat({ ...beat, now, waitUntil })).kind).toBe("ok");
    now = waitUntil + durations.ttlMs - 1;
    expect(capOf(await claim(aliceOne, 3, { caps: one }))).toBe("login");
    now += 1;
    expect(capOf(await claim(aliceOne, 3, { caps: one }))).toBe("created");
  });

  it("moves a taken-over subject to its new holder's count, and back to the old one's when the takeover is rolled back", async () => {
    const one = { perSession: 5, perLogin: 1 };
    await claimAs(aliceOne, 1, "a1");
    now = T0 + durations.ttlMs; // silent a ttl: alice's claim no longer counts, and may be taken over
    expect((await claimAs(bob, 1, "b1", { takeover: true })).kind).toBe("takeover_pending");
    now += durations.heartbeatMs;
    const taken = created(await claimAs(bob, 1, "b1", { takeover: true }));
    expect(capOf(await claim(bob, 2, { caps: one }))).toBe("login");
    expect(capOf(await claimAs(aliceTwo, 2, "a2", { caps: one }))).toBe("created");
    await stores.claims.release({
      key: on(2),
      generation: 1,
      tokenDigest: digest("a2"),
      now,
      outcome: "handoff",
    });

    await stores.claims.rollbackClaim(on(1), taken.record.generation, taken.previous, now);
    expect(capOf(await claim(bob, 2, { caps: one }))).toBe("created");
    const beat = { key: on(1), generation: 1, tokenDigest: digest("a1"), phaseEditEveryMs, now };
    expect((await stores.claims.heartbeat(beat)).kind).toBe("ok");
    expect(capOf(await claim(aliceTwo, 3, { caps: one }))).toBe("login");
  });

  it("frees a place when the App reaps, revokes or completes a claim, a human claims it, or its issue is forgotten", async () => {
    const four = { perSession: 10, perLogin: 4 };
    for (const issue of [1, 2, 3, 4, 5]) await claimAs(aliceOne, issue, `a${issue}`);
    expect(capOf(await claim(aliceOne, 6, { caps: { ...four, perLogin: 5 } }))).toBe("login");
    await stores.claims.endClaim({ key: on(1), generation: 1, now, to: "reaped", bump: false });
    expect(capOf(await claim(aliceOne, 6, { caps: four }))).toBe("login");
    await stores.claims.endClaim({ key: on(2), generation: 1, now, to: "revoked", bump: true });
    expect(capOf(await claim(aliceOne, 6, { caps: { ...four, perLogin: 3 } }))).toBe("login");
    await stores.claims.humanClaim({
      key: on(3),
      repo: "acme/widgets",
      actor: aliceByHand,
      now,
      minGeneration: 0,
      release: false,
      appAssigned: false,
    });
    expect(capOf(await claim(aliceOne, 6, { caps: { ...four, perLogin: 2 } }))).toBe("login");
    await stores.claims.forget(on(4), now);
    expect(capOf(await claim(aliceOne, 6, { caps: { ...four, perLogin: 1 } }))).toBe("login");
    await stores.claims.endClaim({ key: on(5), generation: 1, now, to: "completed", bump: false });
    expect(capOf(await claim(aliceOne, 6, { caps: { ...four, perLogin: 1 } }))).toBe("created");
  });

  it("counts nothing of a purged installation", async () => {
    await claimAs(aliceOne, 1, "a1");
    await claimAs(aliceTwo, 2, "a2");
    expect(capOf(await claim(aliceOne, 3, { caps: { perSession: 5, perLogin: 2 } }))).toBe("login");
    await stores.installations.purgeInstallation(7);
    expect(capOf(await claim(aliceOne, 3, { caps: { perSession: 1, perLogin: 1 } }))).toBe("created");
  });

  it("counts restored records exactly like the lost ones", async () => {
    const records: ClaimRecord[] = [];
    records.push(created(await claimAs(aliceOne, 1, "a1")).record);
    now += durations.ttlMs; // alice's claim on 1 no longer counts
    records.push(created(await claimAs(aliceOne, 2, "a2")).record);
    records.push(created(await claimAs(aliceTwo, 3, "a3")).record);
    records.push(created(await claimAs(bob, 4, "b4")).record);
    stores = countCase.newStore(clock);
    for (const record of records) expect(await stores.claims.restore(record, now)).toBe("restored");
    expect(capOf(await claim(aliceOne, 5, { caps: { perSession: 5, perLogin: 2 } }))).toBe("login");
    expect(capOf(await claim(aliceOne, 5, { caps: { perSession: 1, perLogin: 3 } }))).toBe("session");
    expect(capOf(await claim(aliceOne, 5, { caps: { perSession: 2, perLogin: 3 } }))).toBe("created");
  });

  it("never drifts from a recount of every record over random transitions", async () => {
    const subjects = [1, 2, 3];
    const probe = 900;
    const actors = [aliceOne, aliceTwo, aliceUnnamed, bob, aliceByHand];
    const probed = [aliceOne, aliceTwo, aliceUnnamed, bob];
    const subject = fc.constantFrom(...subjects);
    const actor = fc.constantFrom(...actors.keys());
    const step = fc.oneof(
      {
        arbitrary: fc.record({
          t: fc.constant("claim" as const),
          s: subject,
          a: actor,
          takeover: fc.boolean(),
          prove: fc.boolean(),
          commit: fc.boolean(),
        }),
        weight: 4,
      },
      {
        arbitrary: fc.record({
          t: fc.constant("heartbeat" as const),
          s: subject,
          waitMs: fc.option(fc.integer({ min: -minute, max: 90 * minute })),
          ttl: fc.boolean(),
        }),
        weight: 4,
      },
      { arbitrary: fc.record({ t: fc.constant("release" as const), s: subject }), weight: 1 },
      {
        arbitrary: fc.record({
          t: fc.constant("end" as const),
          s: subject,
          to: fc.constantFrom("reaped" as const, "revoked" as const, "completed" as const),
          bump: fc.boolean(),
        }),
        weight: 1,
      },
      { arbitrary: fc.record({ t: fc.constant("stale" as const), s: subject }), weight: 1 },
      {
        arbitrary: fc.record({ t: fc.constant("human" as const), s: subject, release: fc.boolean() }),
        weight: 1,
      },
      { arbitrary: fc.record({ t: fc.constant("forget" as const), s: subject }), weight: 1 },
      { arbitrary: fc.record({ t: fc.constant("rollback" as const), s: subject, a: actor }), weight: 1 },
      { arbitrary: fc.record({ t: fc.constant("lose" as const) }), weight: 1 },
      {
        arbitrary: fc.record({
          t: fc.constant("restore" as const),
          s: subject,
          a: actor,
          silentMs: fc.nat(40 * minute),
        }),
        weight: 2,
      },
      {
        arbitrary: fc.record({
          t: fc.constant("tick" as const),
          ms: fc.oneof(
            fc.constantFrom(1, durations.ttlMs - 1, durations.ttlMs, durations.heartbeatMs),
            fc.integer({ min: 0, max: 70 * minute }),
          ),
        }),
        weight: 4,
      },
    );

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        stores = countCase.newStore(clock);
        now = T0;
        const tokens = new Map<number, { generation: number; token: string }>();
        let serial = 0;
        const token = () => `t${++serial}`;

        async function apply(op: (typeof steps)[number]): Promise<void> {
          const current = "s" in op ? tokens.get(op.s) : undefined;
          const lease =
            current && "s" in op
              ? { key: on(op.s), generation: current.generation, tokenDigest: digest(current.token), now }
              : null;
          switch (op.t) {
            case "claim": {
              const t = token();
              const outcome = await claimAs(actors[op.a]!, op.s, t, {
                takeover: op.takeover,
                ...(op.prove && current ? { leaseTokenDigest: digest(current.token) } : {}),
              });
              if (outcome.kind === "created")
                tokens.set(op.s, { generation: outcome.record.generation, token: t });
              if (outcome.kind === "reclaimed" && op.commit) {
                const generation = outcome.record.generation;
                await stores.claims.commitReclaim({ key: on(op.s), generation, tokenDigest: digest(t), now });
                tokens.set(op.s, { generation, token: t });
              }
              return;
            }
            case "heartbeat":
              if (!lease) return;
              await stores.claims.heartbeat({
                ...lease,
                phaseEditEveryMs,
                ...(op.waitMs !== null ? { waitUntil: now + op.waitMs } : {}),
                ...(op.ttl ? { durations: { ...durations, ttlMs: 20 * minute } } : {}),
              });
              return;
            case "release":
              if (lease) await stores.claims.release({ ...lease, outcome: "handoff" });
              return;
            case "end":
              if (lease)
                await stores.claims.endClaim({
                  key: lease.key,
                  generation: lease.generation,
                  now,
                  to: op.to,
                  bump: op.bump,
                });
              return;
            case "stale":
              if (lease)
                await stores.claims.markStale({
                  key: lease.key,
                  generation: lease.generation,
                  now,
                  requireSilentMs: 0,
                  storeEpoch: 0,
                });
              return;
            case "human":
              await stores.claims.humanClaim({
                key: on(op.s),
                repo: "acme/widgets",
                actor: aliceByHand,
                now,
                minGeneration: 0,
                release: op.release,
                appAssigned: false,
              });
              return;
            case "forget":
              await stores.claims.forget(on(op.s), now);
              return;
            case "rollback": {
              const outcome = await claimAs(actors[op.a]!, op.s, token(), { takeover: true });
              if (outcome.kind === "created")
                await stores.claims.rollbackClaim(on(op.s), outcome.record.generation, outcome.previous, now);
              return;
            }
            case "restore": {
              // A newer generation restored over whatever the store holds (a claim comment read back).
              const t = token();
              const generation = ((await stores.claims.get(on(op.s)))?.generation ?? 0) + 1;
              const record: ClaimRecord = {
                ...on(op.s),
                repo: "acme/widgets",
                generation,
                state: "active",
                actor: actors[op.a]!,
                taskClass: "author",
                durations,
                claimedAt: now - op.silentMs,
                lastHeartbeatAt: now - op.silentMs,
                tokenDigest: digest(t),
                appAssigned: true,
                sync: "done",
              };
              if ((await stores.claims.restore(record, now)) === "restored")
                tokens.set(op.s, { generation, token: t });
              return;
            }
            case "lose": {
              const records = await Promise.all(subjects.map((s) => stores.claims.get(on(s))));
              stores = countCase.newStore(clock);
              for (const record of records) if (record) await stores.claims.restore(record, now);
              return;
            }
            case "tick":
              now += op.ms;
              return;
          }
        }

        /** Live claims by reading every record: active, and heard from (or waiting) within the ttl. */
        async function recount(claimant: Actor): Promise<{ login: number; session: number }> {
          let login = 0;
          let session = 0;
          for (const s of subjects) {
            const r = await stores.claims.get(on(s));
            if (r?.state !== "active" || now - aliveAt(r) >= r.durations.ttlMs) continue;
            if (r.actor.login === claimant.login) login++;
            const sameSession =
              r.actor.kind === "agent" &&
              claimant.kind === "agent" &&
              !!claimant.sessionId &&
              r.actor.sessionId === claimant.sessionId;
            if (r.actor.login === claimant.login && sameSession) session++;
          }
          return { login, session };
        }

        /** The store's count, seen through its caps: refused at the recount, admitted one above it. */
        async function expectCounts(claimant: Actor): Promise<void> {
          const { login, session } = await recount(claimant);
          const label = `${claimant.login}/${claimant.sessionId} after ${JSON.stringify(steps)}`;
          expect(
            capOf(await claimAs(claimant, probe, token(), { caps: { perSession: 1_000, perLogin: login } })),
            label,
          ).toBe("login");
          if (claimant.sessionId) {
            expect(
              capOf(
                await claimAs(claimant, probe, token(), { caps: { perSession: session, perLogin: 1_000 } }),
              ),
              label,
            ).toBe("session");
          }
          const admitted = await claimAs(claimant, probe, token(), {
            caps: { perSession: session + 1, perLogin: login + 1 },
          });
          expect(admitted.kind, label).toBe("created");
          if (admitted.kind === "created")
            await stores.claims.rollbackClaim(on(probe), admitted.record.generation, null, now);
        }

        for (const op of steps) {
          await apply(op);
          for (const claimant of probed) await expectCounts(claimant);
        }
      }),
      { numRuns: 100, seed: 1414 },
    );
  });
});
