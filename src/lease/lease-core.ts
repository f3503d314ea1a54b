// The lease core: claim, heartbeat, release and verify, over the LivenessStore and AssignmentProvider interfaces.
import type { Logger } from "pino";
import { defaultRepoConfig, durationsOf, type RepoConfig } from "../config/repo-config.js";
import {
  type Actor,
  type ClaimRecord,
  leaseIdOf,
  parseLeaseId,
  type ReleaseOutcome,
  type SubjectKey,
  subjectName,
  type TaskClass,
} from "../domain/claim.js";
import type {
  AppliedWrite,
  AssignmentProvider,
  GitHubUser,
  SubjectRef,
  SubjectSnapshot,
  TransitionWrite,
} from "../providers/assignment-provider.js";
import type { HeartbeatInput, LeaseRefusal, LivenessStore } from "../providers/liveness-store.js";
import { branchCode, type ClaimMarker, type MarkerState, renderClaimComment } from "./claim-comment.js";
import { endedClaimWrite, spanOf } from "./ended-write.js";
import { UserError } from "./errors.js";
import { desiredWrite, fenceOf } from "./fenced-writes.js";
import type { HolderPermissions } from "./holder-permission.js";
import { describeActor, inert } from "./inert-text.js";
import { expiresAt, livenessOf, reclaimableAt } from "./liveness.js";
import {
  claimStateUnknown,
  highestGeneration,
  latestMarker,
  markerHolds,
  recordFromMarker,
} from "./restore-from-comments.js";
import { liveScopeOverlaps, type ScopeOverlap } from "./scope-overlap.js";
import { stateOfSubject } from "./subject-state.js";
import { digestsEqual, type TokenMinter } from "./tokens.js";

/** Where the lease core reads a repository's validated config (cached by the implementation). */
export interface RepoConfigSource {
  load(installationId: number, repo: string): Promise<RepoConfig>;
  /** The cached config if there is one; never calls GitHub (the heartbeat path must not). */
  peek(installationId: number, repo: string): RepoConfig | undefined;
}

export interface LeaseCoreDeps {
  store: LivenessStore;
  assignments: AssignmentProvider;
  configs: RepoConfigSource;
  tokens: TokenMinter;
  now: () => number;
  log: Logger;
  /**
   * Told after a subject changed hands through the core (claim, takeover, release), so the merge
   * fence re-runs linked PR checks. Its failure is logged, never undoes the transition.
   */
  subjectChanged?: (key: SubjectKey, record: ClaimRecord) => Promise<void>;
  /** Re-checks a holder's `write` permission at most every 10 minutes (SPEC §4.1); absent: never. */
  permissions?: HolderPermissions;
}

export interface ClaimRequest {
  installationId: number;
  repo: string;
  issue: number;
  user: GitHubUser;
  actor: { runtime?: string; sessionId: string; host?: string };
  taskClass: TaskClass;
  branch?: string;
  takeover: boolean;
  scope?: string[];
  artifacts?: string;
  /** The session's secret (`actor.sessionKey`): proof for a re-claim, kept only as a digest. */
  sessionKey?: string;
  /** The lease's current token sent as `leaseToken`: the other proof for a re-claim. */
  leaseToken?: string;
}

export interface LeaseView {
  id: string;
  subject: string;
  generation: number;
  token: string;
  taskClass: TaskClass;
  branch: string | null;
  ttlSeconds: number;
  heartbeatIntervalSeconds: number;
  expiresAt: string;
}

export type ClaimResult =
  | { status: 201 | 200; body: { lease: LeaseView; resume: ResumeView | null; overlaps: ScopeOverlap[] } }
  | { status: 202; body: { status: "takeover_pending"; retryAfterSeconds: number; incumbent: Actor } };

export interface ResumeView {
  previousActor: Actor;
  previousGeneration: number;
  branch: string | null;
  lastHeartbeatAt: string;
  linkedPullRequests: number[];
}

export interface HeartbeatRequest {
  phase?: string;
  pullRequest?: number;
  blocker?: string;
  waitUntil?: string;
}

const failedRecoveryMemoryMs = 5 * 60_000;

/** Phase changes edit the claim comment at most this often per subject. */
export const phaseEditEveryMs = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

export function slugOf(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40)
      .replace(/-+$/, "") || "work"
  );
}

function holderBody(record: ClaimRecord, now: number, takeoverPendingBy?: Actor): Record<string, unknown> {
  return {
    holder: record.actor,
    generation: record.generation,
    state:
      livenessOf(record, now) === "live"
        ? "active"
        : livenessOf(record, now) === "stale"
          ? "stale"
          : "reclaimable",
    lastHeartbeatAt: iso(record.lastHeartbeatAt),
    reclaimableAt: iso(reclaimableAt(record)),
    ...(takeoverPendingBy ? { takeoverPendingBy } : {}),
  };
}

