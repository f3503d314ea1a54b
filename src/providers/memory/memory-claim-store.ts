// The embedded single-process ClaimStore: the semantics of the Redis scripts, whose guards its transitions check in the same order.
// Hand-written rather than the Lua scripts on ioredis-mock: its Lua (fengari, 5.3) has no cjson or bit
// and 32-bit integers, so millisecond timestamps fail string.format('%d') and print as "…1.0".
// Each transition is a pure function of the subject's slot (claim-transitions.ts, lease-transitions.ts, app-transitions.ts);
// this class reads the slot, calls it, and writes the slot and the indexes back.
import type { ClaimRecord, SubjectKey, Transition } from "../../domain/claim.js";
import type { FailedAttempt } from "../../domain/failure-breaker.js";
import type {
  ClearNeedsHumanInput,
  ClearNeedsHumanOutcome,
  EndClaimInput,
  EndClaimOutcome,
  HumanClaimInput,
  MarkStaleInput,
  MarkStaleOutcome,
} from "../app-transition-types.js";
import type {
  ClaimInput,
  ClaimOutcome,
  ClaimStore,
  CommitReclaimInput,
  HeartbeatGaps,
  HeartbeatInput,
  HeartbeatOutcome,
  LeaseInput,
  ReleaseInput,
  ReleaseOutcomeResult,
  SubjectBreaker,
  VerifyOutcome,
} from "../liveness-store.js";
import * as app from "./app-transitions.js";
import { clone } from "./claim-rules.js";
import * as lease from "./claim-transitions.js";
import * as held from "./lease-transitions.js";
import { type SubjectSlot, SubjectSlots, type Transitioned } from "./subject-slots.js";

/** The claim transitions and reads of one subject; `createMemoryStores`' store core adds the indexes and bookkeeping. */
export class MemoryClaimStore implements ClaimStore {
  protected readonly slots = new SubjectSlots();
  protected readonly epochs = new Map<number, number>();

  /**
   * Runs one transition on the subject: its slot read, the pure step, the slot and indexes written.
   * The answer is a copy, so a caller never holds what the store keeps.
   */
  protected apply<O>(key: SubjectKey, step: (slot: SubjectSlot) => Transitioned<O>): O {
    const slot = this.slots.slot(key);
    const next = step(slot);
    this.slots.write(key, slot, next.slot);
    return clone(next.outcome);
  }

  async claim(input: ClaimInput): Promise<ClaimOutcome> {
    // As claim-14.lua: the installation's data begins no later than its first claim, whatever the answer.
    if (!this.epochs.has(input.key.installationId)) this.epochs.set(input.key.installationId, input.now);
    const live = this.slots.liveClaimsOf(input, input.key);
    return this.apply(input.key, (slot) => lease.claim(slot, { ...input, live }));
  }

  async commitReclaim(input: CommitReclaimInput): Promise<ClaimRecord | null> {
    return this.apply(input.key, (slot) => lease.commitReclaim(slot, input));
  }

  async commitClaim(
    key: SubjectKey,
    generation: number,
    comment: { commentNodeId: string; commentId?: number },
  ): Promise<void> {
    this.apply(key, (slot) => lease.commitClaim(slot, { generation, comment }));
  }

  async rollbackClaim(
    key: SubjectKey,
    generation: number,
    previous: ClaimRecord | null,
    now: number,
  ): Promise<void> {
    this.apply(key, (slot) => lease.rollbackClaim(slot, { generation, previous, now }));
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatOutcome> {
    return this.apply(input.key, (slot) => held.heartbeat(slot, input));
  }

  async verify(input: LeaseInput): Promise<VerifyOutcome> {
    return this.apply(input.key, (slot) => held.verify(slot, input));
  }

  async release(input: ReleaseInput): Promise<ReleaseOutcomeResult> {
    return this.apply(input.key, (slot) => held.release(slot, input));
  }

  async markSynced(key: SubjectKey, generation: number): Promise<void> {
    this.apply(key, (slot) => held.markSynced(slot, { generation }));
  }

  async get(key: SubjectKey): Promise<ClaimRecord | null> {
    const record = this.slots.slot(key).record;
    return record ? clone(record) : null;
  }

  async restore(record: ClaimRecord, now: number): Promise<"restored" | "exists"> {
    return this.apply(record, (slot) => held.restore(slot, { record, now }));
  }

  async history(key: SubjectKey): Promise<Transition[]> {
    return this.slots.slot(key).history.map(clone);
  }

  async heartbeatGaps(key: SubjectKey): Promise<HeartbeatGaps | null> {
    const kept = this.slots.slot(key).heartbeatGaps;
    return kept ? clone(kept) : null;
  }

  async epoch(installationId: number, now: number): Promise<number> {
    const known = this.epochs.get(installationId);
    if (known !== undefined) return known;
    this.epochs.set(installationId, now);
    return now;
  }

  // --- Transitions made by the App itself (webhooks, janitor, /reclaim) ---

  async endClaim(input: EndClaimInput): Promise<EndClaimOutcome> {
    return this.apply(input.key, (slot) => app.endClaim(slot, input));
  }

  async markStale(input: MarkStaleInput): Promise<MarkStaleOutcome> {
    return this.apply(input.key, (slot) => app.markStale(slot, input));
  }

  async humanClaim(input: HumanClaimInput): Promise<{ record: ClaimRecord; previous: ClaimRecord | null }> {
    return this.apply(input.key, (slot) => app.humanClaim(slot, input));
  }

  async recordPush(key: SubjectKey, generation: number, at: number): Promise<{ stallAskWithdrawn: boolean }> {
    return this.apply(key, (slot) => app.recordPush(slot, { generation, at }));
  }

  async withdrawStallAsk(key: SubjectKey, generation: number): Promise<boolean> {
    return this.apply(key, (slot) => app.withdrawStallAsk(slot, { generation }));
  }

  async forget(key: SubjectKey, now: number): Promise<ClaimRecord | null> {
    return this.apply(key, (slot) => app.forget(slot, { now }));
  }

  // --- The failure breaker ---

  async failures(key: SubjectKey): Promise<FailedAttempt[]> {
    return (this.slots.slot(key).failures ?? []).map(clone);
  }

  async clearFailures(key: SubjectKey): Promise<void> {
    this.apply(key, (slot) => {
      if (!slot.failures && slot.tripWrittenThrough === undefined) return { slot, outcome: undefined };
      const { failures: _, tripWrittenThrough: _trip, ...rest } = slot;
      return { slot: rest, outcome: undefined };
    });
  }

  async clearNeedsHuman(input: ClearNeedsHumanInput): Promise<ClearNeedsHumanOutcome> {
    return this.apply(input.key, (slot) => app.clearNeedsHuman(slot, input));
  }

  async breakers(keys: readonly SubjectKey[]): Promise<SubjectBreaker[]> {
    return keys.map((key) => {
      const slot = this.slots.slot(key);
      return {
        attempts: (slot.failures ?? []).map(clone),
        ...(slot.tripWrittenThrough !== undefined ? { tripWrittenThrough: slot.tripWrittenThrough } : {}),
      };
    });
  }

  async markTripWritten(key: SubjectKey, throughGeneration: number): Promise<void> {
    this.apply(key, (slot) => ({
      slot: { ...slot, tripWrittenThrough: throughGeneration },
      outcome: undefined,
    }));
  }
}
