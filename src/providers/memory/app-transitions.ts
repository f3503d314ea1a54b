// The memory store's transitions made by the App itself (janitor, webhooks, /reclaim), each a pure function of the subject's slot and the input.
// Their guards are checked in the order of the matching Lua script (src/providers/redis/lua/), named above each.
import type { ClaimRecord } from "../../domain/claim.js";
import { failedAttemptOf, withAttempt } from "../../domain/failure-breaker.js";
import { aliveAt } from "../../domain/liveness.js";
import { asksForPerson } from "../../domain/stall.js";
import type {
  ClearNeedsHumanInput,
  ClearNeedsHumanOutcome,
  EndClaimInput,
  EndClaimOutcome,
  HumanClaimInput,
  MarkStaleInput,
  MarkStaleOutcome,
} from "../app-transition-types.js";
import { newHumanRecord } from "../claim-records.js";
import { clone, endGuard, forgottenRecord, stillLive, without } from "./claim-rules.js";
import { noSpend } from "./memory-spend.js";
import { nextIncarnation, type SubjectSlot, type Transitioned, withTransition } from "./subject-slots.js";

// endClaim-7.lua: ends an active claim without its token (revoke, reap, completion); see `ClaimStore.endClaim`.
export function endClaim(slot: SubjectSlot, input: EndClaimInput): Transitioned<EndClaimOutcome> {
  const current = slot.record;
  let reason: "missing" | "moved-on" | "not-active" | "live" | null = endGuard(current, input.generation);
  if (!reason && stillLive(current!, input)) reason = "live";
  if (reason) return { slot, outcome: { kind: "skipped", reason, current } };
  const previous = current!;
  // An ended record returns to the shape release 0.1.0 reads: the App's ask on a stall ends with the claim.
  let record: ClaimRecord = {
    ...without(previous, "takeover", "stallAsk"),
    state: input.to,
    endedAt: input.now,
    sync: "pending",
    ...(input.by ? { endedBy: clone(input.by) } : {}),
  };
  let highWater = slot.highWater;
  if (input.bump) {
    // Above the high-water mark, so a generation burnt by a rolled-back claim is never reused.
    highWater = Math.max(slot.highWater, previous.generation) + 1;
    record = { ...record, generation: highWater, supersedes: previous.generation };
  }
  const history = withTransition(slot.history, {
    at: input.now,
    generation: previous.generation,
    kind: input.to,
    ...(input.by ? { actor: input.by } : {}),
  });
  if (!input.failure) {
    const kept = slot.failures?.length ? { failures: [...slot.failures] } : {};
    return {
      slot: { ...slot, record, highWater, activityAt: input.now, history },
      outcome: { kind: "ended", previous, record, ...kept },
    };
  }
  const failures = withAttempt(slot.failures ?? [], failedAttemptOf(previous, input.failure, input.now));
  return {
    slot: { ...slot, record, highWater, activityAt: input.now, history, failures },
    outcome: { kind: "ended", previous, record, failures },
  };
}

// clearNeedsHuman-2.lua: an operator withdraws the holder's ask and resets the failure breaker; see `ClaimStore.clearNeedsHuman`.
export function clearNeedsHuman(
  slot: SubjectSlot,
  input: ClearNeedsHumanInput,
): Transitioned<ClearNeedsHumanOutcome> {
  const current = slot.record;
  if (!current) return { slot, outcome: { kind: "skipped", reason: "missing", current } };
  if (current.generation !== input.generation)
    return { slot, outcome: { kind: "skipped", reason: "moved-on", current } };
  const asks = asksForPerson(current);
  const failuresCleared = slot.failures?.length ?? 0;
  if (!asks && failuresCleared === 0)
    return { slot, outcome: { kind: "skipped", reason: "nothing", current } };
  const record = asks
    ? {
        ...without(current, "needsHuman", "stallAsk"),
        progressAt: Math.max(current.progressAt ?? 0, input.now),
      }
    : current;
  const { failures: _, ...rest } = slot;
  return {
    slot: { ...rest, record },
    outcome: { kind: "cleared", record, withdrewAsk: asks, failuresCleared },
  };
}

// markStale-3.lua
export function markStale(slot: SubjectSlot, input: MarkStaleInput): Transitioned<MarkStaleOutcome> {
  const current = slot.record;
  let reason: "missing" | "moved-on" | "not-active" | "live" | "already-marked" | null = endGuard(
    current,
    input.generation,
  );
  if (!reason && current!.staleMarkedAt !== undefined) reason = "already-marked";
  if (!reason && stillLive(current!, input)) reason = "live";
  if (reason) return { slot, outcome: { kind: "skipped", reason, current } };
  const record: ClaimRecord = { ...current!, staleMarkedAt: input.now };
  return { slot: { ...slot, record, activityAt: input.now }, outcome: { kind: "marked", record } };
}

