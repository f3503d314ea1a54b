// The memory store's transitions on a held lease (heartbeat, verify, release), each a pure function of the subject's slot and the input.
// Their guards are checked in the order of the matching Lua script (src/providers/redis/lua/), named above each.
import type { ClaimRecord } from "../../domain/claim.js";
import { failedAttemptOf, releaseFailure, withAttempt } from "../../domain/failure-breaker.js";
import { decideStall, decideStallAsk } from "../../domain/stall.js";
import type {
  HeartbeatInput,
  HeartbeatLiveness,
  HeartbeatOk,
  HeartbeatOutcome,
  LeaseInput,
  ReleaseInput,
  ReleaseOutcomeResult,
  VerifyOutcome,
} from "../liveness-store.js";
import { clone, goneReason, without } from "./claim-rules.js";
import { leaseRefusal, liveLeaseRefusal } from "./lease-refusals.js";
import { recordUsage } from "./memory-spend.js";
import { type SubjectSlot, type Transitioned, withHeartbeatGap, withTransition } from "./subject-slots.js";

// heartbeat-7.lua
export function heartbeat(slot: SubjectSlot, input: HeartbeatInput): Transitioned<HeartbeatOutcome> {
  const refusal = liveLeaseRefusal(slot, input);
  if (refusal) return { slot, outcome: refusal };
  const current = slot.record!;
  // The usage is checked (and a decrease refused) before anything changes.
  const usage = input.usage ? recordUsage(slot.spend, current.generation, input.usage) : undefined;
  if (usage && "kind" in usage) return { slot, outcome: usage };
  const needsHumanBefore = current.needsHuman === true;
  let editComment = current.staleMarkedAt !== undefined;
  const changes: Partial<ClaimRecord> = { lastHeartbeatAt: input.now };
  if (input.needsHuman) changes.needsHuman = true;
  if (input.phase !== undefined && input.phase !== current.phase) {
    changes.phase = input.phase;
    // The first phase change always edits, whatever the clock's origin.
    if (
      current.phaseCommentAt === undefined ||
      input.now - current.phaseCommentAt >= input.phaseEditEveryMs
    ) {
      changes.phaseCommentAt = input.now;
      editComment = true;
    }
  }
  if (input.blocker !== undefined) changes.blocker = input.blocker;
  if (input.waitUntil !== undefined) changes.waitUntil = input.waitUntil;
  if (input.pullRequest !== undefined) changes.pullRequest = input.pullRequest;
  if (input.durations) changes.durations = clone(input.durations);
  // A phase change or a spend increase is progress (a push is recordPush's).
  if (changes.phase !== undefined || (usage && usage.report.afterMicros > usage.report.beforeMicros)) {
    changes.progressAt = input.now;
  }
  const stall = decideStall({ ...without(current, "needsHuman"), ...changes }, input.now);
  if (stall.notify) changes.stalledAt = input.now;
  // The App's ask on the stall's behalf: made with the stalled mark, withdrawn by progress or the holder's own ask.
  const progressed = changes.progressAt !== undefined;
  const ask = stall.notify
    ? decideStallAsk({
        onStall: current.onStall,
        asks: current.stallAsk === true,
        holderAsks: false,
        event: "stalled",
      })
    : progressed || input.needsHuman
      ? decideStallAsk({
          onStall: current.onStall,
          asks: current.stallAsk === true,
          holderAsks: input.needsHuman === true,
          event: progressed ? "progress" : "holder-asks",
        })
      : null;
  const stallAskChange =
    ask === null || ask.asks === (current.stallAsk === true) ? undefined : ask.asks ? "asked" : "withdrawn";
  if (stallAskChange === "asked") changes.stallAsk = true;
  // A heartbeat that does not ask for a person withdraws an earlier ask; a takeover intent on a
  // claim stalled with `onStall: reclaimable` stays, its heartbeats notwithstanding.
  const cleared = without(
    current,
    "staleMarkedAt",
    ...(stall.takeoverAllowed ? [] : ["takeover" as const]),
    ...(input.needsHuman ? [] : ["needsHuman" as const]),
    ...(stallAskChange === "withdrawn" ? ["stallAsk" as const] : []),
  );
  const record: ClaimRecord = { ...cleared, ...changes };
  // The liveness as written; the whole record only when asked, or for the comment's edit.
  const live: HeartbeatLiveness = { lastHeartbeatAt: record.lastHeartbeatAt, durations: record.durations };
  if (record.waitUntil !== undefined) live.waitUntil = record.waitUntil;
  if (record.needsHuman === true) live.needsHuman = true;
  if (record.budgetPaused === true) live.budgetPaused = true;
  if (record.stallAsk === true) live.stallAsk = true;
  const answered: HeartbeatOk = editComment
    ? { kind: "ok", live, editComment, record }
    : input.wantRecord || stall.notify
      ? { kind: "ok", live, editComment, record }
      : { kind: "ok", live, editComment };
  if (needsHumanBefore) answered.needsHumanBefore = true;
  if (usage) answered.spend = usage.report;
  if (stall.stalledSince !== null) answered.stalledSince = stall.stalledSince;
  if (stall.notify) answered.stalledNow = true;
  const heartbeatGaps = withHeartbeatGap(
    slot.heartbeatGaps,
    current.generation,
    input.now - current.lastHeartbeatAt,
  );
  if (stallAskChange) answered.stallAskChange = stallAskChange;
  return {
    slot: {
      ...slot,
      record,
      activityAt: input.now,
      ...(usage ? { spend: usage.spend } : {}),
      ...(heartbeatGaps ? { heartbeatGaps } : {}),
    },
    outcome: answered,
  };
}

