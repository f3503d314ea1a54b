// The memory store against the Lua scripts: random call sequences run on both stores must answer alike, call by call, and leave the same records.
import { createHash } from "node:crypto";
import fc from "fast-check";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor, ClaimRecord, SubjectKey } from "../src/domain/claim.js";
import type { ClaimInput, LeaseInput } from "../src/providers/liveness-store.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();
/** Each call's name and answer kind (and reason) the sequences reached, so a weak generator shows. */
const reached = new Set<string>();

/**
 * Fixed, so a run is repeatable; on a failure fast-check prints the lane's seed, the failing
 * sequence's path and the shrunk sequence. The lanes (seed, seed + 1, …) run side by side, since
 * every call waits for a Redis round trip.
 */
const seed = 20_261_202;
const lanes = 4;
const sequences = 200;
const callsPerSequence = 30;

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const shortDurations = { ttlMs: 10 * minute, reclaimAfterMs: 20 * minute, heartbeatMs: 2 * minute };
const phaseEditEveryMs = 10 * minute;
const installationId = 7;
const repoId = 1001;
const subjects = [1, 2];
const on = (issue: number): SubjectKey => ({ installationId, repoId, issue });
const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const agent = (login: string, sessionId?: string): Actor => ({
  kind: "agent",
  login,
  runtime: "claude-code",
  ...(sessionId ? { sessionId } : {}),
});
/** Claimants, each with the session key it shows (or none). */
const claimants: { actor: Actor; sessionKey?: string }[] = [
  { actor: agent("alice", "s1"), sessionKey: "key-alice-s1" },
  { actor: agent("alice", "s2") },
  { actor: agent("alice") },
  { actor: agent("bob", "s1"), sessionKey: "key-bob-s1" },
  // Names bob's (public) session id without his key.
  { actor: agent("bob", "s1") },
];
const person: Actor = { kind: "human", login: "carol" };

const subject = fc.constantFrom(...subjects);
const claimant = fc.nat(claimants.length - 1);
/** Which lease a call shows: an issued token (by index, newest first) with its generation, nearby, or none. */
const leaseChoice = fc.record({
  token: fc.oneof(
    { weight: 6, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.nat(5) },
    { weight: 1, arbitrary: fc.constant(-1) },
  ),
  generation: fc.oneof(
    { weight: 6, arbitrary: fc.constant("own") },
    { weight: 2, arbitrary: fc.constantFrom("current", "older", "newer") },
  ),
});
/** The generation an App-made call names: mostly the current one. */
const named = fc.oneof(
  { weight: 4, arbitrary: fc.constant("current") },
  { weight: 1, arbitrary: fc.constant("older") },
);
const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("claim" as const),
      s: subject,
      c: claimant,
      takeover: fc.boolean(),
      proof: fc.constantFrom("none", "key", "token", "old-token"),
      after: fc.constantFrom("commit", "rollback", "none"),
      minGeneration: fc.constantFrom(0, 0, 0, 4),
      caps: fc.constantFrom({ perSession: 5, perLogin: 20 }, { perSession: 1, perLogin: 2 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("heartbeat" as const),
      s: subject,
      lease: leaseChoice,
      waitMs: fc.option(fc.integer({ min: -minute, max: 70 * minute })),
      phase: fc.option(fc.constantFrom("coding", "testing")),
      needsHuman: fc.boolean(),
      shorter: fc.boolean(),
      usage: fc.option(fc.record({ costMicros: fc.nat(5_000_000), tokens: fc.nat(10_000) })),
      wantRecord: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("verify" as const), s: subject, lease: leaseChoice }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("release" as const),
      s: subject,
      lease: leaseChoice,
      outcome: fc.constantFrom("completed" as const, "handoff" as const, "abandoned" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("end" as const),
      s: subject,
      generation: named,
      to: fc.constantFrom("reaped" as const, "revoked" as const, "completed" as const),
      bump: fc.boolean(),
      by: fc.boolean(),
      requireSilentMs: fc.option(fc.constantFrom(0, durations.ttlMs, durations.reclaimAfterMs)),
      epochAgo: fc.constantFrom(0, 40 * minute),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("stale" as const),
      s: subject,
      generation: named,
      requireSilentMs: fc.constantFrom(0, durations.ttlMs),
      epochAgo: fc.constantFrom(0, 40 * minute),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("sync" as const),
      s: subject,
      generation: named,
      commit: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("human" as const), s: subject, release: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("forget" as const), s: subject }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("push" as const),
      s: subject,
      agoMs: fc.integer({ min: -minute, max: minute }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("budget" as const),
      s: subject,
      generation: fc.constantFrom("current", "older"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("restore" as const),
      s: subject,
      c: claimant,
      ahead: fc.constantFrom(-1, 0, 1),
      silentMs: fc.nat(40 * minute),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("tick" as const),
      ms: fc.oneof(
        fc.constantFrom(1, durations.heartbeatMs, durations.ttlMs, durations.reclaimAfterMs - 1),
        fc.integer({ min: 0, max: 40 * minute }),
      ),
    }),
  },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/** Runs one call on both stores; fails unless they answer alike. */
