// Invariant 7 at the merge: a PR's linked subjects the store lost are read back from their signed claim comments before a verdict.
import type { RepoConfigSource } from "../config/config-source.js";
import type { SubjectKey } from "../domain/claim.js";
import { subjectName } from "../domain/claim.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import { restoreClaimRecord } from "../lease/recovery/recovery.js";
import { claimStateUnknown, latestMarker } from "../lease/recovery/restore-from-comments.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { FenceStore, IndexedPullRequest } from "../providers/fence-store.js";
import type { Stores } from "../providers/stores.js";

export interface SubjectRecoveryDeps {
  stores: Pick<Stores, "claims" | "documents">;
  fences: Pick<FenceStore, "recordClaim">;
  /** Reads a subject from GitHub; absent: nothing is recovered. */
  assignments?: Pick<AssignmentProvider, "status" | "lastEvidenceChange">;
  configs: Pick<RepoConfigSource, "load">;
  fleet?: FleetLogins;
  now: () => number;
  log: { info(fields: object, message: string): void };
}

/** A linked subject whose issue carries no claim comment is remembered as never claimed (saves a read). */
const neverClaimedMemoryMs = 30 * 24 * 3_600_000;

/**
 * Recovers what the store lost of a PR's linked subjects, the PR's own repository's and others'.
 * The steady state (records present, or remembered as never claimed) costs no GitHub read.
 */
export class SubjectRecovery {
  constructor(private readonly deps: SubjectRecoveryDeps) {}

  /** The PR's own repository's linked issues that GitHub shows claimed without a marker to explain it. */
  async linked(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
  ): Promise<Set<number>> {
    const unknown = new Set<number>();
    for (const issue of pr.linked) {
      if ((await this.subject(repo, { installationId, repoId, issue })) === "unknown") unknown.add(issue);
    }
    return unknown;
  }

  /** The same for the other repositories' issues the PR closes, as `repoId#issue`. */
  async foreign(installationId: number, pr: IndexedPullRequest): Promise<Set<string>> {
    const unknown = new Set<string>();
    for (const ref of pr.elsewhere ?? []) {
      const key: SubjectKey = { installationId, repoId: ref.repoId, issue: ref.issue };
      if ((await this.subject(ref.repo, key)) === "unknown") unknown.add(`${ref.repoId}#${ref.issue}`);
    }
    return unknown;
  }

  /** Whether an evaluation of these PRs reads GitHub beyond its one read (a linked subject to recover). */
  async needed(installationId: number, repoId: number, prs: readonly IndexedPullRequest[]): Promise<boolean> {
    const { stores, assignments } = this.deps;
    if (!assignments) return false;
    for (const pr of prs) {
      for (const issue of pr.linked) {
        if ((await stores.claims.get({ installationId, repoId, issue })) !== null) continue;
        if (
          (await stores.documents.getDocument(neverClaimedDocument({ installationId, repoId, issue }))) ===
          null
        )
          return true;
      }
    }
    return false;
  }

  /**
   * One subject the store has no record of, read from GitHub: its newest claim comment restores the
   * record (whatever its state), every signed claim comment restores the fence's memory of that
   * incarnation (who held it, on which branch) and the fleet logins it proves; `unknown` when GitHub
   * shows a claim no marker explains; `none` (remembered) when the issue was never claimed.
   */
  async subject(repo: string, key: SubjectKey): Promise<"known" | "none" | "unknown"> {
    const { stores, fences, assignments, configs, fleet, now: clock } = this.deps;
    if (!assignments) return "known";
    if ((await stores.claims.get(key)) !== null) return "known";
    const memo = neverClaimedDocument(key);
    if ((await stores.documents.getDocument(memo)) !== null) return "none";
    const snapshot = await assignments.status({ installationId: key.installationId, repo, issue: key.issue });
    const latest = snapshot ? latestMarker(snapshot) : undefined;
    if (snapshot) {
      const { labels } = await configs.load(key.installationId, snapshot.repo);
      if (claimStateUnknown(snapshot, [labels.claimed, labels.stale])) return "unknown";
    }
    if (!snapshot || !latest) {
      await stores.documents.putDocument(memo, { at: clock() }, neverClaimedMemoryMs);
      return "none";
    }
    const subject = subjectName(snapshot.repo, snapshot.issue);
    for (const { marker } of snapshot.claimComments) {
      if (marker.subject !== subject) continue;
      await fences.recordClaim(key, {
        generation: marker.generation,
        actor: marker.actor,
        ...(marker.branch ? { branch: marker.branch } : {}),
      });
      if (marker.actor.kind === "agent") await fleet?.learn(key.installationId, marker.actor.login);
    }
    const now = clock();
    const epoch = await stores.claims.epoch(key.installationId, now);
    // A claim whose App-made assignment a person removed comes back revoked; unknown who removed it: unknown.
    const restored = await restoreClaimRecord(
      { stores, assignments, log: this.deps.log },
      key,
      snapshot,
      latest,
      epoch,
      now,
    );
    if (restored === "unknown") return "unknown";
    this.deps.log.info({ subject }, "linked subject restored from its claim comments for the check");
    return "known";
  }
}

function neverClaimedDocument(key: SubjectKey): string {
  return `never-claimed:${key.installationId}:${key.repoId}:${key.issue}`;
}
