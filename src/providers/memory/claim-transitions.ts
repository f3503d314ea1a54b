// The memory store's transitions made by an agent's calls, each a pure function of the subject's slot and the input.
// Their guards are checked in the order of the matching Lua script (src/providers/redis/lua/), named above each.
import type { ClaimRecord } from "../../domain/claim.js";
import {
  type FailedAttempt,
  failedAttemptOf,
  releaseFailure,
  withAttempt,
} from "../../domain/failure-breaker.js";
import { aliveAt } from "../../domain/liveness.js";
import { decideStall, decideStallAsk, wasStalled } from "../../domain/stall.js";
import { newClaimRecord, rotatedTokensKept, takeoverIntentLifetimeFactor } from "../claim-records.js";
import type {
  ClaimInput,
  ClaimOutcome,
  CommitReclaimInput,
  HeartbeatInput,
  HeartbeatLiveness,
  HeartbeatOk,
  HeartbeatOutcome,
  LeaseInput,
  ReleaseInput,
  ReleaseOutcomeResult,
  VerifyOutcome,
} from "../liveness-store.js";
import { clone, digestsEqual, goneReason, provesSession, sameSession, without } from "./claim-rules.js";
import { leaseRefusal, liveLeaseRefusal } from "./lease-refusals.js";
import { recordUsage } from "./memory-spend.js";
import {
  nextIncarnation,
  type SubjectSlot,
  type Transitioned,
  withHeartbeatGap,
  withTransition,
} from "./subject-slots.js";

/** A claim, with the claimant's live claims on other subjects (read from the indexes beforehand). */
export interface ClaimStep extends ClaimInput {
  live: { session: number; login: number };
}

// claim-14.lua
export function claim(slot: SubjectSlot, input: ClaimStep): Transitioned<ClaimOutcome> {
  const current = slot.record;
  if (current?.state === "human") return { slot, outcome: { kind: "human_held", current } };
  if (current?.state === "active") {
    const silent = input.now - aliveAt(current);
    const expired = silent >= current.durations.reclaimAfterMs;
    // Invariant 14: an unproven claimant naming the holder's (public) session id is just another session.
    let same = sameSession(current.actor, input.actor);
    if (same && !expired) same = provesSession(current, slot.digests.get(current.generation), input);
    if (same && !expired) return reclaim(slot, current, input);
    if (!expired) {
      const answer = contest(slot, current, input, silent);
      if (answer) return answer;
    } else if (!input.takeover && !same) {
      return { slot, outcome: { kind: "held", current } };
    }
  }
  const refusal = capRefusal(input);
  if (refusal) return { slot, outcome: refusal };
  // A live, stalled generation taken over counts as a failed attempt, in this same step.
  if (current && wasStalled(current, input.now)) {
    const failures = withAttempt(slot.failures ?? [], failedAttemptOf(current, "stalled", input.now));
    const counted = { ...slot, failures };
    const breaker = input.breaker;
    if (breaker && failures.length >= breaker.maxFailures && !breaker.override) {
      return tripOnTakeover(counted, current, input.now);
    }
    return create(counted, current, input, failures);
  }
  const count = slot.failures?.length ?? 0;
  if (input.breaker && !input.breaker.override && count >= input.breaker.maxFailures) {
    return { slot, outcome: { kind: "tripped", failures: count } };
  }
  return create(slot, current, input);
}

/**
 * The stalled takeover that trips the breaker without `override`: the stalled generation ends as a
 * reap (bumped; its lease answers gone, reaped) and no new one begins; the subject waits for a person.
 */
function tripOnTakeover(slot: SubjectSlot, previous: ClaimRecord, now: number): Transitioned<ClaimOutcome> {
  const highWater = Math.max(slot.highWater, previous.generation) + 1;
  const record: ClaimRecord = {
    ...without(previous, "takeover", "stallAsk"),
    state: "reaped",
    endedAt: now,
    sync: "pending",
    generation: highWater,
    supersedes: previous.generation,
  };
  const history = withTransition(slot.history, {
    at: now,
    generation: previous.generation,
    kind: "reaped",
    note: "stalled",
  });
  const failures = [...(slot.failures ?? [])];
  return {
    slot: { ...slot, record, highWater, activityAt: now, history },
    outcome: { kind: "failing", previous, record, failures },
  };
}

