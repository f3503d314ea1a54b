// Invariant 7: a subject the store lost comes back from its claim comments, for lease calls and claims.

import type { RepoConfigSource } from "../../config/config-source.js";
import { defaultRepoConfig } from "../../config/repo-config.js";
import { type ClaimRecord, leaseIdOf, type SubjectKey, subjectName } from "../../domain/claim.js";
import type {
  AssignmentProvider,
  ClaimCommentEvidence,
  ClaimEvidence,
  SubjectSnapshot,
} from "../../providers/assignment-provider.js";
import type { ClaimStore } from "../../providers/liveness-store.js";
import type { LeaseCoreDeps } from "../ports.js";
import { digestsEqual } from "../tokens.js";
import type { ClaimEvents } from "../transitions/claim-events.js";
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

  /**
   * A lease call whose subject the store lost is answered again once the lease is recovered.
   * `digests`: the token's digests, under the current secret first (TokenMinter.digests).
   */
  async withRecovery<T extends { kind: string }>(
    lease: LeaseKey,
    digests: readonly string[],
    call: (digest: string) => Promise<T>,
  ): Promise<T> {
    return this.recover(lease, digests, await call(digests[0]!), call);
  }

  /**
   * After a lease call made with `digests[0]`: an `invalid_token` is tried again with the digest
   * under the secret being rotated out, a `missing` once the lease is recovered from its claim
   * comment; any other outcome is answered as it is.
   */
  async recover<T extends { kind: string }>(
    lease: LeaseKey,
    digests: readonly string[],
    outcome: T,
    call: (digest: string) => Promise<T>,
  ): Promise<T> {
    // A lease minted under the secret being rotated out (CLAIM_HOLD_TOKEN_SECRET_PREVIOUS).
    if (outcome.kind === "invalid_token") {
      for (const digest of digests.slice(1)) {
        const again = await call(digest);
        if (again.kind !== "invalid_token") return again;
      }
    }
    if (outcome.kind === "missing") {
      const recovered = await this.#recoverLease(lease, digests);
      if (recovered) return call(recovered);
    }
    return outcome;
  }

  /** Answers the digest that the restored claim comment names, or null when nothing was restored. */
  async #recoverLease(lease: LeaseKey, digests: readonly string[]): Promise<string | null> {
    const { stores, assignments, now: clock } = this.deps;
    const leaseId = leaseIdOf(lease, lease.generation);
    if ((this.#failedRecoveries.get(leaseId) ?? 0) > clock()) return null;
    if ((await stores.claims.get(lease)) !== null) return null;
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
    const epoch = await stores.claims.epoch(lease.installationId, now);
    const latest = latestMarker(snapshot);
    const newer = latest && latest.marker.generation > lease.generation ? latest : undefined;
    for (const comment of newer ? [own, newer] : [own]) {
      const restored = await restoreClaimRecord(this.deps, lease, snapshot, comment, epoch, now);
      // Who took the claim's assignment away is unknown: the lease never comes back unproven.
      if (restored === "unknown") return remember();
    }
    this.deps.log.info(
      { subject: subjectName(snapshot.repo, snapshot.issue) },
      "lease restored from its claim comment",
    );
    return own.marker.tokenDigest!;
  }
}

/** What restoring one claim comment did (see restoreClaimRecord). */
export type RestoredClaim = "restored" | "unknown" | ClaimRecord;

/**
 * Invariant 7 for one claim comment: the record it stands for comes back — unless a person took
 * away the App-made assignment, or the claimed label, of the agent's claim it shows in force. Then
 * the claim was revoked
 * (docs/reference/github-surfaces.md#what-the-app-does-on-github-events) even if the store lost the
 * revocation before its write ended the comment: it comes back revoked as the App revokes it
 * (generation + 1 superseding it, its write pending for reconcile), never live. An assignment the App
 * itself removed (a late write of an older generation of the same login) revokes nothing.
 * One more read, only on this path: the issue's events say who removed it. Answers the
 * revoked record, or `unknown` (nothing restored) when the events cannot tell.
 */
export async function restoreClaimRecord(
  deps: {
    stores: { claims: Pick<ClaimStore, "restore" | "endClaim"> };
    assignments: Pick<AssignmentProvider, "lastEvidenceChange">;
    log: { info(fields: object, message: string): void };
  } & RevocationListeners,
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  comment: ClaimCommentEvidence,
  storeEpoch: number,
  now: number,
): Promise<RestoredClaim> {
  const { labels } = deps.configs?.peek(key.installationId, snapshot.repo) ?? defaultRepoConfig;
  const removal = await evidenceRemoval(deps.assignments, key, snapshot, comment, labels);
  if (removal === "unknown") {
    deps.log.info(
      { subject: subjectName(snapshot.repo, snapshot.issue), generation: comment.marker.generation },
      "claim not restored: its App-made assignment or claimed label is gone and the issue's history does not say who removed it",
    );
    return "unknown";
  }
  const record = recordFromMarker(key, snapshot, comment, storeEpoch, now);
  await deps.stores.claims.restore(record, now);
  if (removal === null) return "restored";
  const outcome = await deps.stores.claims.endClaim({
    key,
    generation: record.generation,
    now,
    to: "revoked",
    bump: true,
    by: { kind: "human", login: removal.by },
  });
  if (outcome.kind !== "ended") return "restored";
  deps.log.info(
    { subject: subjectName(snapshot.repo, snapshot.issue), generation: record.generation, by: removal.by },
    "claim restored revoked: a person removed its App-made assignment",
  );
  // Its write waits for reconcile, but the revocation is told now: the linked PRs' checks re-run.
  const config = deps.configs?.peek(key.installationId, snapshot.repo) ?? defaultRepoConfig;
  await deps.events?.transitioned(
    {
      cause: "revoked",
      at: now,
      record: outcome.record,
      previous: record,
      shownPullRequests: snapshot.openPullRequests.map((pr) => pr.number),
    },
    config,
  );
  return outcome.record;
}

