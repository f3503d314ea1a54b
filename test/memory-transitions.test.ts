// The memory store's transitions are pure: over random sequences, no step changes the slot it was given, and the same step answers the same.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Actor } from "../src/domain/claim.js";
import * as app from "../src/providers/memory/app-transitions.js";
import * as lease from "../src/providers/memory/claim-transitions.js";
import * as held from "../src/providers/memory/lease-transitions.js";
import { emptySlot, type SubjectSlot, type Transitioned } from "../src/providers/memory/subject-slots.js";

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const key = { installationId: 7, repoId: 1001, issue: 1 };
const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const actors: Actor[] = [
  { kind: "agent", login: "alice", runtime: "claude-code", sessionId: "s1" },
  { kind: "agent", login: "bob", runtime: "claude-code", sessionId: "s2" },
  { kind: "human", login: "carol" },
];

const step = fc.record({
  t: fc.constantFrom(
    "claim",
    "commitReclaim",
    "commitClaim",
    "rollbackClaim",
    "heartbeat",
    "verify",
    "release",
    "markSynced",
    "restore",
    "endClaim",
    "markStale",
    "humanClaim",
    "recordPush",
    "forget",
    "markBudgetExhausted",
    "markBudgetWarned",
  ),
  a: fc.nat(actors.length - 1),
  token: fc.nat(3),
  flag: fc.boolean(),
  ms: fc.integer({ min: 0, max: 40 * minute }),
});

/** The transition a step makes from `slot` at `now`, with tokens `t<n>`. */
function transition(slot: SubjectSlot, op: Step, now: number): Transitioned<unknown> {
  const generation = slot.record?.generation ?? 1;
  const tokenDigest = digest(`t${op.token}`);
  const leaseInput = { key, generation, tokenDigest, now };
  const actor = actors[op.a]!;
  switch (op.t) {
    case "claim":
      return lease.claim(slot, {
        key,
        repo: "acme/widgets",
        actor,
        taskClass: "author",
        durations,
        tokenDigest,
        leaseTokenDigest: digest(`t${(op.token + 1) % 4}`),
        takeover: op.flag,
        now,
        minGeneration: 0,
        appAssigned: true,
        caps: { perSession: 5, perLogin: 5 },
        live: { session: 0, login: op.flag ? 0 : 5 },
      });
    case "commitReclaim":
      return lease.commitReclaim(slot, { ...leaseInput, comment: { commentNodeId: "IC_1", commentId: 1 } });
    case "commitClaim":
      return lease.commitClaim(slot, { generation, comment: { commentNodeId: "IC_2" } });
    case "rollbackClaim":
      return lease.rollbackClaim(slot, { generation, previous: op.flag ? null : slot.record, now });
    case "heartbeat":
      return held.heartbeat(slot, {
        ...leaseInput,
        phaseEditEveryMs: 10 * minute,
        phase: op.flag ? "testing" : "coding",
        waitUntil: now + op.ms,
        needsHuman: op.flag,
        usage: { costMicros: op.ms, tokens: op.token },
        durations,
      });
    case "verify":
      return held.verify(slot, leaseInput);
    case "release":
      return held.release(slot, { ...leaseInput, outcome: op.flag ? "completed" : "handoff" });
    case "markSynced":
      return held.markSynced(slot, { generation });
    case "restore":
      return held.restore(slot, {
        record: {
          ...key,
          repo: "acme/widgets",
          generation: generation + (op.flag ? 1 : 0),
          state: "active",
          actor,
          taskClass: "author",
          durations,
          claimedAt: now - op.ms,
          lastHeartbeatAt: now - op.ms,
          tokenDigest,
          appAssigned: true,
          sync: "done",
        },
        now,
      });
    case "endClaim":
      return app.endClaim(slot, {
        key,
        generation,
        now,
        to: "revoked",
        bump: op.flag,
        by: actors[2]!,
        requireSilentMs: op.ms,
        storeEpoch: 0,
      });
    case "markStale":
      return app.markStale(slot, { key, generation, now, requireSilentMs: op.ms, storeEpoch: 0 });
    case "humanClaim":
      return app.humanClaim(slot, {
        key,
        repo: "acme/widgets",
        actor: actors[2]!,
        now,
        minGeneration: 0,
        release: op.flag,
        appAssigned: false,
      });
    case "recordPush":
      return app.recordPush(slot, { generation, at: now - op.ms });
    case "forget":
      return app.forget(slot, { now });
    case "markBudgetExhausted":
      return app.markBudgetExhausted(slot, { generation });
    case "markBudgetWarned":
      return app.markBudgetWarned(slot);
  }
}
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

describe("the memory store's transitions", () => {
  it("never change the slot they are given, and answer the same from the same slot", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        let slot = emptySlot;
        let now = T0;
        for (const op of steps) {
          const before = structuredClone(slot);
          const first: Transitioned<unknown> = transition(slot, op, now);
          expect(slot).toEqual(before);
          expect(transition(slot, op, now)).toEqual(first);
          slot = first.slot;
          now += op.ms;
        }
      }),
      { seed: 20_261_202, numRuns: 300 },
    );
  });
});
