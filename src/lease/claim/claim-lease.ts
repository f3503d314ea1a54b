// The claim flow (docs/reference/http-api.md#post-apiv1claims--claim-re-claim-or-take-over): read the subject, decide, write the store, then GitHub.

import { breakerSettingsOf, durationsOf, type RepoConfig, stallOf } from "../../config/repo-config.js";
import { type ClaimRecord, type SubjectKey, subjectName } from "../../domain/claim.js";
import { breakerOf } from "../../domain/failure-breaker.js";
import { agentBranchPatterns } from "../../domain/trust.js";
import type {
  AppliedWrite,
  ClaimCommentEvidence,
  SubjectRef,
  SubjectSnapshot,
} from "../../providers/assignment-provider.js";
import type { ClaimInput, ClaimOutcome as StoreClaimOutcome } from "../../providers/liveness-store.js";
import { definitelyRefused } from "../../providers/refused-write.js";
import { publishLeaseEvents, takeoverPendingEvent } from "../lease-events.js";
import {
  type ClaimOutcome,
  type ClaimRequest,
  leaseView,
  type PickCheck,
  type PickOutcome,
  resumeView,
} from "../outcomes.js";
import type { LeaseCoreDeps } from "../ports.js";
import { overlapsOf } from "../reads/lease-reads.js";
import { restoreUnlessRolledBack } from "../recovery/recovery.js";
import { claimStateUnknown, highestGeneration, latestMarker } from "../recovery/restore-from-comments.js";
import { LeaseRefused, refused } from "../refusals.js";
import {
  applyAndCommit,
  landedAnyway,
  landedComment,
  rollBack,
  writeFenced,
} from "../transitions/commit-transition.js";
import { finishEnded } from "../transitions/end-claim.js";
import { writeLockHoldMs, writeLockOwner } from "../transitions/fenced-writes.js";
import { capabilityRefusal } from "./capability-refusal.js";
import { fleetAssigneesOf, refuseDuplicateWork } from "./claim-evidence.js";
import { claimWrite, reclaimWrite } from "./claim-writes.js";
import {
  type ClaimPlan,
  claimStateUnknownRefusal,
  decideClaim,
  overtakenRefusal,
  storeRefusal,
  unclaimable,
} from "./decide-claim.js";
import { observedFacts, pickRecheck } from "./duplicate-work.js";
import { failingRefusal, stalledTakeoverNote } from "./failing-refusal.js";
import { RememberedRepoIds } from "./remembered-repo-ids.js";

/** The subject as one claim found it: GitHub's side, its config, and the store brought up to date. */
interface SubjectRead {
  request: ClaimRequest;
  ref: SubjectRef;
  key: SubjectKey;
  snapshot: SubjectSnapshot;
  config: RepoConfig;
  subject: string;
  now: number;
  latest: ClaimCommentEvidence | undefined;
  /** The claim comment in force belongs to a claim the store rolled back (see `decideClaim`). */
  ghost: boolean;
}

/** What one claim works on once the store answered: the subject as read, and the minted token. */
interface ClaimContext extends SubjectRead {
  token: string;
  /** Lower-cased fleet logins among the assignees (decideClaim's, and the write's, evidence). */
  fleetAssignees: ReadonlySet<string>;
  /** Who takes the subject's write lock with a new generation. */
  writeLockOwner: string;
}

export class ClaimLease {
  /** Installations already recorded in the store's sweep list by this process. */
  readonly #knownInstallations = new Set<number>();
  /** The repository ids the forge's reads answered: the previous claim's branch is read before the forge is. */
  readonly #repoIds = new RememberedRepoIds();

  constructor(private readonly deps: LeaseCoreDeps) {}

  async claim(request: ClaimRequest): Promise<ClaimOutcome> {
    const read = await this.#readSubject(request);
    const { fleetAssignees, decision } = await this.#decide(read);
    if (decision.kind === "refused") throw refused(decision.refusal);
    const lacking = capabilityRefusal({
      declared: request.capabilities,
      snapshot: read.snapshot,
      prefix: read.config.queue.capabilityPrefix,
    });
    if (lacking) throw refused(lacking);
    if (!request.override) await this.#refuseFailing(read);
    await refuseDuplicateWork(this.deps, read);
    return this.#take(read, decision.plan, fleetAssignees);
  }