type Both = <T>(label: string, call: (stores: Stores) => Promise<T>) => Promise<T>;

if (!redisProbe.available) {
  describe.skip(`the memory store against the Redis store (${redisProbe.reason})`, () => {
    it("answers every call alike", () => {});
  });
} else {
  describe("the memory store against the Redis store", () => {
    const runPrefix = uniqueKeyPrefix("equivalence");
    let redis: Redis;
    let next = 0;

    beforeAll(async () => {
      redis = await createTestRedis();
    });
    afterAll(async () => {
      await deleteKeysWithPrefix(redis, runPrefix);
      await redis.quit();
    });

    it(`answers ${sequences} random sequences of ${callsPerSequence} calls alike, call by call`, async () => {
      const lane = (laneSeed: number) =>
        fc.assert(
          fc.asyncProperty(
            fc.array(step, { minLength: callsPerSequence, maxLength: callsPerSequence }),
            async (steps) => {
              let now = T0;
              const clock = () => now;
              const memory = createMemoryStores({ now: clock });
              const keyPrefix = `${runPrefix}${++next}:`;
              const onRedis = createRedisStores({ redis, keyPrefix });
              const done: string[] = [];
              const lookup = (s: number) => memory.claims.get(on(s));
              const both: Both = async (label, call) => {
                const expected = await call(memory);
                const actual = await call(onRedis);
                done.push(label);
                reached.add(answerKind(label, expected));
                expect(actual, `call ${done.length} (${done.join(", ")})`).toEqual(expected);
                return expected;
              };
              await runSteps(
                steps,
                both,
                lookup,
                () => now,
                (ms) => {
                  now += ms;
                },
              );
              // The state left behind, read side by side.
              await Promise.all([
                ...subjects.flatMap((s) => [
                  both(`get ${s}`, (stores) => stores.claims.get(on(s))),
                  both(`history ${s}`, (stores) => stores.claims.history(on(s))),
                  both(`heartbeatGaps ${s}`, (stores) => stores.claims.heartbeatGaps(on(s))),
                ]),
                both("due", (stores) =>
                  stores.index.due(installationId, now + 3 * durations.reclaimAfterMs, 10),
                ),
                both("activeCount", (stores) => stores.index.activeCount(installationId)),
                both("listRepository", (stores) => stores.index.listRepository(installationId, repoId, 10)),
                both("spendOf", (stores) => stores.spend.spendOf(subjects.map(on))),
              ]);
            },
          ),
          { seed: laneSeed, numRuns: sequences / lanes, endOnFailure: false },
        );
      await Promise.all(Array.from({ length: lanes }, (_, i) => lane(seed + i)));
      // The sequences reach every guard worth comparing, not only the refusals of an empty store.
      const wanted = [
        "claim created",
        "claim reclaimed",
        "claim held",
        "claim human_held",
        "claim takeover_pending",
        "claim cap_reached",
        "commitReclaim",
        "heartbeat ok",
        "heartbeat superseded",
        "heartbeat invalid_token",
        "heartbeat usage_decreased",
        "heartbeat gone expired",
        "heartbeat gone revoked",
        "verify ok",
        "release released",
        "release superseded",
        "endClaim ended",
        "endClaim skipped live",
        "endClaim skipped moved-on",
        "endClaim skipped not-active",
        "markStale marked",
        "markStale skipped already-marked",
        "markStale skipped live",
        "restore restored",
        "restore exists",
      ];
      expect(wanted.filter((kind) => !reached.has(kind))).toEqual([]);
    }, 120_000);

    /** Runs the sequence on both stores, call by call, then compares what they keep. */
    async function runBoth(steps: Step[]): Promise<void> {
      let now = T0;
      const memory = createMemoryStores({ now: () => now });
      const onRedis = createRedisStores({ redis, keyPrefix: `${runPrefix}${++next}:` });
      const both: Both = async (label, call) => {
        const expected = await call(memory);
        expect(await call(onRedis), label).toEqual(expected);
        return expected;
      };
      await runSteps(
        steps,
        both,
        (s) => memory.claims.get(on(s)),
        () => now,
        (ms) => {
          now += ms;
        },
      );
      for (const s of subjects) await both(`get ${s}`, (stores) => stores.claims.get(on(s)));
    }

    // A new takeover intent made without a session key is its own claimant's: the expired
    // intent's key digest goes with it (the claim script once kept it, refusing the new claimant as
    // "held" until the holder's reclaim-after passed).
    it("starts a new takeover intent without the expired intent's session key", async () => {
      const caps = { perSession: 5, perLogin: 20 } as const;
      const claim = (c: number, proof: "none" | "key") =>
        ({ t: "claim", s: 1, c, takeover: true, proof, after: "commit", minGeneration: 0, caps }) as const;
      await runBoth([
        { ...claim(1, "none"), takeover: false }, // alice's second session holds it
        { t: "tick", ms: 31 * minute }, // silent past the ttl
        claim(0, "key"), // alice's first session, with its key, asks to take over
        { t: "tick", ms: 11 * minute }, // that intent expires (two grace beats)
        claim(4, "none"), // bob's session id, no key: a new intent, its own
        { t: "tick", ms: durations.heartbeatMs }, // its grace passes
        claim(4, "none"), // and the takeover goes through
      ]);
    });
  });
}

