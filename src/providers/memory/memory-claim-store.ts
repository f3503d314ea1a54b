// The embedded single-process ClaimStore: the reference semantics the Redis scripts reproduce.
// Hand-written rather than the Lua scripts on ioredis-mock: its Lua (fengari, 5.3) has no cjson or bit
// and 32-bit integers, so millisecond timestamps fail string.format('%d') and print as "…1.0".
import type { ClaimRecord, SubjectKey, Transition } from "../../domain/claim.js";
import { aliveAt } from "../../lease/liveness.js";
import { newClaimRecord, rotatedTokensKept, takeoverIntentLifetimeFactor } from "../claim-records.js";
import type {
  ClaimInput,
  ClaimOutcome,
  ClaimStore,
  CommitReclaimInput,
  EndClaimInput,
  EndClaimOutcome,
  HeartbeatInput,
  HeartbeatOutcome,
  HumanClaimInput,
  LeaseInput,
  MarkStaleInput,
  MarkStaleOutcome,
  ReleaseInput,
  ReleaseOutcomeResult,
  VerifyOutcome,
} from "../liveness-store.js";
import * as appTransitions from "./app-transitions.js";
import { clone, digestsEqual, goneReason, provesSession, sameSession } from "./claim-rules.js";
import { leaseRefusal, liveLeaseRefusal } from "./lease-refusals.js";
import { recordUsage } from "./memory-spend.js";
import { type SubjectSlot, SubjectSlots } from "./subject-slots.js";

/** The claim transitions and reads of one subject; `MemoryLivenessStore` adds the indexes and bookkeeping. */
export class MemoryClaimStore implements ClaimStore {
  protected readonly slots = new SubjectSlots();
  protected readonly epochs = new Map<number, number>();

  async claim(input: ClaimInput): Promise<ClaimOutcome> {
    const slot = this.slots.slot(input.key);
    const current = slot.record;
    if (current?.state === "human") return { kind: "human_held", current: clone(current) };
    if (current?.state === "active") {
      const contested = this.#contest(slot, current, input);
      if (contested) return contested;
    }
    return this.#create(slot, current, input);
  }

