// The memory store's claim transitions (claim, commit, rollback), each a pure function of the subject's slot and the input.
// Their guards are checked in the order of the matching Lua script (src/providers/redis/lua/), named above each.
import type { ClaimRecord } from "../../domain/claim.js";
import { type FailedAttempt, failedAttemptOf, withAttempt } from "../../domain/failure-breaker.js";
import { aliveAt } from "../../domain/liveness.js";
import { decideStall, wasStalled } from "../../domain/stall.js";
import { newClaimRecord, rotatedTokensKept, takeoverIntentLifetimeFactor } from "../claim-records.js";
import type { ClaimInput, ClaimOutcome, CommitReclaimInput } from "../liveness-store.js";
import { clone, digestsEqual, provesSession, sameSession, without } from "./claim-rules.js";
import { nextIncarnation, type SubjectSlot, type Transitioned, withTransition } from "./subject-slots.js";

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
