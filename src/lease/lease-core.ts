// The lease core's facade: claim, heartbeat, release, verify and the reads, over the ports of ports.ts.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, ReleaseOutcome } from "../domain/claim.js";
import type { SubjectSnapshot } from "../providers/assignment-provider.js";
import { LeaseCalls } from "./calls/lease-calls.js";
import { ClaimLease } from "./claim/claim-lease.js";
import type {
  ClaimOutcome,
  ClaimRequest,
  HeartbeatAnswer,
  HeartbeatRequest,
  PickCheck,
  PickOutcome,
  ReleaseAnswer,
  VerifyAnswer,
} from "./outcomes.js";
import type { LeaseCoreDeps } from "./ports.js";
import {
  type Inventory,
  type InventoryRow,
  inventory,
  inventoryRow,
  type SubjectView,
  subjectRead,
  subjectView,
} from "./reads/lease-reads.js";
import { LeaseRecovery } from "./recovery/recovery.js";
import type { ScopeOverlap } from "./scope/scope-overlap.js";

export type { RepoConfigSource } from "../config/config-source.js";
export { phaseEditEveryMs } from "./calls/lease-calls.js";
export { slugOf } from "./claim/decide-claim.js";
export type {
  ClaimOutcome,
  ClaimRequest,
  HeartbeatAnswer,
  HeartbeatRequest,
  LeaseView,
  PickCheck,
  PickOutcome,
  ReleaseAnswer,
  ResumeView,
  VerifyAnswer,
} from "./outcomes.js";
export type { LeaseCoreDeps } from "./ports.js";
export { LeaseRefused, type RefusalCode } from "./refusals.js";

export class LeaseCore {
  readonly #claims: ClaimLease;
  readonly #calls: LeaseCalls;

  constructor(private readonly deps: LeaseCoreDeps) {
    this.#claims = new ClaimLease(deps);
    this.#calls = new LeaseCalls(deps, new LeaseRecovery(deps));
  }

  claim(request: ClaimRequest): Promise<ClaimOutcome> {
    return this.#claims.claim(request);
  }

  claimPicked(request: ClaimRequest, pick: PickCheck): Promise<PickOutcome> {
    return this.#claims.claimPicked(request, pick);
  }

  heartbeat(leaseId: string, token: string, request: HeartbeatRequest): Promise<HeartbeatAnswer> {
    return this.#calls.heartbeat(leaseId, token, request);
  }

  release(
    leaseId: string,
    token: string,
    request: { outcome: ReleaseOutcome; note?: string },
  ): Promise<ReleaseAnswer> {
    return this.#calls.release(leaseId, token, request);
  }

  verify(leaseId: string, token: string, options?: { recheckWrite?: boolean }): Promise<VerifyAnswer> {
    return this.#calls.verify(leaseId, token, options);
  }

  /** One subject's joined state (store ⋈ GitHub) with its claim history. */
  subject(installationId: number, repo: string, issue: number): Promise<SubjectView> {
    return subjectView(this.deps, installationId, repo, issue);
  }

  /** `subject` with the subject's store key (the dashboard's subject page reads on from the store). */
  subjectWithKey(installationId: number, repo: string, issue: number) {
    return subjectRead(this.deps, installationId, repo, issue);
  }

  /** The inventory (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory) of a repository. */
  inventory(
    installationId: number,
    repo: string,
    options: { state?: string; limit: number },
  ): Promise<Inventory> {
    return inventory(this.deps, installationId, repo, options);
  }

  /** The inventory row of one subject (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory); without a snapshot, GitHub's side is unknown. */
  row(
    snapshot: SubjectSnapshot | null,
    record: ClaimRecord | null,
    storeEpoch: number,
    config: RepoConfig,
    overlaps: readonly ScopeOverlap[] = [],
  ): InventoryRow {
    return inventoryRow(snapshot, record, storeEpoch, config, this.deps.now(), overlaps);
  }
}
