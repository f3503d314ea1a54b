// The App's stores as one bundle of narrow stores: each member is named by the interface its consumers use.

import type {
  ClaimIndex,
  DeliveryLog,
  DocumentStore,
  FleetLoginStore,
  InstallationStore,
  JobLocks,
  StoreConnection,
  SubjectWriteLocks,
} from "./app-stores.js";
import type { ClaimStore } from "./liveness-store.js";
import type { QueueStore } from "./queue-store.js";
import type { SpendStore } from "./spend-store.js";

/**
 * Everything the App keeps in its store, one member per narrow interface. Members may be one object
 * where they share state and scripts (the claim store also keeps its indexes, installations, fleet
 * logins, deliveries, locks, subject write locks, documents and spend on the same client and key layout); the candidate
 * index is its own object. Consumers take the members they use (a `Pick` of the bundle, or one member).
 */
export interface Stores {
  claims: ClaimStore;
  index: ClaimIndex;
  installations: InstallationStore;
  fleetLogins: FleetLoginStore;
  deliveries: DeliveryLog;
  locks: JobLocks;
  writeLocks: SubjectWriteLocks;
  documents: DocumentStore;
  spend: SpendStore;
  queue: QueueStore;
  connection: StoreConnection;
}

/** The part of the bundle one claim-store class implements on its own (everything but the candidate index). */
export type ClaimStoreParts = ClaimStore &
  ClaimIndex &
  InstallationStore &
  FleetLoginStore &
  DeliveryLog &
  JobLocks &
  SubjectWriteLocks &
  DocumentStore &
  SpendStore &
  StoreConnection;

/** The bundle of a claim-store class and a candidate index: each member is one of the two objects, never a copy. */
export function bundleStores(parts: ClaimStoreParts, queue: QueueStore): Stores {
  return {
    claims: parts,
    index: parts,
    installations: parts,
    fleetLogins: parts,
    deliveries: parts,
    locks: parts,
    writeLocks: parts,
    documents: parts,
    spend: parts,
    queue,
    connection: parts,
  };
}

/**
 * The bundle with each distinct member object replaced by `wrap(member)`, made once per object: members
 * that were one object stay one (wrapped) object. For decorators (metrics, timing) of every store call.
 */
export function mapStores(stores: Stores, wrap: <T extends object>(store: T) => T): Stores {
  const wrapped = new Map<object, object>();
  const once = <T extends object>(store: T): T => {
    let done = wrapped.get(store);
    if (!done) {
      done = wrap(store);
      wrapped.set(store, done);
    }
    return done as T;
  };
  return {
    claims: once(stores.claims),
    index: once(stores.index),
    installations: once(stores.installations),
    fleetLogins: once(stores.fleetLogins),
    deliveries: once(stores.deliveries),
    locks: once(stores.locks),
    writeLocks: once(stores.writeLocks),
    documents: once(stores.documents),
    spend: once(stores.spend),
    queue: once(stores.queue),
    connection: once(stores.connection),
  };
}