/** The proven holding session claims again: same generation, the new token pending until committed. */
function reclaim(slot: SubjectSlot, current: ClaimRecord, input: ClaimStep): Transitioned<ClaimOutcome> {
  const { now } = input;
  // The old token stays the lease's until commitReclaim: a failed GitHub write keeps it valid.
  const record: ClaimRecord = {
    ...without(current, "takeover", "staleMarkedAt"),
    pendingTokenDigest: input.tokenDigest,
    lastHeartbeatAt: now,
    sync: "pending",
    ...(input.sessionKeyDigest !== undefined ? { sessionKeyDigest: input.sessionKeyDigest } : {}),
  };
  const history = withTransition(slot.history, {
    at: now,
    generation: current.generation,
    kind: "reclaimed",
    actor: input.actor,
  });
  return { slot: { ...slot, record, activityAt: now, history }, outcome: { kind: "reclaimed", record } };
}

/** Another session claims an unexpired record: held, or a takeover intent; null when it may supersede. */
function contest(
  slot: SubjectSlot,
  current: ClaimRecord,
  input: ClaimStep,
  silent: number,
): Transitioned<ClaimOutcome> | null {
  const { now } = input;
  const intent = current.takeover;
  const intentAlive = intent !== undefined && now < intent.at + takeoverIntentLifetimeFactor * intent.graceMs;
  // A claim stalled with `onStall: reclaimable` may be taken over while its heartbeats go on.
  const live = silent < current.durations.ttlMs && !decideStall(current, now).takeoverAllowed;
  if (live || !input.takeover) {
    const pendingBy = intentAlive ? { takeoverPendingBy: intent.claimant } : {};
    return { slot, outcome: { kind: "held", current, ...pendingBy } };
  }
  // The intent is its claimant session's: naming that (public) session id is not enough when
  // the intent was made with a session key.
  const intentKeyDiffers =
    intent?.keyDigest !== undefined &&
    (input.sessionKeyDigest === undefined || !digestsEqual(intent.keyDigest, input.sessionKeyDigest));
  if (intentAlive && (!sameSession(intent.claimant, input.actor) || intentKeyDiffers)) {
    return { slot, outcome: { kind: "held", current, takeoverPendingBy: intent.claimant } };
  }
  if (intentAlive && now >= intent.at + intent.graceMs) return null;
  if (intentAlive) {
    return {
      slot,
      outcome: { kind: "takeover_pending", current, retryAfterMs: intent.at + intent.graceMs - now },
    };
  }
  const graceMs = current.durations.heartbeatMs;
  const record: ClaimRecord = {
    ...current,
    takeover: {
      claimant: clone(input.actor),
      at: now,
      graceMs,
      ...(input.sessionKeyDigest !== undefined ? { keyDigest: input.sessionKeyDigest } : {}),
    },
  };
  const history = withTransition(slot.history, {
    at: now,
    generation: current.generation,
    kind: "takeover-requested",
    actor: input.actor,
  });
  return {
    slot: { ...slot, record, activityAt: now, history },
    outcome: { kind: "takeover_pending", current: record, retryAfterMs: graceMs },
  };
}

/** An agent's refusal at its per-session or per-login cap of live claims (null while under both). */
function capRefusal(input: ClaimStep): ClaimOutcome | null {
  if (input.actor.kind !== "agent") return null;
  if (input.live.session >= input.caps.perSession) {
    return { kind: "cap_reached", limit: "session", max: input.caps.perSession };
  }
  if (input.live.login >= input.caps.perLogin) {
    return { kind: "cap_reached", limit: "login", max: input.caps.perLogin };
  }
  return null;
}

