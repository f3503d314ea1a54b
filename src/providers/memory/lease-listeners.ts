// The listeners of each lease one process holds: the part of a lease event bus that both adapters share.
import type { LeaseEvent } from "../../contract/lease-events.js";
import type { LeaseEventListener } from "../lease-event-bus.js";

export class LeaseListeners {
  readonly #byLease = new Map<string, Set<LeaseEventListener>>();

  get size(): number {
    return this.#byLease.size;
  }

  add(leaseId: string, listener: LeaseEventListener): () => void {
    let set = this.#byLease.get(leaseId);
    if (!set) {
      set = new Set();
      this.#byLease.set(leaseId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#byLease.get(leaseId) === set) this.#byLease.delete(leaseId);
    };
  }

  dispatch(leaseId: string, event: LeaseEvent): void {
    for (const listener of [...(this.#byLease.get(leaseId) ?? [])]) listener(event);
  }

  clear(): void {
    this.#byLease.clear();
  }
}