/**
 * Who removed what showed an agent's claim in force on the issue, when GitHub no longer shows it:
 * its App-made assignment, or (the claim neither stale nor labelled) its claimed label. `{ by }` a
 * person, null when nothing was removed by a person (or the marker is not such a claim),
 * `unknown` when the issue's events do not reach that far.
 */
async function evidenceRemoval(
  assignments: Pick<AssignmentProvider, "lastEvidenceChange">,
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  { marker }: ClaimCommentEvidence,
  labels: { claimed: string; stale: string },
): Promise<{ by: string } | null | "unknown"> {
  if (!markerHolds(marker) || marker.actor.kind !== "agent") return null;
  const ref = { installationId: key.installationId, repo: snapshot.repo, issue: snapshot.issue };
  const login = marker.actor.login.toLowerCase();
  const missing: ClaimEvidence[] = [];
  if (marker.appAssigned === true && !snapshot.assignees.some((a) => a.login.toLowerCase() === login)) {
    missing.push({ assignee: marker.actor.login });
  }
  if (
    marker.state === "active" &&
    !snapshot.labels.includes(labels.claimed) &&
    !snapshot.labels.includes(labels.stale)
  ) {
    missing.push({ label: labels.claimed });
  }
  for (const evidence of missing) {
    const change = await assignments.lastEvidenceChange(ref, evidence);
    if (change.kind === "unknown") return "unknown";
    if (change.kind === "removed" && change.byPerson) return { by: change.by };
  }
  return null;
}

/**
 * Invariant 7 for a claim: the claim in force on GitHub comes back when the store has no record
 * of the subject — unless the store's history says it rolled that generation back. One record
 * read, and the history only when the store holds nothing as new as the marker or holds the
 * marker's generation ended. Answers whether the marker in force is such a rolled-back claim.
 */
export async function restoreUnlessRolledBack(
  deps: RestoreDeps,
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  latest: ClaimCommentEvidence | undefined,
  now: number,
): Promise<boolean | "unknown"> {
  const { stores } = deps;
  if (!latest || !markerHolds(latest.marker)) return false;
  const stored = await stores.claims.get(key);
  if (stored && stored.generation > latest.marker.generation) return false;
  // The same generation ended in the store while its marker holds: a rolled-back claim kept for
  // its late writes (`rollBack`), or an end not yet written; only the history tells them apart.
  if (stored?.generation === latest.marker.generation && stored.state === "active") return false;
  const history = await stores.claims.history(key);
  if (history.some((t) => t.kind === "rolled-back" && t.generation === latest.marker.generation)) return true;
  if (stored === null) {
    const epoch = await stores.claims.epoch(key.installationId, now);
    if ((await restoreClaimRecord(deps, key, snapshot, latest, epoch, now)) === "unknown") return "unknown";
  }
  return false;
}

/**
 * Who is told of a claim restored revoked (the lease core, reconcile). The merge fence's own
 * recovery tells nobody: it is evaluating the subject's checks already.
 */
type RevocationListeners = {
  events?: ClaimEvents;
  configs?: Pick<RepoConfigSource, "peek">;
};

/** What restoring a claim comment needs: the store, the issue's events, a log. */
type RestoreDeps = {
  stores: { claims: Pick<ClaimStore, "get" | "history" | "epoch" | "restore" | "endClaim"> };
  assignments: Pick<AssignmentProvider, "lastEvidenceChange">;
  log: { info(fields: object, message: string): void };
} & RevocationListeners;

/** Invariant 7 for a read: the claim in force on GitHub comes back when the store has no record of it. */
export async function restoreFromComment(
  deps: RestoreDeps,
  key: SubjectKey,
  snapshot: SubjectSnapshot,
  latest: ClaimCommentEvidence | undefined,
  now: number,
): Promise<void> {
  const { stores } = deps;
  if (!latest || !markerHolds(latest.marker)) return;
  if ((await stores.claims.get(key)) !== null) return;
  const epoch = await stores.claims.epoch(key.installationId, now);
  await restoreClaimRecord(deps, key, snapshot, latest, epoch, now);
}