/** `claim created`, `heartbeat gone expired`, `restore exists`, …: what a call answered. */
function answerKind(label: string, answer: unknown): string {
  const call = label.split(" ")[0];
  if (typeof answer === "string") return `${call} ${answer}`;
  const { kind, reason } = (answer ?? {}) as { kind?: string; reason?: string };
  return [call, kind, reason].filter(Boolean).join(" ");
}

async function runSteps(
  steps: Step[],
  both: Both,
  lookup: (s: number) => Promise<ClaimRecord | null>,
  clock: () => number,
  tick: (ms: number) => void,
) {
  /** Per subject, the tokens issued (newest first) with their generation. */
  const issued = new Map<number, { generation: number; token: string }[]>();
  let serial = 0;
  const mint = () => `t${++serial}`;
  const remember = (s: number, generation: number, token: string) =>
    issued.set(s, [{ generation, token }, ...(issued.get(s) ?? [])]);
  const currentGeneration = async (s: number) => (await lookup(s))?.generation ?? 0;

  async function generationOf(s: number, choice: string): Promise<number> {
    const current = await currentGeneration(s);
    return choice === "older" ? current - 1 : current;
  }

  async function leaseOf(s: number, choice: { token: number; generation: string }): Promise<LeaseInput> {
    const tokens = issued.get(s) ?? [];
    const picked = choice.token >= 0 ? tokens[choice.token % Math.max(tokens.length, 1)] : undefined;
    const token = picked?.token ?? "never-issued";
    const own = picked?.generation ?? 1;
    const current = await currentGeneration(s);
    const generation =
      choice.generation === "own"
        ? own
        : choice.generation === "current"
          ? current
          : choice.generation === "older"
            ? own - 1
            : own + 1;
    return { key: on(s), generation, tokenDigest: digest(token), now: clock() };
  }

  for (const op of steps) {
    const now = clock();
    switch (op.t) {
      case "claim": {
        const { actor, sessionKey } = claimants[op.c]!;
        const token = mint();
        const tokens = issued.get(op.s) ?? [];
        const proof: Partial<ClaimInput> =
          op.proof === "token" && tokens[0]
            ? { leaseTokenDigest: digest(tokens[0].token) }
            : op.proof === "old-token" && tokens[1]
              ? { leaseTokenDigest: digest(tokens[1].token) }
              : {};
        const input: ClaimInput = {
          key: on(op.s),
          repo: "acme/widgets",
          actor,
          taskClass: "author",
          durations,
          branch: `agent/${op.s}`,
          tokenDigest: digest(token),
          ...(sessionKey && op.proof !== "none" ? { sessionKeyDigest: digest(sessionKey) } : {}),
          ...proof,
          takeover: op.takeover,
          now,
          minGeneration: op.minGeneration,
          appAssigned: true,
          caps: op.caps,
        };
        const outcome = await both(`claim ${op.s}`, (stores) => stores.claims.claim(input));
        if (outcome.kind === "created") {
          remember(op.s, outcome.record.generation, token);
          const { generation } = outcome.record;
          if (op.after === "commit") {
            await both(`commitClaim ${op.s}`, (stores) =>
              stores.claims.commitClaim(on(op.s), generation, {
                commentNodeId: `IC_${token}`,
                commentId: serial,
              }),
            );
          } else if (op.after === "rollback") {
            await both(`rollbackClaim ${op.s}`, (stores) =>
              stores.claims.rollbackClaim(on(op.s), generation, outcome.previous, now),
            );
          }
        } else if (outcome.kind === "reclaimed") {
          remember(op.s, outcome.record.generation, token);
          if (op.after !== "none") {
            const generation = outcome.record.generation;
            await both(`commitReclaim ${op.s}`, (stores) =>
              stores.claims.commitReclaim({
                key: on(op.s),
                generation,
                tokenDigest: digest(token),
                now,
                ...(op.after === "commit" ? { comment: { commentNodeId: `IC_${token}` } } : {}),
              }),
            );
          }
        }
        break;
      }
      case "heartbeat": {
        const lease = await leaseOf(op.s, op.lease);
        await both(`heartbeat ${op.s}`, (stores) =>
          stores.claims.heartbeat({
            ...lease,
            phaseEditEveryMs,
            needsHuman: op.needsHuman,
            ...(op.phase !== null ? { phase: op.phase } : {}),
            ...(op.waitMs !== null ? { waitUntil: now + op.waitMs } : {}),
            ...(op.shorter ? { durations: shortDurations } : {}),
            ...(op.usage !== null ? { usage: op.usage } : {}),
            ...(op.wantRecord ? { wantRecord: true } : {}),
          }),
        );
        break;
      }
      case "verify": {
        const lease = await leaseOf(op.s, op.lease);
        await both(`verify ${op.s}`, (stores) => stores.claims.verify(lease));
        break;
      }
      case "release": {
        const lease = await leaseOf(op.s, op.lease);
        await both(`release ${op.s}`, (stores) => stores.claims.release({ ...lease, outcome: op.outcome }));
        break;
      }
      case "end": {
        const generation = await generationOf(op.s, op.generation);
        await both(`endClaim ${op.s}`, (stores) =>
          stores.claims.endClaim({
            key: on(op.s),
            generation,
            now,
            to: op.to,
            bump: op.bump,
            ...(op.by ? { by: person } : {}),
            ...(op.requireSilentMs !== null
              ? { requireSilentMs: op.requireSilentMs, storeEpoch: now - op.epochAgo }
              : {}),
          }),
        );
        break;
      }
      case "stale": {
        const generation = await generationOf(op.s, op.generation);
        await both(`markStale ${op.s}`, (stores) =>
          stores.claims.markStale({
            key: on(op.s),
            generation,
            now,
            requireSilentMs: op.requireSilentMs,
            storeEpoch: now - op.epochAgo,
          }),
        );
        break;
      }
      case "sync": {
        const generation = await generationOf(op.s, op.generation);
        await both(`markSynced ${op.s}`, (stores) =>
          op.commit
            ? stores.claims.commitClaim(on(op.s), generation, { commentNodeId: "IC_sync" })
            : stores.claims.markSynced(on(op.s), generation),
        );
        break;
      }
      case "human":
        await both(`humanClaim ${op.s}`, (stores) =>
          stores.claims.humanClaim({
            key: on(op.s),
            repo: "acme/widgets",
            actor: person,
            now,
            minGeneration: 0,
            release: op.release,
            appAssigned: false,
          }),
        );
        break;
      case "forget":
        await both(`forget ${op.s}`, (stores) => stores.claims.forget(on(op.s), now));
        break;
      case "push": {
        const generation = await currentGeneration(op.s);
        await both(`recordPush ${op.s}`, (stores) =>
          stores.claims.recordPush(on(op.s), generation, now + op.agoMs),
        );
        break;
      }
      case "budget": {
        const generation = await generationOf(op.s, op.generation);
        await both(`markBudgetExhausted ${op.s}`, (stores) =>
          stores.spend.markBudgetExhausted(on(op.s), generation),
        );
        await both(`markBudgetWarned ${op.s}`, (stores) => stores.spend.markBudgetWarned(on(op.s)));
        break;
      }
      case "restore": {
        // A record read back from its claim comment, at, below or above the store's generation.
        const token = mint();
        const generation = Math.max(1, (await currentGeneration(op.s)) + op.ahead);
        const { actor } = claimants[op.c]!;
        const record: ClaimRecord = {
          ...on(op.s),
          repo: "acme/widgets",
          generation,
          state: "active",
          actor,
          taskClass: "author",
          durations,
          claimedAt: now - op.silentMs,
          lastHeartbeatAt: now - op.silentMs,
          tokenDigest: digest(token),
          appAssigned: true,
          sync: "done",
        };
        const outcome = await both(`restore ${op.s}`, (stores) => stores.claims.restore(record, now));
        if (outcome === "restored") remember(op.s, generation, token);
        break;
      }
      case "tick":
        tick(op.ms);
        break;
    }
  }
}
