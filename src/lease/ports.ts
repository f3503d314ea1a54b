// The interfaces the lease core is built on: the store, GitHub's assignments, config, tokens, clock.
import type { Logger } from "pino";
import type { NeedsHumanChange } from "../budget/needs-human.js";
import type { RepoConfigSource } from "../config/config-source.js";
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import type { Notifier } from "../notify/notifier.js";
import type { InstallationStore } from "../providers/app-stores.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { QueueRepo, QueueStore } from "../providers/queue-store.js";
import type { Stores } from "../providers/stores.js";
import type { HolderPermissions } from "./calls/holder-permission.js";
import type { FleetLogins } from "./fleet-logins.js";
import type { LeaseEventPublisher } from "./lease-events.js";
import type { TokenMinter } from "./tokens.js";
import type { ClaimEvents } from "./transitions/claim-events.js";

/** What showing an ask reads of the record: a heartbeat's view of it (HeartbeatRecord) is enough. */
export type NeedsHumanRecord = Pick<
  ClaimRecord,
  | "installationId"
  | "repoId"
  | "issue"
  | "generation"
  | "repo"
  | "actor"
  | "issueNodeId"
  | "state"
  | "staleMarkedAt"
  | "needsHuman"
  | "stallAsk"
  | "lastHeartbeatAt"
>;

/** Shows a holder's ask for a person on GitHub, throttled per subject (lease/calls/needs-human-show.ts). */
export interface NeedsHumanShower {
  /** After a heartbeat that made or withdrew the ask. */
  changed(
    record: NeedsHumanRecord,
    config: RepoConfig,
    change: Exclude<NeedsHumanChange, { kind: "unchanged" }>,
  ): Promise<void>;
  /** Whether a label write the throttle held back for this lease is due now (no I/O: every heartbeat asks). */
  isDue(lease: SubjectKey & { generation: number }, now: number): boolean;
  /** Makes a due label write: the label as the record asks now. */
  settle(record: NeedsHumanRecord, config: RepoConfig): Promise<void>;
  /** The App's ask on a stalled claim's behalf (`onStall: needs-human`): label, comment, notification. */
  stallAsked(record: NeedsHumanRecord, config: RepoConfig, blocker: string): Promise<void>;
  /** A person removed the label: remembered without a write. */
  removedByPerson(record: NeedsHumanRecord, config: RepoConfig): Promise<void>;
}

export interface LeaseCoreDeps {
  /** The claim transitions and indexes, the write fence's locks, spend, documents, and the installation a claim proves live. */
  stores: Pick<Stores, "claims" | "index" | "locks" | "spend" | "documents"> & {
    installations: Pick<InstallationStore, "rememberInstallation">;
  };
  assignments: AssignmentProvider;
  configs: RepoConfigSource;
  tokens: TokenMinter;
  now: () => number;
  log: Logger;
  /** Told of each transition the core makes (claim, takeover, release, revocation, over budget). */
  events: ClaimEvents;
  /**
   * The candidate index: a direct claim's open blockers (`409 blocked`) come from it, never from
   * a GitHub request of the claim's. Absent: no blockers are known.
   */
  candidates?: Pick<QueueStore, "candidate" | "repoOf">;
  /**
   * A direct claim's open blockers from an index no older than `queue.maxIndexAge` (refreshed, or
   * the subject's `blocked_by` read, when it is not); absent: the candidate index as it is.
   */
  blockers?: { of(repo: QueueRepo, issue: number, maxIndexAgeMs: number): Promise<string[]> };
  /** Where the heartbeat's needs-human and budget-warn events are told; absent: nowhere. */
  notifier?: Notifier;
  /** The needs-human throttle's memory of held-back label writes (one per process); absent: none kept. */
  needsHuman?: NeedsHumanShower;
  /** The installation's fleet logins: a claim teaches it its login; absent: nothing is learned. */
  fleet?: FleetLogins;
  /** Re-checks a holder's `write` permission at most every 10 minutes (docs/reference/http-api.md#authentication); absent: never. */
  permissions?: HolderPermissions;
  /** Where a takeover's intent tells the incumbent's live stream its grace beat is due; absent: nowhere. */
  leaseEvents?: LeaseEventPublisher;
}