  /**
   * `claims/next`'s claim of a picked candidate: the same read and answers, and the candidate (as the
   * index held it) re-checked against that read, since the index may be stale.
   */
  async claimPicked(request: ClaimRequest, pick: PickCheck): Promise<PickOutcome> {
    let read: SubjectRead;
    try {
      read = await this.#readSubject(request);
    } catch (error) {
      // A picked issue that closed (or went) since it was indexed leaves the index.
      if (error instanceof LeaseRefused && ["closed", "not_found"].includes(error.code)) {
        return { kind: "ineligible", reason: "closed", observed: null };
      }
      throw error;
    }
    const { fleetAssignees, decision } = await this.#decide(read);
    if (decision.kind === "refused") {
      if (decision.refusal.code === "human_held") {
        return { kind: "ineligible", reason: "human", observed: observedFacts(read.snapshot, pick.facts) };
      }
      throw refused(decision.refusal);
    }
    const stale = pickRecheck(read.snapshot, pick, request.user.login, read.now);
    if (stale) return { kind: "ineligible", reason: stale.reason, observed: stale.facts };
    return { kind: "claimed", claim: await this.#take(read, decision.plan, fleetAssignees) };
  }

  /**
   * A subject whose failure breaker tripped refuses a direct claim (`409 failing`) before the other
   * checks; a claim on an active record (a re-claim, a takeover) is the store's to decide, so it is
   * let through. The claim script decides again in its own step (`tripped`, and a stalled takeover
   * whose counted failure trips it, `failing`), so a trip since this read still refuses.
   */
  async #refuseFailing(read: SubjectRead): Promise<void> {
    const { claims } = this.deps.stores;
    // The steady state (no failure) is one read; the record is read only for a subject that failed.
    const attempts = await claims.failures(read.key);
    if (attempts.length === 0) return;
    const refusal = failingRefusal(
      read.subject,
      breakerOf(attempts, breakerSettingsOf(read.config), read.now),
    );
    if (refusal && (await claims.get(read.key))?.state !== "active") throw refused(refusal);
  }