/** A new incarnation above every generation seen. */
function create(
  slot: SubjectSlot,
  current: ClaimRecord | null,
  input: ClaimStep,
  counted?: readonly FailedAttempt[],
): Transitioned<ClaimOutcome> {
  const { now } = input;
  const incarnation = nextIncarnation(slot, current, input);
  const { generation } = incarnation;
  let history = incarnation.history;
  // Cloned so the caller's input objects (actor, durations, scope) never alias the stored record.
  const { live: _, ...claimInput } = input;
  const record = clone(newClaimRecord(claimInput, generation, current));
  history = withTransition(history, { at: now, generation, kind: "claimed", actor: input.actor });
  return {
    slot: {
      ...slot,
      record,
      highWater: generation,
      digests: new Map(slot.digests).set(generation, input.tokenDigest),
      activityAt: now,
      history,
    },
    outcome: {
      kind: "created",
      record,
      previous: current,
      ...(counted ? { failures: [...counted] } : {}),
    },
  };
}

// commitReclaim-2.lua
export function commitReclaim(
  slot: SubjectSlot,
  input: CommitReclaimInput,
): Transitioned<ClaimRecord | null> {
  const current = slot.record;
  if (
    !current ||
    current.generation !== input.generation ||
    current.state !== "active" ||
    current.pendingTokenDigest === undefined ||
    !digestsEqual(current.pendingTokenDigest, input.tokenDigest)
  ) {
    return { slot, outcome: null };
  }
  let rotated = slot.rotated;
  const old = slot.digests.get(input.generation);
  if (old !== undefined) {
    const entries = [...(rotated.get(input.generation) ?? []), { digest: old, at: input.now }];
    rotated = new Map(rotated).set(input.generation, entries.slice(-rotatedTokensKept));
  }
  const record: ClaimRecord = {
    ...without(current, "pendingTokenDigest"),
    tokenDigest: input.tokenDigest,
    sync: "done",
    ...(input.comment ? { commentNodeId: input.comment.commentNodeId } : {}),
    ...(input.comment?.commentId !== undefined ? { commentId: input.comment.commentId } : {}),
  };
  const digests = new Map(slot.digests).set(input.generation, input.tokenDigest);
  return { slot: { ...slot, record, digests, rotated }, outcome: record };
}

// commitClaim-1.lua
export function commitClaim(
  slot: SubjectSlot,
  input: { generation: number; comment: { commentNodeId: string; commentId?: number } },
): Transitioned<void> {
  const current = slot.record;
  if (!current || current.generation !== input.generation) return { slot, outcome: undefined };
  const record: ClaimRecord = {
    ...current,
    commentNodeId: input.comment.commentNodeId,
    sync: "done",
    ...(input.comment.commentId !== undefined ? { commentId: input.comment.commentId } : {}),
  };
  return { slot: { ...slot, record }, outcome: undefined };
}

// rollbackClaim-8.lua
export function rollbackClaim(
  slot: SubjectSlot,
  input: { generation: number; previous: ClaimRecord | null; now: number },
): Transitioned<void> {
  const current = slot.record;
  if (!current || current.generation !== input.generation || current.sync !== "pending") {
    return { slot, outcome: undefined };
  }
  const { activityAt: _, ...rest } = slot;
  const history = withTransition(slot.history, {
    at: input.now,
    generation: current.generation,
    kind: "rolled-back",
  });
  const next: SubjectSlot = input.previous
    ? {
        ...rest,
        record: clone(input.previous),
        activityAt: input.now,
        history,
        ...unpushStalled(rest.failures, input.previous.generation),
      }
    : { ...rest, record: null, history };
  return { slot: next, outcome: undefined };
}

/** The claim counted the stalled generation it took over (claim-14.lua); put back, it has not failed. */
function unpushStalled(failures: SubjectSlot["failures"], generation: number): Pick<SubjectSlot, "failures"> {
  const last = failures?.at(-1);
  if (!failures || last?.reason !== "stalled" || last.generation !== generation) return {};
  return { failures: failures.slice(0, -1) };
}

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