  /** A claim on an active record: re-claimed, held or a takeover intent; null when it may be superseded. */
  #contest(slot: SubjectSlot, current: ClaimRecord, input: ClaimInput): ClaimOutcome | null {
    const { now } = input;
    const silent = now - aliveAt(current);
    const expired = silent >= current.durations.reclaimAfterMs;
    // An unproven claimant naming the holder's (public) session id is just another session.
    const same =
      sameSession(current.actor, input.actor) &&
      (expired || provesSession(current, slot.digests.get(current.generation), input));
    if (same && !expired) return this.#reclaim(slot, current, input);
    if (expired) return !input.takeover && !same ? { kind: "held", current: clone(current) } : null;
    const intent = current.takeover;
    const intentAlive = intent && now < intent.at + takeoverIntentLifetimeFactor * intent.graceMs;
    if (silent < current.durations.ttlMs || !input.takeover) {
      return {
        kind: "held",
        current: clone(current),
        ...(intentAlive ? { takeoverPendingBy: intent.claimant } : {}),
      };
    }
    // The intent is its claimant session's: naming that (public) session id is not enough when
    // the intent was made with a session key.
    const keyDiffers =
      intent?.keyDigest !== undefined &&
      (input.sessionKeyDigest === undefined || !digestsEqual(intent.keyDigest, input.sessionKeyDigest));
    if (intent && intentAlive && (!sameSession(intent.claimant, input.actor) || keyDiffers)) {
      return { kind: "held", current: clone(current), takeoverPendingBy: intent.claimant };
    }
    if (intent && intentAlive && now >= intent.at + intent.graceMs) return null;
    if (!intent || !intentAlive) {
      current.takeover = {
        claimant: clone(input.actor),
        at: now,
        graceMs: current.durations.heartbeatMs,
        ...(input.sessionKeyDigest !== undefined ? { keyDigest: input.sessionKeyDigest } : {}),
      };
      slot.activityAt = now;
      this.slots.recordTransition(slot, {
        at: now,
        generation: current.generation,
        kind: "takeover-requested",
        actor: input.actor,
      });
    }
    const pending = current.takeover!;
    return {
      kind: "takeover_pending",
      current: clone(current),
      retryAfterMs: pending.at + pending.graceMs - now,
    };
  }

  /** The holding session, proven, claims again: same generation, the new token pending until committed. */
  #reclaim(slot: SubjectSlot, current: ClaimRecord, input: ClaimInput): ClaimOutcome {
    const { now } = input;
    // The old token stays the lease's until commitReclaim: a failed GitHub write keeps it valid.
    current.pendingTokenDigest = input.tokenDigest;
    if (input.sessionKeyDigest !== undefined) current.sessionKeyDigest = input.sessionKeyDigest;
    current.lastHeartbeatAt = now;
    delete current.takeover;
    delete current.staleMarkedAt;
    current.sync = "pending";
    this.slots.setDeadline(current);
    slot.activityAt = now;
    this.slots.recordTransition(slot, {
      at: now,
      generation: current.generation,
      kind: "reclaimed",
      actor: input.actor,
    });
    return { kind: "reclaimed", record: clone(current) };
  }

  /** A new incarnation above every generation seen, unless the claimant's caps are reached. */
  #create(slot: SubjectSlot, current: ClaimRecord | null, input: ClaimInput): ClaimOutcome {
    const { now } = input;
    const live = this.slots.liveClaimsOf(input, input.key);
    if (input.actor.kind === "agent" && live.session >= input.caps.perSession) {
      return { kind: "cap_reached", limit: "session", max: input.caps.perSession };
    }
    if (input.actor.kind === "agent" && live.login >= input.caps.perLogin) {
      return { kind: "cap_reached", limit: "login", max: input.caps.perLogin };
    }
    const generation = Math.max(slot.highWater, current?.generation ?? 0, input.minGeneration) + 1;
    slot.highWater = generation;
    const previous = current ? clone(current) : null;
    if (current?.state === "active") {
      this.slots.recordTransition(slot, {
        at: now,
        generation: current.generation,
        kind: "superseded",
        actor: input.actor,
      });
    }
    // Cloned so the caller's input objects (actor, durations, scope) never alias the stored record.
    const record = clone(newClaimRecord(input, generation, current));
    slot.record = record;
    slot.digests.set(generation, input.tokenDigest);
    this.slots.setDeadline(record);
    slot.activityAt = now;
    this.slots.recordTransition(slot, { at: now, generation, kind: "claimed", actor: input.actor });
    return { kind: "created", record: clone(record), previous };
  }

  async commitReclaim(input: CommitReclaimInput): Promise<ClaimRecord | null> {
    const slot = this.slots.slot(input.key);
    const record = slot.record;
    if (
      !record ||
      record.generation !== input.generation ||
      record.state !== "active" ||
      record.pendingTokenDigest === undefined ||
      !digestsEqual(record.pendingTokenDigest, input.tokenDigest)
    ) {
      return null;
    }
    const old = slot.digests.get(input.generation);
    if (old !== undefined) {
      const rotated = [...(slot.rotated.get(input.generation) ?? []), { digest: old, at: input.now }];
      slot.rotated.set(input.generation, rotated.slice(-rotatedTokensKept));
    }
    slot.digests.set(input.generation, input.tokenDigest);
    record.tokenDigest = input.tokenDigest;
    delete record.pendingTokenDigest;
    if (input.comment) {
      record.commentNodeId = input.comment.commentNodeId;
      if (input.comment.commentId !== undefined) record.commentId = input.comment.commentId;
    }
    record.sync = "done";
    return clone(record);
  }

  async commitClaim(
    key: SubjectKey,
    generation: number,
    comment: { commentNodeId: string; commentId?: number },
  ): Promise<void> {
    const record = this.slots.slot(key).record;
    if (!record || record.generation !== generation) return;
    record.commentNodeId = comment.commentNodeId;
    if (comment.commentId !== undefined) record.commentId = comment.commentId;
    record.sync = "done";
  }

  async rollbackClaim(
    key: SubjectKey,
    generation: number,
    previous: ClaimRecord | null,
    now: number,
  ): Promise<void> {
    const slot = this.slots.slot(key);
    if (!slot.record || slot.record.generation !== generation || slot.record.sync !== "pending") return;
    slot.record = previous ? clone(previous) : null;
    if (previous) {
      this.slots.setDeadline(previous);
      slot.activityAt = now;
    } else {
      this.slots.dropDeadline(key);
      delete slot.activityAt;
    }
    this.slots.recordTransition(slot, { at: now, generation, kind: "rolled-back" });
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    const slot = this.slots.slot(input.key);
    const refusal = liveLeaseRefusal(slot, input);
    if (refusal) return refusal;
    const record = slot.record!;
    // The usage check comes before any change, so a refused report leaves the lease as it was.
    const spend = input.usage ? recordUsage(slot, record.generation, input.usage) : undefined;
    if (spend && "kind" in spend) return spend;
    const needsHumanBefore = record.needsHuman === true;
    if (input.needsHuman) record.needsHuman = true;
    else delete record.needsHuman;
    let editComment = false;
    if (record.staleMarkedAt !== undefined) {
      delete record.staleMarkedAt;
      editComment = true;
    }
    if (input.phase !== undefined && input.phase !== record.phase) {
      record.phase = input.phase;
      // The first phase change always edits, whatever the clock's origin.
      if (
        record.phaseCommentAt === undefined ||
        input.now - record.phaseCommentAt >= input.phaseEditEveryMs
      ) {
        record.phaseCommentAt = input.now;
        editComment = true;
      }
    }
    if (input.blocker !== undefined) record.blocker = input.blocker;
    if (input.waitUntil !== undefined) record.waitUntil = input.waitUntil;
    if (input.pullRequest !== undefined) record.pullRequest = input.pullRequest;
    if (input.durations) record.durations = clone(input.durations);
    record.lastHeartbeatAt = input.now;
    delete record.takeover;
    this.slots.setDeadline(record);
    slot.activityAt = input.now;
    return {
      kind: "ok",
      record: clone(record),
      editComment,
      ...(needsHumanBefore ? { needsHumanBefore } : {}),
      ...(spend ? { spend } : {}),
    };
  }

  async verify(input: LeaseInput): Promise<VerifyOutcome> {
    const slot = this.slots.slot(input.key);
    const refusal = liveLeaseRefusal(slot, input);
    if (refusal) return refusal;
    const record = slot.record!;
    return { kind: "ok", record: clone(record) };
  }

  async release(input: ReleaseInput): Promise<ReleaseOutcomeResult> {
    const slot = this.slots.slot(input.key);
    const refusal = leaseRefusal(slot, input);
    if (refusal) return refusal;
    const record = slot.record!;
    if (record.state === "released" || record.state === "completed") {
      return { kind: "released", record: clone(record), repeated: true };
    }
    if (record.state !== "active")
      return { kind: "gone", reason: goneReason(record), current: clone(record) };
    record.state = input.outcome === "completed" ? "completed" : "released";
    record.outcome = input.outcome;
    record.endedAt = input.now;
    record.endedBy = record.actor;
    record.sync = "pending";
    delete record.takeover;
    this.slots.setDeadline(record);
    slot.activityAt = input.now;
    this.slots.recordTransition(slot, {
      at: input.now,
      generation: record.generation,
      kind: record.state === "completed" ? "completed" : "released",
      actor: record.actor,
      note: input.outcome,
    });
    return { kind: "released", record: clone(record), repeated: false };
  }

  async markSynced(key: SubjectKey, generation: number): Promise<void> {
    const record = this.slots.slot(key).record;
    if (record && record.generation === generation) record.sync = "done";
  }

  async get(key: SubjectKey): Promise<ClaimRecord | null> {
    const record = this.slots.slot(key).record;
    return record ? clone(record) : null;
  }

  async restore(record: ClaimRecord, now: number): Promise<"restored" | "exists"> {
    const slot = this.slots.slot(record);
    slot.highWater = Math.max(slot.highWater, record.generation);
    // The restored generation's token stays recognisable even when a newer record is kept.
    if (record.tokenDigest && !slot.digests.has(record.generation)) {
      slot.digests.set(record.generation, record.tokenDigest);
    }
    if (slot.record && slot.record.generation >= record.generation) return "exists";
    slot.record = clone(record);
    if (record.tokenDigest) slot.digests.set(record.generation, record.tokenDigest);
    this.slots.setDeadline(record);
    slot.activityAt = now;
    this.slots.recordTransition(slot, {
      at: now,
      generation: record.generation,
      kind: "restored",
      actor: record.actor,
    });
    return "restored";
  }

  async history(key: SubjectKey): Promise<Transition[]> {
    return this.slots.slot(key).history.map(clone);
  }

  async epoch(installationId: number, now: number): Promise<number> {
    const known = this.epochs.get(installationId);
    if (known !== undefined) return known;
    this.epochs.set(installationId, now);
    return now;
  }

  // --- Transitions made by the App itself (webhooks, janitor, /reclaim) ---

  async endClaim(input: EndClaimInput): Promise<EndClaimOutcome> {
    return appTransitions.endClaim(this.slots, input);
  }

  async markStale(input: MarkStaleInput): Promise<MarkStaleOutcome> {
    return appTransitions.markStale(this.slots, input);
  }

  async humanClaim(input: HumanClaimInput): Promise<{ record: ClaimRecord; previous: ClaimRecord | null }> {
    return appTransitions.humanClaim(this.slots, input);
  }

  async recordPush(key: SubjectKey, generation: number, at: number): Promise<void> {
    appTransitions.recordPush(this.slots, key, generation, at);
  }

  async forget(key: SubjectKey, now: number): Promise<void> {
    appTransitions.forget(this.slots, key, now);
  }
}
