// The App's narrow stores beside the claim state machine: the indexes, installations, fleet logins, deliveries, locks, subject write locks, documents and the connection; `Stores` (stores.ts) bundles them.

import type { ClaimRecord, SubjectKey } from "../domain/claim.js";

/** The indexes the janitor and the dashboard read instead of scanning. */
export interface ClaimIndex {
  /**
   * Subjects of the installation whose active claim is due for the janitor (deadline <= now),
   * earliest first. The deadline is lastHeartbeatAt + ttlMs, or + reclaimAfterMs once marked stale.
   */
  due(installationId: number, now: number, limit: number): Promise<SubjectKey[]>;
  /** Records of one repository (any state), most recent activity first, at most `limit`. */
  listRepository(installationId: number, repoId: number, limit: number): Promise<ClaimRecord[]>;
  /**
   * Repository ids of the installation that ever held a record, ascending (the dashboard's index,
   * read without GitHub). May name a repository whose listing has since emptied.
   */
  repositories(installationId: number): Promise<number[]>;
  /** Number of active agent claims of the installation (the disruption guard's denominator). */
  activeCount(installationId: number): Promise<number>;
}

/** Which installations hold claims, and their removal when the App is uninstalled. */
export interface InstallationStore {
  /** Records that an installation holds claims (a global set, outside any installation's hash slot). */
  rememberInstallation(installationId: number): Promise<void>;
  /** Installations the store holds claims for: the janitor's sweep list (no GitHub request needed). */
  installations(): Promise<number[]>;
  /** Removes every key of an installation (App uninstalled). */
  purgeInstallation(installationId: number): Promise<void>;
}

/**
 * The installation's fleet logins learned from claims (docs/security.md#trust-model): durable, so a
 * restart or another replica still knows that a login runs agents.
 */
export interface FleetLoginStore {
  /** Records that `login` held an agent claim through the API (safe to repeat; case-insensitive). */
  rememberFleetLogin(installationId: number, login: string): Promise<void>;
  /** Whether `login` ever held an agent claim here (as recorded by rememberFleetLogin). */
  isFleetLogin(installationId: number, login: string): Promise<boolean>;
}

/** Webhook redelivery dedupe. */
export interface DeliveryLog {
  /** True the first time a webhook delivery id is seen within `ttlMs` (redelivery dedupe). */
  firstDelivery(deliveryId: string, ttlMs: number): Promise<boolean>;
}

/** Named locks with an owner and a time to live (janitor jobs, fenced writes). */
export interface JobLocks {
  /** Takes or renews a named lock for `owner` (SET NX PX, or PEXPIRE when already ours). */
  acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Releases the lock only if `owner` still holds it. */
  releaseLock(name: string, owner: string): Promise<void>;
}

/** What a fenced write was decided for, as a store compares it with the record (invariant 13). */
export interface WriteMark {
  generation: number;
  state: ClaimRecord["state"];
  stale: boolean;
}

/** The end of a fenced write (`SubjectWriteLocks.finishWrite`). */
export interface FinishWriteInput {
  key: SubjectKey;
  owner: string;
  /** What the write was sent for: the lock stays taken when the record moved on from it. */
  sentFor: WriteMark;
  /** The claim comment the write created, committed as `ClaimStore.commitClaim` commits it. */
  commit?: { generation: number; comment: { commentNodeId: string; commentId?: number } };
}

/**
 * Invariant 13's write lock of one subject (one GitHub write per subject in flight), taken and given
 * up together with the reads around the write and the claim comment's commit, so a fenced write
 * costs the store two round trips.
 */
export interface SubjectWriteLocks {
  /** Takes or renews the subject's write lock for `owner`; when held, the record as it is now. */
  lockWrite(
    key: SubjectKey,
    owner: string,
    ttlMs: number,
  ): Promise<{ locked: false } | { locked: true; record: ClaimRecord | null }>;
  /**
   * After the write: the record as it is now (read before the commit), then the commit when given,
   * then the lock given up unless the record moved on from `sentFor` (the caller corrects GitHub
   * first, then calls `unlockWrite`).
   */
  finishWrite(input: FinishWriteInput): Promise<ClaimRecord | null>;
  /** Gives the lock up, only if `owner` still holds it. */
  unlockWrite(key: SubjectKey, owner: string): Promise<void>;
}

/** Small JSON documents kept for operators (the janitor's last report). */
export interface DocumentStore {
  putDocument(name: string, value: unknown, ttlMs: number): Promise<void>;
  getDocument(name: string): Promise<unknown>;
}

export interface StoreConnection {
  ping(): Promise<void>;
  close(): Promise<void>;
}
