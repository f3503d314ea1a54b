// The memory store's per-subject slots and the per-installation deadlines its indexes read.
import type { LeaseUsage } from "../../budget/usage.js";
import type { ClaimRecord, SubjectKey, Transition } from "../../domain/claim.js";
import { aliveAt } from "../../lease/liveness.js";
import { historyLimit } from "../claim-records.js";
import type { ClaimInput } from "../liveness-store.js";
import { LiveClaims } from "./live-claims.js";

export interface SubjectSlot {
  record: ClaimRecord | null;
  highWater: number;
  digests: Map<number, string>;
  /** Per generation, the digests re-claims rotated out (newest last) and when. */
  rotated: Map<number, { digest: string; at: number }[]>;
  history: Transition[];
  /** Time of the record's last transition or heartbeat: the repository listing's order. */
  activityAt?: number;
  /** Each generation's last reported usage (the subject's spend is their sum), and the budget-warn mark. */
  spend?: { leases: Map<number, LeaseUsage>; totalMicros: number; warned: boolean };
}

/** A subject's member in its installation's deadlines, as on Redis. */
function memberOf(key: SubjectKey): string {
  return `${key.repoId}:${key.issue}`;
}

export class SubjectSlots {
  readonly #slots = new Map<string, SubjectSlot>();
  readonly #deadlines = new Map<number, Map<string, number>>();
  readonly #live = new LiveClaims();

  slot(key: SubjectKey): SubjectSlot {
    const id = `${key.installationId}:${key.repoId}:${key.issue}`;
    let slot = this.#slots.get(id);
    if (!slot) {
      slot = { record: null, highWater: 0, digests: new Map(), rotated: new Map(), history: [] };
      this.#slots.set(id, slot);
    }
    return slot;
  }

  recordTransition(slot: SubjectSlot, transition: Transition): void {
    slot.history.unshift(transition);
    slot.history.length = Math.min(slot.history.length, historyLimit);
  }

  /** After every transition of the record: its deadline and its live-claim counts. */
  setDeadline(record: ClaimRecord): void {
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

  dropDeadline(key: SubjectKey): void {
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
