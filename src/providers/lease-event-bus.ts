// The port live lease events travel through: published by the transition that made them, heard by every replica's open streams.
import type { LeaseEvent } from "../contract/lease-events.js";

export type LeaseEventListener = (event: LeaseEvent) => void;

export interface LeaseEventBus {
  /** Tells every replica's listeners of `leaseId`; resolves once handed over (nobody listening is fine). */
  publish(leaseId: string, event: LeaseEvent): Promise<void>;
  /** Hears `leaseId`'s events from now on, from any replica; the returned function stops it. */
  subscribe(leaseId: string, listener: LeaseEventListener): () => void;
  /** Resolves once this replica hears what is published from now on (a stream sends its first event after it). */
  listening(): Promise<void>;
  /** Drops every listener and the connection the bus opened (if any). */
  close(): Promise<void>;
}
