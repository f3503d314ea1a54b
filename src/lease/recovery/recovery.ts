// Invariant 7: a subject the store lost comes back from its claim comments, for lease calls and claims.
import { defaultRepoConfig } from "../../config/repo-config.js";
import { leaseIdOf, type SubjectKey, subjectName } from "../../domain/claim.js";
import type { ClaimCommentEvidence, SubjectSnapshot } from "../../providers/assignment-provider.js";
import type { ClaimStore } from "../../providers/liveness-store.js";
import type { LeaseCoreDeps } from "../ports.js";
import { digestsEqual } from "../tokens.js";
import { claimStateUnknown, latestMarker, markerHolds, recordFromMarker } from "./restore-from-comments.js";

const failedRecoveryMemoryMs = 5 * 60_000;

type LeaseKey = SubjectKey & { generation: number };

/**
 * Invariant 7: the store lost a subject. When the claim comment of the lease's generation
 * publishes this token's digest, the lease comes back — and so does whatever newer incarnation the
 * comments show, in its own state, so the old holder is told the truth (`superseded`, `gone`) and
 * an ended incarnation never revives. Only a store with no record of the subject at all asks GitHub,
 * and a failed recovery is remembered for a while, so guessed lease ids cannot spend the App's quota.
 */
export class LeaseRecovery {
  /** Lease ids whose recovery from the claim comments failed, until when. */
  readonly #failedRecoveries = new Map<string, number>();

  constructor(private readonly deps: LeaseCoreDeps) {}

  /** A lease call whose subject the store lost is answered again once the lease is recovered. */
  async withRecovery<T extends { kind: string }>(
    lease: LeaseKey,
    token: string,
    call: (digest: string) => Promise<T>,
  ): Promise<T> {
    const [current, ...rotatedOut] = this.deps.tokens.digests(token);
    const outcome = await call(current!);
    // A lease minted under the secret being rotated out (CLAIM_HOLD_TOKEN_SECRET_PREVIOUS).
    if (outcome.kind === "invalid_token") {
      for (const digest of rotatedOut) {
        const again = await call(digest);
        if (again.kind !== "invalid_token") return again;
      }
    }
    if (outcome.kind === "missing") {
      const recovered = await this.#recoverLease(lease, [current!, ...rotatedOut]);
      if (recovered) return call(recovered);
    }
    return outcome;
  }

  /** Answers the digest that the restored claim comment names, or null when nothing was restored. */
  async #recoverLease(lease: LeaseKey, digests: string[]): Promise<string | null> {
    const { store, assignments, now: clock } = this.deps;
    const leaseId = leaseIdOf(lease, lease.generation);
    if ((this.#failedRecoveries.get(leaseId) ?? 0) > clock()) return null;
    if ((await store.get(lease)) !== null) return null;
    const remember = () => {
      if (this.#failedRecoveries.size > 10_000) this.#failedRecoveries.clear();
      this.#failedRecoveries.set(leaseId, clock() + failedRecoveryMemoryMs);
      return null;
    };
    const repo = await assignments.repositoryName(lease.installationId, lease.repoId);
    if (!repo) return remember();
    const snapshot = await assignments.status({
      installationId: lease.installationId,
      repo,
      issue: lease.issue,
    });
    if (!snapshot) return remember();
    const own = snapshot.claimComments.find(
      (c) =>
        c.marker.generation === lease.generation &&
        c.marker.subject === subjectName(snapshot.repo, snapshot.issue) &&
        c.marker.tokenDigest !== undefined &&
        digests.some((digest) => digestsEqual(c.marker.tokenDigest!, digest)),
    );
    if (!own) return remember();
    // Invariant 12: a newer claim the comments cannot vouch for may have superseded this lease.
    // The cached config's label names (a recovery never spends config reads), else the defaults.
    const { labels } = this.deps.configs.peek(lease.installationId, snapshot.repo) ?? defaultRepoConfig;
    if (claimStateUnknown(snapshot, [labels.claimed, labels.stale])) return remember();
    const now = clock();
    const epoch = await store.epoch(lease.installationId, now);
    await store.restore(recordFromMarker(lease, snapshot, own, epoch, now), now);
    const latest = latestMarker(snapshot);
    if (latest && latest.marker.generation > lease.generation) {
      await store.restore(recordFromMarker(lease, snapshot, latest, epoch, now), now);
    }
    this.deps.log.info(
      { subject: subjectName(snapshot.repo, snapshot.issue) },
      "lease restored from its claim comment",
    );
    return own.marker.tokenDigest!;
  }
}

/**
 * Invariant 7 for a claim: the claim in force on GitHub comes back when the store has no record
 * of the subject — unless the store's history says it rolled that generation back. One record
 * read, and the history only when the store holds nothing as new as the marker. Answers whether
 * the marker in force is such a rolled-back claim.
 */
export async function restoreUnlessRolledBack(
  store: ClaimStore,
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  latest: ClaimCommentEvidence | undefined,
  now: number,
): Promise<boolean> {
  if (!latest || !markerHolds(latest.marker)) return false;
  const stored = await store.get(key);
  if (stored && stored.generation >= latest.marker.generation) return false;
  const history = await store.history(key);
  if (history.some((t) => t.kind === "rolled-back" && t.generation === latest.marker.generation)) return true;
  if (stored === null) {
    const epoch = await store.epoch(key.installationId, now);
    await store.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
  }
  return false;
}

/** Invariant 7 for a read: the claim in force on GitHub comes back when the store has no record of it. */
export async function restoreFromComment(
  store: ClaimStore,
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  latest: ClaimCommentEvidence | undefined,
  now: number,
): Promise<void> {
  if (!latest || !markerHolds(latest.marker)) return;
  if ((await store.get(key)) !== null) return;
  const epoch = await store.epoch(key.installationId, now);
  await store.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
}
