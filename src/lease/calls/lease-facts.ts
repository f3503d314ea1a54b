// The facts of held leases that no transition changes within a generation, kept per lease so a heartbeat's store call need not answer them.
import type { ClaimRecord } from "../../domain/claim.js";
import type { LeaseFacts } from "../../providers/liveness-store.js";

/** How many leases' facts one process keeps; past that, the one remembered first goes. */
export const leaseFactsKept = 20_000;

/**
 * Per lease id (its subject and generation), the facts of `LeaseFacts` as the store's record showed
 * them, with the digest of the token that held the lease then. A heartbeat that finds them asks the
 * store for its liveness only; one that does not asks for the whole record and remembers it here.
 * The digest keys them too: a generation is minted once, but facts are never handed to another
 * token than the one they were read for (a re-claim's new token asks once more).
 */
export class LeaseFactsCache {
  readonly #entries = new Map<string, { tokenDigest: string; facts: LeaseFacts }>();

  constructor(private readonly kept = leaseFactsKept) {}

  /** The lease's facts, when they were remembered for this token's digest. */
  get(leaseId: string, tokenDigest: string): LeaseFacts | undefined {
    const entry = this.#entries.get(leaseId);
    return entry !== undefined && entry.tokenDigest === tokenDigest ? entry.facts : undefined;
  }

  /** Remembers the facts of `record`, the lease's record as a heartbeat with this token's digest wrote it. */
  remember(leaseId: string, tokenDigest: string, record: ClaimRecord): LeaseFacts {
    const facts: LeaseFacts = {
      installationId: record.installationId,
      repoId: record.repoId,
      issue: record.issue,
      generation: record.generation,
      repo: record.repo,
      actor: record.actor,
      taskClass: record.taskClass,
    };
    if (record.issueNodeId !== undefined) facts.issueNodeId = record.issueNodeId;
    if (!this.#entries.has(leaseId) && this.#entries.size >= this.kept) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(leaseId, { tokenDigest, facts });
    return facts;
  }

  /** Drops a lease whose call was refused (it ended, moved on, or never was). */
  forget(leaseId: string): void {
    this.#entries.delete(leaseId);
  }

  get size(): number {
    return this.#entries.size;
  }
}
