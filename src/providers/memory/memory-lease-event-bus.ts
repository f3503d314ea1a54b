// Live lease events within one process: the embedded store's bus (a single replica has nobody else to tell).
import type { LeaseEvent } from "../../contract/lease-events.js";
import type { LeaseEventBus, LeaseEventListener } from "../lease-event-bus.js";
import { LeaseListeners } from "./lease-listeners.js";

export class MemoryLeaseEventBus implements LeaseEventBus {
  readonly #listeners = new LeaseListeners();

  async publish(leaseId: string, event: LeaseEvent): Promise<void> {
    // Heard after the publisher's turn, as an event from another replica would be.
    queueMicrotask(() => this.#listeners.dispatch(leaseId, event));
  }

  subscribe(leaseId: string, listener: LeaseEventListener): () => void {
    return this.#listeners.add(leaseId, listener);
  }

  async listening(): Promise<void> {}

  async close(): Promise<void> {
    this.#listeners.clear();
  }
}