/** The store's answer to a lease call, as the API's error. */
export function refusalError(refusal: LeaseRefusal): UserError {
  switch (refusal.kind) {
    case "superseded":
      if (refusal.rotatedAt !== undefined) {
        return new UserError(
          409,
          "superseded",
          "This lease token was replaced by a re-claim; only the newest token of the lease is valid.",
          {
            by: refusal.current.actor,
            generation: refusal.current.generation,
            at: iso(refusal.rotatedAt),
            reason: "rotated",
          },
        );
      }
      return new UserError(409, "superseded", "This lease was superseded; stop working on the subject.", {
        by: refusal.current.actor,
        generation: refusal.current.generation,
        at: iso(refusal.current.claimedAt),
      });
    case "gone":
      return new UserError(
        410,
        "gone",
        `This lease has ended (${refusal.reason}); claim the subject again.`,
        {
          reason: refusal.reason,
        },
      );
    case "invalid_token":
      return new UserError(401, "unauthorized", "The lease token is not valid for this lease.");
    case "missing":
      return new UserError(404, "not_found", "No such lease.");
  }
}

export class LeaseCore {
  /** Installations already recorded in the store's sweep list by this process. */
  readonly #knownInstallations = new Set<number>();
  /** Lease ids whose recovery from the claim comments failed, until when. */
  readonly #failedRecoveries = new Map<string, number>();

  constructor(private readonly deps: LeaseCoreDeps) {}

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const { store, assignments, configs, tokens, now: clock } = this.deps;
    const ref: SubjectRef = {
      installationId: request.installationId,
      repo: request.repo,
      issue: request.issue,
    };
    const snapshot = await assignments.status(ref);
    if (!snapshot) throw new UserError(404, "not_found", `${request.repo}#${request.issue} is not an issue.`);
    const subject = subjectName(snapshot.repo, snapshot.issue);
    if (snapshot.state === "closed") throw new UserError(409, "closed", `${subject} is closed.`);
    const config = await configs.load(request.installationId, snapshot.repo);
    // The API checked the claimant's `write` just now: the lease's first re-check is 10 minutes away.
    this.deps.permissions?.confirmed(request.installationId, snapshot.repo, request.user.login);
    const key: SubjectKey = {
      installationId: request.installationId,
      repoId: snapshot.repoId,
      issue: snapshot.issue,
    };
    const now = clock();
    const latest = latestMarker(snapshot);
    // Establishes the installation's epoch no later than its first claim (a fresh store's data begins here).
    await store.epoch(key.installationId, now);
    if (
      claimStateUnknown(snapshot, [config.labels.claimed, config.labels.stale]) &&
      (await store.get(key)) === null
    ) {
      throw new UserError(
        503,
        "claim_state_unknown",
        `${subject} shows a claim, but no claim comment of this App can be verified; nothing was changed. An operator can check the claim comments, or a maintainer can \`/reclaim release\` the issue.`,
      );
    }
    // A claim comment left by a claim that was rolled back (its write landed, its answer and the
    // check after it were lost) stands for no claim: it is not restored, and another login's
    // assignment is not removed on its word. Its App-made assignment of the claimant's own login is
    // taken over as App-made, so the new claim's release removes what that late write added.
    const ghost = await this.#restoreUnlessRolledBack(key, snapshot, latest, now);

    const appMadeLogin =
      latest &&
      markerHolds(latest.marker) &&
      latest.marker.appAssigned &&
      (!ghost || latest.marker.actor.login === request.user.login)
        ? latest.marker.actor.login
        : null;
    const foreign = snapshot.assignees.filter((a) => a.login !== appMadeLogin);
    if (foreign.some((a) => a.login !== request.user.login)) {
      throw new UserError(409, "human_held", `${subject} is assigned to someone the App did not assign.`, {
        assignees: foreign.map((a) => a.login),
      });
    }
    const appAssigned = !foreign.some((a) => a.login === request.user.login);

    const actor: Actor = { kind: "agent", login: request.user.login, ...request.actor };
    const resumable = latest && latest.marker.state !== "completed" ? latest.marker.branch : undefined;
    const branch =
      request.branch ??
      resumable ??
      `agent/${request.actor.sessionId}/${snapshot.issue}-${slugOf(snapshot.title)}`;
    const token = tokens.mint();
    const outcome = await store.claim({
      key,
      repo: snapshot.repo,
      actor,
      taskClass: request.taskClass,
      durations: durationsOf(config, request.taskClass),
      branch,
      ...(snapshot.title ? { title: snapshot.title } : {}),
      ...(request.scope ? { scope: request.scope } : {}),
      ...(request.artifacts ? { artifacts: request.artifacts } : {}),
      tokenDigest: tokens.digest(token),
      ...(request.sessionKey ? { sessionKeyDigest: tokens.sessionKeyDigest(request.sessionKey) } : {}),
      ...(request.leaseToken ? { leaseTokenDigest: tokens.digest(request.leaseToken) } : {}),
      takeover: request.takeover,
      now,
      minGeneration: highestGeneration(snapshot),
      appAssigned,
      issueNodeId: snapshot.nodeId,
      assigneeNodeId: request.user.nodeId,
      caps: { perSession: config.limits.claimsPerSession, perLogin: config.limits.claimsPerLogin },
    });