  /** decideClaim over the read, with the fleet logins among its assignees. */
  async #decide(read: SubjectRead) {
    const fleetAssignees = await fleetAssigneesOf(this.deps, read);
    const decision = decideClaim({
      request: read.request,
      snapshot: read.snapshot,
      latest: read.latest,
      ghost: read.ghost,
      agentBranches: agentBranchPatterns(read.config.check),
      fleetAssignees,
    });
    return { fleetAssignees, decision };
  }

  /** The store's claim, then GitHub's write: a claim that passed every check. */
  async #take(read: SubjectRead, plan: ClaimPlan, fleetAssignees: Set<string>): Promise<ClaimOutcome> {
    const { stores, tokens } = this.deps;
    const { subject, now } = read;
    const token = tokens.mint();
    // A new generation takes the subject's write lock for its GitHub write in the same store call.
    const writeLock = { owner: writeLockOwner(), ttlMs: writeLockHoldMs };
    const outcome = await stores.claims.claim({ ...this.#claimInput(read, plan, token), writeLock });
    const context: ClaimContext = { ...read, token, fleetAssignees, writeLockOwner: writeLock.owner };
    switch (outcome.kind) {
      case "held":
      case "human_held":
      case "cap_reached":
        throw refused(storeRefusal(outcome, subject, now));
      case "takeover_pending":
        // Best-effort and not awaited: the incumbent's stream hears its grace beat is due now.
        void publishLeaseEvents(this.deps.leaseEvents, this.deps.log, [
          takeoverPendingEvent(outcome.current, outcome.retryAfterMs, now),
        ]);
        return {
          kind: "takeover_pending",
          retryAfterSeconds: Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)),
          incumbent: outcome.current.actor,
        };
      case "reclaimed":
        return this.#completeReclaim(context, outcome.record);
      case "created":
        return this.#completeClaim(context, outcome);
      case "failing":
        return this.#tripOnTakeover(read, outcome);
      case "tripped":
        // The breaker tripped since the read (another replica's end), or the pick never read it.
        throw refused(failingRefusal(read.subject, { kind: "tripped", failures: outcome.failures })!);
    }
  }

  /**
   * A stalled takeover whose attempt tripped the failure breaker (no `override`): the store ended the
   * stalled generation; its ended write carries the trip (label and summary), and the claim is
   * refused `409 failing` — the subject leaves the queue for a person.
   */
  async #tripOnTakeover(
    read: SubjectRead,
    outcome: Extract<StoreClaimOutcome, { kind: "failing" }>,
  ): Promise<never> {
    const { previous, record, failures } = outcome;
    await finishEnded(this.deps, {
      key: read.key,
      ref: read.ref,
      config: read.config,
      ended: { previous, record },
      cause: "reaped",
      at: read.now,
      note: stalledTakeoverNote(previous, read.now),
      failures,
    });
    throw refused(failingRefusal(read.subject, { kind: "tripped", failures: failures.length })!);
  }

  /** The branch of the subject's last claim, when the repository's id is known and the store knows the subject. */
  async #previousBranch(request: ClaimRequest): Promise<string | undefined> {
    const repoId = await this.#repoIdOf(request.installationId, request.repo);
    if (repoId === undefined) return undefined;
    const key = { installationId: request.installationId, repoId, issue: request.issue };
    return (await this.deps.stores.claims.get(key))?.branch;
  }

  /** A repository's id: as GitHub's read of an earlier claim here answered it, else as the candidate index has it. */
  async #repoIdOf(installationId: number, repo: string): Promise<number | undefined> {
    const known = this.#repoIds.get(installationId, repo);
    if (known !== undefined) return known;
    return (await this.deps.candidates?.repoOf(installationId, repo))?.repoId;
  }

  /** Remembers the repository's id GitHub answered for the name a claim asked for (bounded). */
  #rememberRepoId(request: ClaimRequest, repoId: number): void {
    this.#repoIds.remember(request.installationId, request.repo, repoId);
  }

  /**
   * One read of the subject and its config; the store's epoch, and the claim in force on GitHub
   * restored when the store lost it. Refuses what cannot be claimed whoever asks.
   */
  async #readSubject(request: ClaimRequest): Promise<SubjectRead> {
    const { stores, assignments, configs, now: clock } = this.deps;
    const ref: SubjectRef = {
      installationId: request.installationId,
      repo: request.repo,
      issue: request.issue,
    };
    // The asked-for branch's open PRs come with the same read (`409 branch_taken`); without one, the
    // previous claim's branch (the one a claim would resume), so resuming never takes another's PR.
    const branch = request.branch ?? (await this.#previousBranch(request));
    const snapshot = await assignments.status(ref, branch ? { branch } : {});
    const refusal = unclaimable(request, snapshot);
    // `unclaimable` refuses a missing issue, so a snapshot is there past this line.
    if (refusal || !snapshot) throw refused(refusal!);
    this.#rememberRepoId(request, snapshot.repoId);
    const subject = subjectName(snapshot.repo, snapshot.issue);
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
    // The installation's epoch is set by the store's claim itself (no later than its first claim).
    if (
      claimStateUnknown(snapshot, [config.labels.claimed, config.labels.stale]) &&
      (await stores.claims.get(key)) === null
    ) {
      throw refused(claimStateUnknownRefusal(subject));
    }
    const ghost = await restoreUnlessRolledBack(this.deps, key, snapshot, latest, now);
    // A claim comment in force whose App-made assignment is gone, and GitHub cannot say who removed it.
    if (ghost === "unknown") throw refused(claimStateUnknownRefusal(subject));
    return { request, ref, key, snapshot, config, subject, now, latest, ghost };
  }

  /** The store's claim transition for `plan`, with the token's digest and the session's proofs. */
  #claimInput(read: SubjectRead, plan: ClaimPlan, token: string): ClaimInput {
    const { tokens } = this.deps;
    const { request, snapshot, config } = read;
    const stall = stallOf(config, request.taskClass);
    return {
      key: read.key,
      repo: snapshot.repo,
      actor: plan.actor,
      taskClass: request.taskClass,
      durations: durationsOf(config, request.taskClass),
      ...(stall ? { stall } : {}),
      branch: plan.branch,
      ...(snapshot.title ? { title: snapshot.title } : {}),
      ...(request.scope ? { scope: request.scope } : {}),
      ...(request.artifacts ? { artifacts: request.artifacts } : {}),
      tokenDigest: tokens.digest(token),
      ...(request.sessionKey ? { sessionKeyDigest: tokens.sessionKeyDigest(request.sessionKey) } : {}),
      ...(request.leaseToken ? { leaseTokenDigest: tokens.digest(request.leaseToken) } : {}),
      takeover: request.takeover,
      now: read.now,
      minGeneration: highestGeneration(snapshot),
      appAssigned: plan.appAssigned,
      issueNodeId: snapshot.nodeId,
      assigneeNodeId: request.user.nodeId,
      caps: { perSession: config.limits.claimsPerSession, perLogin: config.limits.claimsPerLogin },
      breaker: { maxFailures: config.queue.maxFailures, override: request.override === true },
    };
  }

  /**
   * Invariant 14: the comment names the new token (store loss restores what it says), but the store
   * keeps the old token the lease's until this write has landed: a failed write (502) leaves the new
   * token pending, never valid, and the old one working.
   */
  async #completeReclaim(context: ClaimContext, reclaimed: ClaimRecord): Promise<ClaimOutcome> {
    const { stores, tokens, now: clock, log } = this.deps;
    const { ref, key, snapshot, config, subject, token } = context;
    const tokenDigest = tokens.digest(token);
    const { pendingTokenDigest: _pending, ...rest } = reclaimed;
    const record: ClaimRecord = { ...rest, tokenDigest };
    const { write, own } = reclaimWrite(snapshot, record, config, context.request.user);
    let applied: AppliedWrite;
    try {
      applied = await writeFenced(this.deps, ref, record, write, config.labels);
    } catch (error) {
      // The answer may be lost although GitHub applied it: then the comment names the new token,
      // so that token is delivered (and promoted) — else a store loss would strand the holder.
      const landed = await landedComment(this.deps.assignments, ref, record);
      if (!landed) throw error;
      log.warn({ subject }, "re-claim kept: GitHub applied it although the answer was lost");
      applied = { claimComment: landed, requests: 0 };
    }
    const comment =
      applied.claimComment ??
      (own && !record.commentNodeId ? { nodeId: own.nodeId, databaseId: own.databaseId } : undefined);
    const promoted = await stores.claims.commitReclaim({
      key,
      generation: record.generation,
      tokenDigest,
      now: clock(),
      ...(comment ? { comment: { commentNodeId: comment.nodeId, commentId: comment.databaseId } } : {}),
    });
    if (!promoted) {
      // A newer re-claim (or a release) got there first: this token never becomes valid.
      const current = await stores.claims.get(key);
      throw refused(overtakenRefusal(subject, current, clock()));
    }
    // The rotated-out token's attestations no longer count: the linked PRs' checks re-run.
    void this.deps.events.transitioned(
      { cause: "token-rotated", at: clock(), record: promoted, previous: reclaimed },
      config,
    );
    const overlaps = await overlapsOf(this.deps, promoted);
    return { kind: "reclaimed", lease: leaseView(key, promoted, token), overlaps };
  }

  /** A new incarnation: GitHub's write, committed — or rolled back unless it landed anyway. */
  async #completeClaim(
    context: ClaimContext,
    created: Extract<StoreClaimOutcome, { kind: "created" }>,
  ): Promise<ClaimOutcome> {
    const { stores, now: clock, log } = this.deps;
    const { ref, key, snapshot, config, subject, token, now, ghost } = context;
    const { record, previous } = created;
    const write = claimWrite(snapshot, record, previous, config, context.request.user, now, ghost);
    if (created.writeLocked && write.fence)
      write.fence = { ...write.fence, lockedBy: context.writeLockOwner };
    try {
      await applyAndCommit(this.deps, ref, key, record.generation, write);
    } catch (error) {
      if (await landedAnyway(this.deps, ref, key, record)) {
        log.warn({ subject, err: error }, "claim kept: GitHub applied it although the answer was lost");
      } else {
        const unsure = !definitelyRefused(error);
        await rollBack(this.deps, ref, key, { record, previous, write, now: clock(), unsure }, config.labels);
        log.warn({ subject, err: error }, "claim rolled back: GitHub refused the transition");
        throw refused({
          code: "github_failed",
          message: `GitHub refused the claim on ${subject}; nothing was kept, retry is safe.`,
        });
      }
    }
    // Queued, never awaited: a dead sink or the fence's re-check costs the claim nothing
    // (docs/deploy.md#delivery-the-outbox).
    void this.deps.events.transitioned({ cause: "claimed", at: now, record, previous }, config);
    const resume =
      previous &&
      (previous.state === "active" || previous.outcome === "handoff" || previous.state === "reaped")
        ? resumeView(previous, snapshot.openPullRequests)
        : null;
    if (!this.#knownInstallations.has(key.installationId)) {
      await stores.installations.rememberInstallation(key.installationId);
      this.#knownInstallations.add(key.installationId);
    }
    // The trust model's evidence: this login runs agents (docs/security.md#trust-model).
    await this.deps.fleet?.learn(key.installationId, record.actor.login);
    const overlaps = await overlapsOf(this.deps, record);
    return { kind: "claimed", lease: leaseView(key, record, token), resume, overlaps };
  }
}