// humanClaim-6.lua
export function humanClaim(
  slot: SubjectSlot,
  input: HumanClaimInput,
): Transitioned<{ record: ClaimRecord; previous: ClaimRecord | null }> {
  const current = slot.record;
  const { now } = input;
  const incarnation = nextIncarnation(slot, current, input);
  const { generation } = incarnation;
  let history = incarnation.history;
  const record = clone(newHumanRecord(input, generation, current));
  history = withTransition(
    history,
    input.release
      ? { at: now, generation, kind: "released", actor: input.actor, note: "abandoned" }
      : { at: now, generation, kind: "claimed", actor: input.actor },
  );
  return {
    slot: { ...slot, record, highWater: generation, activityAt: now, history },
    outcome: { record, previous: current },
  };
}

// recordPush-1.lua: an older push never overwrites a newer one; a push ends a stall's takeover intent and the App's ask on its behalf.
export function recordPush(
  slot: SubjectSlot,
  input: { generation: number; at: number },
): Transitioned<{ stallAskWithdrawn: boolean }> {
  const current = slot.record;
  const nothing = { stallAskWithdrawn: false };
  if (!current || current.generation !== input.generation || current.state !== "active") {
    return { slot, outcome: nothing };
  }
  if (current.lastPushAt !== undefined && current.lastPushAt >= input.at) return { slot, outcome: nothing };
  // An intent on a holder that still heartbeats stood only by the stall this push ends.
  const heartbeating = input.at - aliveAt(current) < current.durations.ttlMs;
  const record: ClaimRecord = without(current, "stallAsk", ...(heartbeating ? ["takeover" as const] : []));
  record.lastPushAt = input.at;
  return { slot: { ...slot, record }, outcome: { stallAskWithdrawn: current.stallAsk === true } };
}

// withdrawStallAsk-1.lua: a person answered the App's ask on a stalled claim's behalf.
export function withdrawStallAsk(slot: SubjectSlot, input: { generation: number }): Transitioned<boolean> {
  const current = slot.record;
  if (current?.generation !== input.generation || current.state !== "active" || !current.stallAsk) {
    return { slot, outcome: false };
  }
  return { slot: { ...slot, record: without(current, "stallAsk") }, outcome: true };
}

// forget-5.lua: out of every index (the store drops the record's), and a record revoked but kept.
export function forget(slot: SubjectSlot, input: { now: number }): Transitioned<ClaimRecord | null> {
  const { activityAt: _, ...unlisted } = slot;
  const current = slot.record;
  if (!current || current.state === "revoked") return { slot: unlisted, outcome: null };
  const history = withTransition(slot.history, {
    at: input.now,
    generation: current.generation,
    kind: "revoked",
    note: "forgotten",
  });
  return {
    slot: { ...unlisted, record: forgottenRecord(current, input.now), history },
    outcome: current,
  };
}

// markBudgetExhausted-1.lua
export function markBudgetExhausted(slot: SubjectSlot, input: { generation: number }): Transitioned<void> {
  const current = slot.record;
  if (!current || current.generation !== input.generation || current.state === "active") {
    return { slot, outcome: undefined };
  }
  return { slot: { ...slot, record: { ...current, budgetExhausted: true } }, outcome: undefined };
}

// markBudgetPaused-1.lua
export function markBudgetPaused(slot: SubjectSlot, input: { generation: number }): Transitioned<boolean> {
  const current = slot.record;
  if (
    !current ||
    current.generation !== input.generation ||
    current.state !== "active" ||
    current.budgetPaused
  ) {
    return { slot, outcome: false };
  }
  return { slot: { ...slot, record: { ...current, budgetPaused: true } }, outcome: true };
}

/** Lifts a budget pause (HDEL on the record): true when there was one. */
export function clearBudgetPaused(slot: SubjectSlot): Transitioned<boolean> {
  const current = slot.record;
  if (!current?.budgetPaused) return { slot, outcome: false };
  const { budgetPaused: _, ...rest } = current;
  return { slot: { ...slot, record: rest }, outcome: true };
}

/** The subject's own limit (HSET on its spend hash). */
export function setBudgetLimit(slot: SubjectSlot, input: { micros: number }): Transitioned<void> {
  return {
    slot: { ...slot, spend: { ...(slot.spend ?? noSpend), limitMicros: input.micros } },
    outcome: undefined,
  };
}

/** The subject's once-only budget-warn mark (HSETNX on its spend hash): true when this call set it. */
export function markBudgetWarned(slot: SubjectSlot): Transitioned<boolean> {
  const spend = slot.spend ?? noSpend;
  if (spend.warned) return { slot, outcome: false };
  return { slot: { ...slot, spend: { ...spend, warned: true } }, outcome: true };
}