    switch (outcome.kind) {
      case "held":
        throw new UserError(409, "held", `${subject} is held by another session.`, {
          ...holderBody(outcome.current, now, outcome.takeoverPendingBy),
        });
      case "human_held":
        throw new UserError(409, "human_held", `${subject} is held by @${outcome.current.actor.login}.`, {
          holder: outcome.current.actor,
          generation: outcome.current.generation,
        });
      case "cap_reached":
        throw new UserError(
          409,
          "cap_reached",
          `This ${outcome.limit} already holds ${outcome.max} live claim(s).`,
          {
            limit: outcome.limit,
            max: outcome.max,
          },
        );
      case "takeover_pending":
        return {
          status: 202,
          body: {
            status: "takeover_pending",
            retryAfterSeconds: Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)),
            incumbent: outcome.current.actor,
          },
        };
      case "reclaimed": {
        // Invariant 14: the comment names the new token (store loss restores what it says), but the
        // store keeps the old token the lease's until this write has landed: a failed write (502)
        // leaves the new token pending, never valid, and the old one working.
        const tokenDigest = tokens.digest(token);
        const { pendingTokenDigest: _pending, ...rest } = outcome.record;
        const record: ClaimRecord = { ...rest, tokenDigest };
        // A claim whose own write never landed (the process died mid-claim, or GitHub answered
        // late) is completed now: comment, assignment and label; otherwise only the comment is edited.
        const own = snapshot.claimComments.find(
          (c) => c.marker.subject === subject && c.marker.generation === record.generation,
        );
        const commentNodeId = record.commentNodeId ?? own?.nodeId;
        const write: TransitionWrite = { subjectNodeId: snapshot.nodeId };
        if (commentNodeId) {
          write.editComments = [{ nodeId: commentNodeId, body: renderClaimComment(record, "active") }];
        } else {
          write.createClaimComment = renderClaimComment(record, "active");
        }
        // The full desired state (invariant 13): adds are idempotent, and a late write of an older
        // transition that stripped them is undone by this one.
        if (record.appAssigned) write.assign = [request.user.nodeId];
        write.addLabels = [config.labels.claimed];
        if (snapshot.labels.includes(config.labels.stale)) write.removeLabels = [config.labels.stale];
        let applied: AppliedWrite;
        try {
          applied = await this.#write(ref, record, write, config.labels);
        } catch (error) {
          // The answer may be lost although GitHub applied it: then the comment names the new token,
          // so that token is delivered (and promoted) — else a store loss would strand the holder.
          const landed = await this.#landedComment(ref, record);
          if (!landed) throw error;
          this.deps.log.warn({ subject }, "re-claim kept: GitHub applied it although the answer was lost");
          applied = { claimComment: landed, requests: 0 };
        }
        const comment =
          applied.claimComment ??
          (own && !record.commentNodeId ? { nodeId: own.nodeId, databaseId: own.databaseId } : undefined);
        const promoted = await store.commitReclaim({
          key,
          generation: record.generation,
          tokenDigest,
          now: clock(),
          ...(comment ? { comment: { commentNodeId: comment.nodeId, commentId: comment.databaseId } } : {}),
        });
        if (!promoted) {
          // A newer re-claim (or a release) got there first: this token never becomes valid.
          const current = await store.get(key);
          throw new UserError(
            409,
            "held",
            `${subject} changed while this re-claim was written; claim again.`,
            current ? holderBody(current, clock()) : {},
          );
        }
        // The rotated-out token's attestations no longer count: the linked PRs' checks re-run.
        await this.#announce(key, promoted);
        const overlaps = await this.#overlapsOf(promoted);
        return { status: 200, body: { lease: leaseView(key, promoted, token), resume: null, overlaps } };
      }
      case "created": {
        const { record, previous } = outcome;
        const write = this.#claimWrite(snapshot, record, previous, config, request.user, now, ghost);
        try {
          const applied = await assignments.apply(ref, write);
          const comment = applied.claimComment;
          if (comment)
            await store.commitClaim(key, record.generation, {
              commentNodeId: comment.nodeId,
              commentId: comment.databaseId,
            });
        } catch (error) {
          if (await this.#landedAnyway(ref, key, record)) {
            this.deps.log.warn(
              { subject, err: error },
              "claim kept: GitHub applied it although the answer was lost",
            );
          } else {
            await store.rollbackClaim(key, record.generation, previous, clock());
            await this.#compensate(ref, write, previous, config.labels, key);
            this.deps.log.warn({ subject, err: error }, "claim rolled back: GitHub refused the transition");
            throw new UserError(
              502,
              "github_failed",
              `GitHub refused the claim on ${subject}; nothing was kept, retry is safe.`,
            );
          }
        }
        await this.#announce(key, record);
        const resume =
          previous &&
          (previous.state === "active" || previous.outcome === "handoff" || previous.state === "reaped")
            ? resumeView(previous, snapshot.openPullRequests)
            : null;
        if (!this.#knownInstallations.has(key.installationId)) {
          await store.rememberInstallation(key.installationId);
          this.#knownInstallations.add(key.installationId);
        }
        const overlaps = await this.#overlapsOf(record);
        return { status: 201, body: { lease: leaseView(key, record, token), resume, overlaps } };
      }
    }
  }

  /**
   * Other live claims of the repository whose declared scope intersects this one's: a warning, never
   * a refusal. Costs one store read (the repository's records), never a GitHub request.
   */
  async #overlapsOf(record: ClaimRecord): Promise<ScopeOverlap[]> {
    if (!record.scope?.length) return [];
    const records = await this.deps.store.listRepository(record.installationId, record.repoId, 200);
    return liveScopeOverlaps(record.scope, record, records, this.deps.now());
  }

  #claimWrite(
    snapshot: SubjectSnapshot,
    record: ClaimRecord,
    previous: ClaimRecord | null,
    config: RepoConfig,
    user: GitHubUser,
    now: number,
    ghost: boolean,
  ): TransitionWrite {
    const write: TransitionWrite = {
      subjectNodeId: snapshot.nodeId,
      createClaimComment: renderClaimComment(record, "active"),
    };
    // Also when the previous claim ended but its own write never landed (`sync: pending`): its
    // App-made assignment is still on GitHub, and nothing else would remove it once this claim is active.
    const unassign =
      (previous?.state === "active" || (previous?.sync === "pending" && previous.actor.kind === "agent")) &&
      previous.appAssigned &&
      previous.actor.login !== user.login;
    if (unassign && previous.assigneeNodeId) write.unassign = [previous.assigneeNodeId];
    // The newest trusted claim comment may name an App-made assignment the store no longer knows of
    // (a claim rolled back after its write landed anyway): superseded now, so it goes too.
    const latest = latestMarker(snapshot)?.marker;
    const markedAppMade =
      !ghost && latest && markerHolds(latest) && latest.appAssigned && latest.actor.login !== user.login
        ? snapshot.assignees.find((a) => a.login === latest.actor.login)?.nodeId
        : undefined;
    if (markedAppMade) write.unassign = [...new Set([...(write.unassign ?? []), markedAppMade])];
    // The full desired state (invariant 13): a late release or reap of the previous incarnation
    // that lands first is undone; one that lands after is corrected by the write fence.
    if (record.appAssigned) write.assign = [user.nodeId];
    write.addLabels = [config.labels.claimed];
    write.fence = fenceOf(record, config.labels);
    if (snapshot.labels.includes(config.labels.stale)) write.removeLabels = [config.labels.stale];
    if (previous?.state === "active") {
      if (previous.commentNodeId) {
        write.editComments = [
          { nodeId: previous.commentNodeId, body: renderClaimComment(previous, "superseded") },
        ];
      }
      write.addComments = [
        `↪️ Superseded ${describe(previous.actor)} (generation ${previous.generation}, last seen ${spanOf(now - previous.lastHeartbeatAt)} ago)` +
          `; resuming on branch ${branchCode(record.branch ?? "")} as generation ${record.generation}.`,
      ];
    }
    return write;
  }

  #commentEdit(record: ClaimRecord, state: MarkerState): Pick<TransitionWrite, "editComments"> {
    return record.commentNodeId
      ? { editComments: [{ nodeId: record.commentNodeId, body: renderClaimComment(record, state) }] }
      : {};
  }

  /**
   * SPEC §4.1: a holder whose login lost `write` on the repository loses the lease: the claim is
   * revoked (generation + 1, so its PRs fail the check) and the call answers `410 gone revoked`.
   */
  async #requireWrite(lease: SubjectKey, record: ClaimRecord): Promise<void> {
    const { permissions, store, configs, assignments, now: clock, log } = this.deps;
    if (!permissions || record.actor.kind !== "agent") return;
    if (await permissions.stillAllowed(lease.installationId, record.repo, record.actor.login)) return;
    const ended = await store.endClaim({
      key: lease,
      generation: record.generation,
      now: clock(),
      to: "revoked",
      bump: true,
    });
    if (ended.kind === "ended") {
      const config = await configs.load(lease.installationId, record.repo);
      const ref = { installationId: lease.installationId, repo: record.repo, issue: record.issue };
      const note = `⛔ ${describeActor(record.actor)} lost write access to ${record.repo}; generation ${record.generation} is revoked.`;
      try {
        await assignments.apply(
          ref,
          endedClaimWrite({ previous: ended.previous, ended: ended.record, config, note }),
        );
        await store.markSynced(lease, ended.record.generation);
      } catch (error) {
        log.warn(
          { subject: subjectName(record.repo, record.issue), err: error },
          "revocation not written; reconcile will",
        );
      }
      await this.#announce(lease, ended.record);
    }
    throw new UserError(
      410,
      "gone",
      "This lease has ended (revoked): the holder no longer has write access.",
      {
        reason: "revoked",
      },
    );
  }

  async #write(
    ref: SubjectRef,
    record: ClaimRecord,
    write: TransitionWrite,
    labels: RepoConfig["labels"],
  ): Promise<AppliedWrite> {
    try {
      return await this.deps.assignments.apply(ref, { ...write, fence: fenceOf(record, labels) });
    } catch (error) {
      this.deps.log.warn(
        { subject: subjectName(record.repo, record.issue), err: error },
        "GitHub refused a claim update",
      );
      throw new UserError(
        502,
        "github_failed",
        `GitHub refused the update on ${subjectName(record.repo, record.issue)}; retry is safe.`,
      );
    }
  }

  async #announce(key: SubjectKey, record: ClaimRecord): Promise<void> {
    if (!this.deps.subjectChanged) return;
    const subjectKey = { installationId: key.installationId, repoId: key.repoId, issue: key.issue };
    try {
      await this.deps.subjectChanged(subjectKey, record);
    } catch (error) {
      this.deps.log.error(
        { subject: subjectName(record.repo, record.issue), err: error },
        "re-running the checks of linked pull requests failed",
      );
    }
  }

  /** Invariant 7: a live claim whose record the store lost comes back from its claim comment. */
  /**
   * Invariant 10: a mutation may land even when its answer is lost. One read tells: if this
   * generation's claim comment (with this token's digest) is there, the claim is committed, not undone.
   */
  async #landedAnyway(ref: SubjectRef, key: SubjectKey, record: ClaimRecord): Promise<boolean> {
    const comment = await this.#landedComment(ref, record);
    if (!comment) return false;
    try {
      await this.deps.store.commitClaim(key, record.generation, {
        commentNodeId: comment.nodeId,
        commentId: comment.databaseId,
      });
      return true;
    } catch {
      return false;
    }
  }

  /** The claim comment of `record`'s generation naming its token, if GitHub shows one (one read). */
  async #landedComment(
    ref: SubjectRef,
    record: ClaimRecord,
  ): Promise<{ nodeId: string; databaseId: number } | null> {
    try {
      const snapshot = await this.deps.assignments.status(ref);
      const comment = snapshot?.claimComments.find(
        (c) => c.marker.generation === record.generation && c.marker.tokenDigest === record.tokenDigest,
      );
      return comment ? { nodeId: comment.nodeId, databaseId: comment.databaseId } : null;
    } catch {
      return null;
    }
  }

  /**
   * Best effort after a rolled-back claim: undoes the writes that may have landed before the one that
   * failed (they run in order: unassign, labels, assign, edits, comments). What this cannot undo,
   * reconcile finds as a phantom.
   */
  async #compensate(
    ref: SubjectRef,
    write: TransitionWrite,
    previous: ClaimRecord | null,
    labels: RepoConfig["labels"],
    key: SubjectKey,
  ): Promise<void> {
    // GitHub back to what the restored record wants — the incumbent's label and assignment stay when
    // it holds the subject (a fleet shares one login) — and whatever else the failed write added goes.
    const held = previous?.state === "active" || previous?.state === "human";
    const kept = held && previous.appAssigned ? previous.assigneeNodeId : undefined;
    const desired = previous ? desiredWrite(previous, labels, write.subjectNodeId) : null;
    const unassign = (write.assign ?? []).filter((id) => id !== kept);
    const undo: TransitionWrite = {
      subjectNodeId: write.subjectNodeId,
      ...(unassign.length ? { unassign } : {}),
      ...(held ? { addLabels: desired?.addLabels ?? [] } : {}),
      removeLabels: held ? (desired?.removeLabels ?? []) : [labels.claimed],
      ...(write.unassign ? { assign: write.unassign } : {}),
      ...(previous && held && previous.commentNodeId && write.editComments
        ? { editComments: [{ nodeId: previous.commentNodeId, body: renderClaimComment(previous, "active") }] }
        : {}),
      fence: previous
        ? fenceOf(previous, labels)
        : { key, generation: 0, state: "revoked", stale: false, labels },
    };
    try {
      await this.deps.assignments.apply(ref, undo);
    } catch (error) {
      this.deps.log.warn(
        { subject: `${ref.repo}#${ref.issue}`, err: error },
        "could not undo a failed claim; reconcile will",
      );
    }
  }

  /**
   * Invariant 7 for a claim: the claim in force on GitHub comes back when the store has no record
   * of the subject — unless the store's history says it rolled that generation back. One record
   * read, and the history only when the store holds nothing as new as the marker. Answers whether
   * the marker in force is such a rolled-back claim.
   */
  async #restoreUnlessRolledBack(
    key: SubjectKey,
    snapshot: SubjectSnapshot,
    latest: { nodeId: string; databaseId: number; marker: ClaimMarker } | undefined,
    now: number,
  ): Promise<boolean> {
    const { store } = this.deps;
    if (!latest || !markerHolds(latest.marker)) return false;
    const stored = await store.get(key);
    if (stored && stored.generation >= latest.marker.generation) return false;
    const history = await store.history(key);
    if (history.some((t) => t.kind === "rolled-back" && t.generation === latest.marker.generation))
      return true;
    if (stored === null) {
      const epoch = await store.epoch(key.installationId, now);
      await store.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
    }
    return false;
  }

  async #restoreFromComment(
    key: SubjectKey,
    snapshot: SubjectSnapshot,
    latest: { nodeId: string; databaseId: number; marker: ClaimMarker } | undefined,
    now: number,
  ): Promise<void> {
    if (!latest || !markerHolds(latest.marker)) return;
    if ((await this.deps.store.get(key)) !== null) return;
    const epoch = await this.deps.store.epoch(key.installationId, now);
    await this.deps.store.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
  }

  /**
   * Invariant 7: the store lost a subject. When the claim comment of the lease's generation
   * publishes this token's digest, the lease comes back — and so does whatever newer incarnation the
   * comments show, in its own state, so the old holder is told the truth (`superseded`, `gone`) and
   * an ended incarnation never revives. Only a store with no record of the subject at all asks GitHub,
   * and a failed recovery is remembered for a while, so guessed lease ids cannot spend the App's quota.
   */
  /** A lease call whose subject the store lost is answered again once the lease is recovered. */
  async #withRecovery<T extends { kind: string }>(
    lease: SubjectKey & { generation: number },
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
  async #recoverLease(lease: SubjectKey & { generation: number }, digests: string[]): Promise<string | null> {
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

  async heartbeat(
    leaseId: string,
    token: string,
    request: HeartbeatRequest,
  ): Promise<Record<string, unknown>> {
    const { store, tokens, configs, now: clock } = this.deps;
    const lease = parseLeaseOrThrow(leaseId);
    const now = clock();
    const requestedWait = request.waitUntil ? Date.parse(request.waitUntil) : undefined;
    // A reported wait keeps the holder live (takeover, janitor) only up to `maxWait` from now.
    const capWait = (maxWaitMs: number) =>
      requestedWait === undefined ? undefined : Math.min(requestedWait, now + maxWaitMs);
    const waitUntil = capWait(defaultRepoConfig.maxWait);
    const input: HeartbeatInput = {
      key: lease,
      generation: lease.generation,
      tokenDigest: tokens.digest(token),
      now,
      ...(request.phase !== undefined ? { phase: request.phase } : {}),
      ...(request.blocker !== undefined ? { blocker: request.blocker } : {}),
      ...(waitUntil !== undefined ? { waitUntil } : {}),
      ...(request.pullRequest !== undefined ? { pullRequest: request.pullRequest } : {}),
      phaseEditEveryMs,
    };
    // The digest that proved the lease stays in `input` for the durations refresh below.
    let outcome = await this.#withRecovery(lease, token, (digest) =>
      store.heartbeat(Object.assign(input, { tokenDigest: digest })),
    );
    if (outcome.kind === "ok") {
      // A config change reaches a claim at its next heartbeat; only then is a second store call made.
      const config = configs.peek(lease.installationId, outcome.record.repo);
      const wanted = config ? durationsOf(config, outcome.record.taskClass) : undefined;
      const wait = config ? capWait(config.maxWait) : undefined;
      const shorterWait = wait !== undefined && wait !== input.waitUntil;
      if (wanted && (!sameDurations(wanted, outcome.record.durations) || shorterWait)) {
        const again = await store.heartbeat({
          ...input,
          durations: wanted,
          ...(wait !== undefined ? { waitUntil: wait } : {}),
        });
        if (again.kind === "ok")
          outcome = { ...again, editComment: outcome.editComment || again.editComment };
      }
    }
    if (outcome.kind !== "ok") throw refusalError(outcome);
    const record = outcome.record;
    await this.#requireWrite(lease, record);
    if (outcome.editComment) {
      const labels = (
        configs.peek(lease.installationId, record.repo) ??
        (await configs.load(lease.installationId, record.repo))
      ).labels;
      // The heartbeat itself succeeded; a failed cosmetic update is logged and left to reconcile.
      await this.#write(
        { installationId: lease.installationId, repo: record.repo, issue: record.issue },
        record,
        {
          subjectNodeId: record.issueNodeId ?? "",
          ...this.#commentEdit(record, "active"),
          addLabels: [labels.claimed],
          removeLabels: [labels.stale],
        },
        labels,
      ).catch((error: unknown) => {
        this.deps.log.warn(
          { subject: subjectName(record.repo, record.issue), err: error },
          "claim comment not updated",
        );
      });
    }
    const waiting = record.waitUntil !== undefined && record.waitUntil > clock();
    return {
      generation: record.generation,
      expiresAt: iso(expiresAt(record)),
      state: waiting ? "waiting" : "active",
    };
  }

  async release(
    leaseId: string,
    token: string,
    request: { outcome: ReleaseOutcome; note?: string },
  ): Promise<Record<string, unknown>> {
    const { store, tokens, configs, now: clock } = this.deps;
    const lease = parseLeaseOrThrow(leaseId);
    const input = {
      key: lease,
      generation: lease.generation,
      tokenDigest: tokens.digest(token),
      now: clock(),
      outcome: request.outcome,
    };
    const outcome = await this.#withRecovery(lease, token, (digest) =>
      store.release({ ...input, tokenDigest: digest }),
    );
    if (outcome.kind !== "released") throw refusalError(outcome);
    const record = outcome.record;
    if (record.sync === "pending") {
      const config = await configs.load(lease.installationId, record.repo);
      const write: TransitionWrite = {
        subjectNodeId: record.issueNodeId ?? "",
        removeLabels: [config.labels.claimed, config.labels.stale],
        ...this.#commentEdit(record, record.state === "completed" ? "completed" : "released"),
      };
      if (record.appAssigned && record.assigneeNodeId) write.unassign = [record.assigneeNodeId];
      const note = request.note?.trim();
      if (note || record.outcome === "handoff") {
        write.addComments = [
          `📝 ${describe(record.actor)} released generation ${record.generation} (${record.outcome})` +
            (record.branch ? ` · branch ${branchCode(record.branch)}` : "") +
            (note ? `\n\n> ${inert(note, { multiline: true, max: 4000 }).replace(/\n/g, "\n> ")}` : ""),
        ];
      }
      await this.#write(
        { installationId: lease.installationId, repo: record.repo, issue: record.issue },
        record,
        write,
        config.labels,
      );
      await store.markSynced(lease, record.generation);
      await this.#announce(lease, record);
    }
    return { released: true, outcome: record.outcome, generation: record.generation };
  }

  /** One subject's joined state (store ⋈ GitHub) with its claim history. */
  async subject(installationId: number, repo: string, issue: number): Promise<Record<string, unknown>> {
    const { store, assignments, now: clock } = this.deps;
    const snapshot = await assignments.status({ installationId, repo, issue });
    if (!snapshot) throw new UserError(404, "not_found", `${repo}#${issue} is not an issue.`);
    const key: SubjectKey = { installationId, repoId: snapshot.repoId, issue: snapshot.issue };
    const now = clock();
    await this.#restoreFromComment(key, snapshot, latestMarker(snapshot), now);
    const [record, history, epoch, config] = await Promise.all([
      store.get(key),
      store.history(key),
      store.epoch(installationId, now),
      this.deps.configs.load(installationId, snapshot.repo),
    ]);
    const overlaps = record?.state === "active" ? await this.#overlapsOf(record) : [];
    return {
      ...this.row(snapshot, record, epoch, config, overlaps),
      history: history.map((t) => ({ ...t, at: iso(t.at) })),
    };
  }

  /**
   * The inventory (SPEC §4.2): the store's claims of a repository joined with one bounded read of
   * its open issues (those assigned or carrying a managed label), newest activity first.
   */
  async inventory(
    installationId: number,
    repo: string,
    options: { state?: string; limit: number },
  ): Promise<{ claims: Record<string, unknown>[]; truncated: boolean }> {
    const { store, assignments, configs, now: clock } = this.deps;
    const [config, listing] = await Promise.all([
      configs.load(installationId, repo),
      assignments.listOpenIssues({ installationId, repo }, { first: 100 }),
    ]);
    if (listing.repoId === null) throw new UserError(404, "not_found", `No repository ${repo}.`);
    const now = clock();
    const [records, epoch] = await Promise.all([
      store.listRepository(installationId, listing.repoId, 200),
      store.epoch(installationId, now),
    ]);
    const byIssue = new Map(records.map((r) => [r.issue, r]));
    const overlapsOf = (record: ClaimRecord | null) =>
      record?.state === "active" && livenessOf(record, now) === "live"
        ? liveScopeOverlaps(record.scope, record, records, now)
        : [];
    const managed = [config.labels.claimed, config.labels.stale];
    const rows: { activity: number; row: Record<string, unknown> }[] = [];
    const seen = new Set<number>();
    for (const snapshot of listing.issues) {
      const record = byIssue.get(snapshot.issue) ?? null;
      const relevant =
        record || snapshot.assignees.length > 0 || snapshot.labels.some((l) => managed.includes(l));
      if (!relevant) continue;
      seen.add(snapshot.issue);
      rows.push({
        activity: activityOf(record, snapshot.updatedAt),
        row: this.row(snapshot, record, epoch, config, overlapsOf(record)),
      });
    }
    for (const record of records) {
      if (seen.has(record.issue) || (record.state !== "active" && record.state !== "human")) continue;
      rows.push({
        activity: activityOf(record, 0),
        row: this.row(null, record, epoch, config, overlapsOf(record)),
      });
    }
    const filtered = rows
      .filter(({ row }) => !options.state || row.state === options.state)
      .sort((a, b) => b.activity - a.activity);
    return {
      claims: filtered.slice(0, options.limit).map(({ row }) => row),
      truncated: filtered.length > options.limit || listing.hasNextPage,
    };
  }

  /**
   * The inventory row of one subject (SPEC §2.2); without a snapshot, GitHub's side is unknown.
   * `overlaps` (other live claims whose declared scope intersects this one's) add the reason
   * `scope-overlap` and an `overlaps` field; rows without any carry neither.
   */
  row(
    snapshot: SubjectSnapshot | null,
    record: ClaimRecord | null,
    storeEpoch: number,
    config: RepoConfig,
    overlaps: readonly ScopeOverlap[] = [],
  ): Record<string, unknown> {
    const now = this.deps.now();
    const derived = stateOfSubject(snapshot, record, storeEpoch, now, config);
    const { state } = derived;
    const reasons = overlaps.length > 0 ? [...derived.reasons, "scope-overlap"] : derived.reasons;
    const repo = snapshot?.repo ?? record?.repo ?? "";
    const issue = snapshot?.issue ?? record?.issue ?? 0;
    return {
      subject: subjectName(repo, issue),
      title: snapshot?.title ?? record?.title ?? null,
      state,
      reasons,
      actor: record?.actor ?? null,
      generation: record?.generation ?? null,
      taskClass: record?.taskClass ?? null,
      branch: record?.branch ?? null,
      claimedAt: record ? iso(record.claimedAt) : null,
      lastHeartbeatAt: record ? iso(record.lastHeartbeatAt) : null,
      expiresAt: record?.state === "active" ? iso(expiresAt(record)) : null,
      phase: record?.phase ?? null,
      blocker: record?.blocker ?? null,
      linkedPullRequests: snapshot?.openPullRequests.map((pr) => pr.number) ?? [],
      claimAgeSeconds: record ? Math.max(0, Math.round((now - record.claimedAt) / 1000)) : null,
      assignees: snapshot ? snapshot.assignees.map((a) => a.login) : null,
      ...(overlaps.length > 0 ? { scope: record?.scope ?? [], overlaps } : {}),
    };
  }

  async verify(leaseId: string, token: string): Promise<Record<string, unknown>> {
    const { store, tokens, now: clock } = this.deps;
    const lease = parseLeaseOrThrow(leaseId);
    const input = {
      key: lease,
      generation: lease.generation,
      tokenDigest: tokens.digest(token),
      now: clock(),
    };
    const outcome = await this.#withRecovery(lease, token, (digest) =>
      store.verify({ ...input, tokenDigest: digest }),
    );
    if (outcome.kind !== "ok") throw refusalError(outcome);
    const record = outcome.record;
    await this.#requireWrite(lease, record);
    return {
      holder: true,
      generation: record.generation,
      state: livenessOf(record, clock()) === "live" ? "active" : "stale",
      expiresAt: iso(expiresAt(record)),
    };
  }
}