// verify-2.lua
export function verify(slot: SubjectSlot, input: LeaseInput): Transitioned<VerifyOutcome> {
  const refusal = liveLeaseRefusal(slot, input);
  if (refusal) return { slot, outcome: refusal };
  return { slot, outcome: { kind: "ok", record: slot.record! } };
}

// release-7.lua
export function release(slot: SubjectSlot, input: ReleaseInput): Transitioned<ReleaseOutcomeResult> {
  const refusal = leaseRefusal(slot, input);
  if (refusal) return { slot, outcome: refusal };
  const current = slot.record!;
  if (current.state === "released" || current.state === "completed") {
    return { slot, outcome: { kind: "released", record: current, repeated: true } };
  }
  if (current.state !== "active") {
    return { slot, outcome: { kind: "gone", reason: goneReason(current), current } };
  }
  const state = input.outcome === "completed" ? "completed" : "released";
  // An ended record returns to the shape release 0.1.0 reads: the App's ask on a stall ends with the lease.
  const stallAsked = current.stallAsk === true ? { stallAsked: true as const } : {};
  const record: ClaimRecord = {
    ...without(current, "takeover", "stallAsk"),
    state,
    outcome: input.outcome,
    endedAt: input.now,
    endedBy: current.actor,
    sync: "pending",
  };
  const history = withTransition(slot.history, {
    at: input.now,
    generation: current.generation,
    kind: state,
    actor: current.actor,
    note: input.outcome,
  });
  const failure = releaseFailure(input.outcome);
  if (!failure) {
    // Work completed ends the run of failures: the breaker counts failures since the last success.
    const { failures: _, ...withoutFailures } = slot;
    const kept =
      input.outcome !== "completed" && slot.failures?.length ? { failures: [...slot.failures] } : {};
    return {
      slot: {
        ...(input.outcome === "completed" ? withoutFailures : slot),
        record,
        activityAt: input.now,
        history,
      },
      outcome: { kind: "released", record, repeated: false, ...kept, ...stallAsked },
    };
  }
  const failures = withAttempt(slot.failures ?? [], failedAttemptOf(current, failure, input.now, input.note));
  return {
    slot: { ...slot, record, activityAt: input.now, history, failures },
    outcome: { kind: "released", record, repeated: false, failures, ...stallAsked },
  };
}

// markSynced-1.lua
export function markSynced(slot: SubjectSlot, input: { generation: number }): Transitioned<void> {
  const current = slot.record;
  if (!current || current.generation !== input.generation) return { slot, outcome: undefined };
  return { slot: { ...slot, record: { ...current, sync: "done" } }, outcome: undefined };
}

// restore-9.lua
export function restore(
  slot: SubjectSlot,
  input: { record: ClaimRecord; now: number },
): Transitioned<"restored" | "exists"> {
  const restored = input.record;
  const { generation, tokenDigest } = restored;
  const highWater = Math.max(slot.highWater, generation);
  // The restored generation's token stays recognisable even when a newer record is kept,
  // so an old holder is told "superseded" rather than "unauthorized".
  let digests = slot.digests;
  if (tokenDigest && !digests.has(generation)) digests = new Map(digests).set(generation, tokenDigest);
  if (slot.record && slot.record.generation >= generation) {
    return { slot: { ...slot, highWater, digests }, outcome: "exists" };
  }
  if (tokenDigest) digests = new Map(digests).set(generation, tokenDigest);
  const history = withTransition(slot.history, {
    at: input.now,
    generation,
    kind: "restored",
    actor: restored.actor,
  });
  return {
    slot: { ...slot, record: clone(restored), highWater, digests, activityAt: input.now, history },
    outcome: "restored",
  };
}
