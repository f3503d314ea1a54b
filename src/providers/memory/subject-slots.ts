// The memory store's per-subject slots and the per-installation deadlines its indexes read.
import type { LeaseUsage } from "../../budget/usage.js";
import type { ClaimRecord, SubjectKey, Transition } from "../../domain/claim.js";
import type { FailedAttempt } from "../../domain/failure-breaker.js";
import { aliveAt } from "../../domain/liveness.js";
import { wasStalled } from "../../domain/stall.js";
import { heartbeatGapsKept, historyLimit } from "../claim-records.js";
import type { ClaimInput, HeartbeatGaps } from "../liveness-store.js";
import { LiveClaims } from "./live-claims.js";

/**
 * Everything the store keeps of one subject. A transition never changes a slot: it answers a new one
 * (sharing what it left alone), so the record, maps and lists here are replaced, never edited.
 */
export interface SubjectSlot {
  readonly record: ClaimRecord | null;
  readonly highWater: number;
  readonly digests: ReadonlyMap<number, string>;
  /** Per generation, the digests re-claims rotated out (newest last) and when. */
  readonly rotated: ReadonlyMap<number, readonly { digest: string; at: number }[]>;
  readonly history: readonly Transition[];
  /** Time of the record's last transition or heartbeat: the repository listing's order. */
  readonly activityAt?: number;
  /** Each generation's last reported usage (the subject's spend is their sum), and the budget-warn mark. */
  readonly spend?: SubjectSpend;
  /** The failure breaker's attempts, oldest first (the `fail` list on Redis). */
  readonly failures?: readonly FailedAttempt[];
  /** The gaps between the last generation's heartbeats (the `gaps` key on Redis; kept here until purged). */
  readonly heartbeatGaps?: Readonly<HeartbeatGaps>;
  /** The newest attempt's generation the breaker's trip written on GitHub summarised (the `trip` key on Redis). */
  readonly tripWrittenThrough?: number;
}

export interface SubjectSpend {
  readonly leases: ReadonlyMap<number, LeaseUsage>;
  readonly totalMicros: number;
  readonly warned: boolean;
  /** The subject's own limit (micro-dollars), set by `/budget`. */
  readonly limitMicros?: number;
}

/** A transition's answer: the subject's slot after it, and what the call returns. */
export interface Transitioned<O> {
  slot: SubjectSlot;
  outcome: O;
}

export const emptySlot: SubjectSlot = {
  record: null,
  highWater: 0,
  digests: new Map(),
  rotated: new Map(),
  history: [],
};

/** The history with `transition` first, kept to the last `historyLimit` (as push_history in history.lua). */
export function withTransition(
  history: readonly Transition[],
  transition: Transition,
): readonly Transition[] {
  return [structuredClone(transition), ...history].slice(0, historyLimit);
}

/**
 * The gaps after a beat `gapMs` after the generation's last one (heartbeat-7.lua): the generation's
 * last `heartbeatGapsKept`, afresh for a new generation; a beat with no time passed adds nothing.
 */
export function withHeartbeatGap(
  kept: Readonly<HeartbeatGaps> | undefined,
  generation: number,
  gapMs: number,
): Readonly<HeartbeatGaps> | undefined {
  if (gapMs <= 0) return kept;
  const before = kept?.generation === generation ? kept.gapsMs : [];
  return { generation, gapsMs: [...before, gapMs].slice(-heartbeatGapsKept) };
}

/**
 * A new incarnation's generation (above every one seen) and the history with the active claim it
 * supersedes recorded, as claim-14.lua and humanClaim-6.lua both begin.
 */
export function nextIncarnation(
  slot: SubjectSlot,
  current: ClaimRecord | null,
  input: { now: number; minGeneration: number; actor: Transition["actor"] },
): { generation: number; history: readonly Transition[] } {
  const generation = Math.max(slot.highWater, current?.generation ?? 0, input.minGeneration) + 1;
  const history =
    current?.state === "active"
      ? withTransition(slot.history, {
          at: input.now,
          generation: current.generation,
          kind: "superseded",
          actor: input.actor,
          // A stalled generation taken over is noted in its history (claim-14.lua's stalled_note).
          ...(wasStalled(current, input.now) ? { note: "stalled" } : {}),
        })
      : slot.history;
  return { generation, history };
}

function slotId(key: SubjectKey): string {
  return `${key.installationId}:${key.repoId}:${key.issue}`;
}

/** A subject's member in its installation's deadlines, as on Redis. */
function memberOf(key: SubjectKey): string {
  return `${key.repoId}:${key.issue}`;
}

export class SubjectSlots {
  readonly #slots = new Map<string, SubjectSlot>();
  readonly #deadlines = new Map<number, Map<string, number>>();
  readonly #live = new LiveClaims();

  /** The subject's slot (an empty one when the store has nothing of it). */
  slot(key: SubjectKey): SubjectSlot {
    return this.#slots.get(slotId(key)) ?? emptySlot;
  }

  /**
   * Keeps `next` as the subject's slot after a transition from `previous`; a record the transition
   * replaced is indexed again (its deadline and live-claim counts), or dropped from the indexes.
   */
  write(key: SubjectKey, previous: SubjectSlot, next: SubjectSlot): void {
    if (next === previous) return;
    this.#slots.set(slotId(key), next);
    if (next.record === previous.record) return;
    if (next.record) this.#index(next.record);
    else this.#drop(key);
  }

  /** Its deadline and its live-claim counts, from the record alone. */
  #index(record: ClaimRecord): void {
    this.#live.index(record);
    let set = this.#deadlines.get(record.installationId);
    if (!set) {
      set = new Map();
      this.#deadlines.set(record.installationId, set);
    }
    const member = memberOf(record);
    if (record.state === "active") {
      const after =
        record.staleMarkedAt !== undefined ? record.durations.reclaimAfterMs : record.durations.ttlMs;
      set.set(member, aliveAt(record) + after);
    } else {
      set.delete(member);
    }
  }

  /** The claimant's live claims other than the subject's, from the counts the transitions keep. */
  liveClaimsOf(input: ClaimInput, skip: SubjectKey): { session: number; login: number } {
    return this.#live.count(skip, input.actor, input.now);
  }

  #drop(key: SubjectKey): void {
    this.#live.drop(key);
    this.#deadlines.get(key.installationId)?.delete(memberOf(key));
  }

  /** The installation's active subjects by member (`repoId:issue`) with their deadlines. */
  deadlines(installationId: number): ReadonlyMap<string, number> | undefined {
    return this.#deadlines.get(installationId);
  }

  /** Every slot by its id `installationId:repoId:issue`. */
  entries(): IterableIterator<[string, SubjectSlot]> {
    return this.#slots.entries();
  }

  purge(installationId: number): void {
    for (const id of this.#slots.keys()) {
      if (id.startsWith(`${installationId}:`)) this.#slots.delete(id);
    }
    this.#deadlines.delete(installationId);
    this.#live.purge(installationId);
  }
}