function parseLeaseOrThrow(leaseId: string) {
  const lease = parseLeaseId(leaseId);
  if (!lease) throw new UserError(404, "not_found", "No such lease.");
  return lease;
}

function activityOf(record: ClaimRecord | null, updatedAt: number): number {
  return Math.max(updatedAt, record?.lastHeartbeatAt ?? 0, record?.claimedAt ?? 0, record?.endedAt ?? 0);
}

function sameDurations(a: ClaimRecord["durations"], b: ClaimRecord["durations"]): boolean {
  return a.ttlMs === b.ttlMs && a.reclaimAfterMs === b.reclaimAfterMs && a.heartbeatMs === b.heartbeatMs;
}

/** An actor in an audit comment: its agent-chosen parts are inert (invariant 11). */
export const describe = describeActor;

function leaseView(key: SubjectKey, record: ClaimRecord, token: string): LeaseView {
  return {
    id: leaseIdOf(key, record.generation),
    subject: subjectName(record.repo, record.issue),
    generation: record.generation,
    token,
    taskClass: record.taskClass,
    branch: record.branch ?? null,
    ttlSeconds: Math.round(record.durations.ttlMs / 1000),
    heartbeatIntervalSeconds: Math.round(record.durations.heartbeatMs / 1000),
    expiresAt: iso(expiresAt(record)),
  };
}

/** The PRs the successor inherits: the one the incumbent reported and the open ones GitHub links to the subject. */
function resumeView(previous: ClaimRecord, openPullRequests: { number: number }[]): ResumeView {
  const linked = new Set([...(previous.pullRequest ? [previous.pullRequest] : [])]);
  for (const pr of openPullRequests) linked.add(pr.number);
  return {
    previousActor: previous.actor,
    previousGeneration: previous.generation,
    branch: previous.branch ?? null,
    lastHeartbeatAt: iso(previous.lastHeartbeatAt),
    linkedPullRequests: [...linked],
  };
}
