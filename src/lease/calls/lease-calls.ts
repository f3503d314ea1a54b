// The holder's calls on a lease (docs/reference/http-api.md#lease-calls): heartbeat, release and verify, each proven by the lease token.

import { usdToMicros } from "../../budget/usage.js";
import { defaultRepoConfig, durationsOf } from "../../config/repo-config.js";
import {
  type ClaimRecord,
  parseLeaseId,
  type ReleaseOutcome,
  type SubjectKey,
  subjectName,
} from "../../domain/claim.js";
import { branchCode, type MarkerState, renderClaimComment } from "../../domain/claim-marker.js";
import { describeActor, inert } from "../../domain/inert-text.js";
import { expiresAt, livenessOf } from "../../domain/liveness.js";
import type { SubjectRef, TransitionWrite } from "../../providers/assignment-provider.js";
import type { HeartbeatInput, HeartbeatOutcome, LeaseRefusal } from "../../providers/liveness-store.js";
import {
  type HeartbeatAnswer,
  type HeartbeatRequest,
  iso,
  type ReleaseAnswer,
  type VerifyAnswer,
} from "../outcomes.js";
import type { LeaseCoreDeps } from "../ports.js";
import type { LeaseRecovery } from "../recovery/recovery.js";
import { type Refusal, refused } from "../refusals.js";
import { writeFenced } from "../transitions/commit-transition.js";
import { endClaim } from "../transitions/end-claim.js";
import { applyHeartbeatEffects } from "./budget-effects.js";

/** Phase changes edit the claim comment at most this often per subject. */
export const phaseEditEveryMs = 60_000;

/** The store's answer to a lease call, as the caller's refusal. */
export function leaseRefusal(refusal: LeaseRefusal): Refusal {
  switch (refusal.kind) {
    case "superseded":
      if (refusal.rotatedAt !== undefined) {
        return {
          code: "superseded",
          message:
            "This lease token was replaced by a re-claim; only the newest token of the lease is valid.",
          details: {
            by: refusal.current.actor,
            generation: refusal.current.generation,
            at: iso(refusal.rotatedAt),
            reason: "rotated",
          },
        };
      }
      return {
        code: "superseded",
        message: "This lease was superseded; stop working on the subject.",
        details: {
          by: refusal.current.actor,
          generation: refusal.current.generation,
          at: iso(refusal.current.claimedAt),
        },
      };
    case "gone": {
      // A release made because the subject's budget ran out says so for as long as it stands.
      const reason =
        refusal.reason === "released" && refusal.current.budgetExhausted
          ? "budget_exhausted"
          : refusal.reason;
      return {
        code: "gone",
        message: `This lease has ended (${reason}); claim the subject again.`,
        details: { reason },
      };
    }
    case "invalid_token":
      return { code: "unauthorized", message: "The lease token is not valid for this lease." };
    case "missing":
      return { code: "not_found", message: "No such lease." };
  }
}

export class LeaseCalls {
  constructor(
    private readonly deps: LeaseCoreDeps,
    private readonly recovery: LeaseRecovery,
  ) {}

  async heartbeat(leaseId: string, token: string, request: HeartbeatRequest): Promise<HeartbeatAnswer> {
    const { stores, tokens, now: clock } = this.deps;
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
      ...(request.needsHuman ? { needsHuman: true } : {}),
      ...(request.usage ? { usage: usageOf(request.usage) } : {}),
      phaseEditEveryMs,
    };
    // The digest that proved the lease stays in `input` for the durations refresh below.
    const first = await this.recovery.withRecovery(lease, token, (digest) =>
      stores.claims.heartbeat(Object.assign(input, { tokenDigest: digest })),
    );
    if (first.kind === "usage_decreased") {
      throw refused({
        code: "invalid_request",
        message: `usage.${first.field} is cumulative for the lease and may not go below its last value (${first.last}).`,
        details: { field: `usage.${first.field}`, last: first.last },
      });
    }
    const outcome = await this.#refreshDurations(lease, input, first, capWait);
    if (outcome.kind !== "ok") throw refused(leaseRefusal(outcome));
    const record = outcome.record;
    await this.#requireWrite(lease, record);
    await applyHeartbeatEffects(this.deps, {
      lease,
      tokenDigest: input.tokenDigest,
      record,
      needsHumanBefore: outcome.needsHumanBefore === true,
      heartbeat: request,
      spend: outcome.spend,
    });
    if (outcome.editComment) await this.#editClaimComment(lease, record);
    const waiting =
      record.needsHuman === true || (record.waitUntil !== undefined && record.waitUntil > clock());
    return {
      generation: record.generation,
      expiresAt: iso(expiresAt(record)),
      state: waiting ? "waiting" : "active",
    };
  }

  /** A config change reaches a claim at its next heartbeat; only then is a second store call made. */
  async #refreshDurations(
    lease: SubjectKey,
    input: HeartbeatInput,
    outcome: Exclude<HeartbeatOutcome, { kind: "usage_decreased" }>,
    capWait: (maxWaitMs: number) => number | undefined,
  ): Promise<Exclude<HeartbeatOutcome, { kind: "usage_decreased" }>> {
    if (outcome.kind !== "ok") return outcome;
    const config = this.deps.configs.peek(lease.installationId, outcome.record.repo);
    const wanted = config ? durationsOf(config, outcome.record.taskClass) : undefined;
    const wait = config ? capWait(config.maxWait) : undefined;
    const shorterWait = wait !== undefined && wait !== input.waitUntil;
    if (!wanted || (sameDurations(wanted, outcome.record.durations) && !shorterWait)) return outcome;
    const again = await this.deps.stores.claims.heartbeat({
      ...input,
      durations: wanted,
      ...(wait !== undefined ? { waitUntil: wait } : {}),
    });
    // The second call repeats the ask and the usage, so what they changed is the first call's news.
    return again.kind === "ok"
      ? {
          ...again,
          editComment: outcome.editComment || again.editComment,
          needsHumanBefore: outcome.needsHumanBefore,
          ...(outcome.spend ? { spend: outcome.spend } : {}),
        }
      : outcome;
  }

  /** The heartbeat itself succeeded; a failed cosmetic update is logged and left to reconcile. */
  async #editClaimComment(lease: SubjectKey, record: ClaimRecord): Promise<void> {
    const { configs } = this.deps;
    const labels = (
      configs.peek(lease.installationId, record.repo) ??
      (await configs.load(lease.installationId, record.repo))
    ).labels;
    await writeFenced(
      this.deps,
      refOf(lease, record),
      record,
      {
        subjectNodeId: record.issueNodeId ?? "",
        ...commentEdit(record, "active"),
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

  async release(
    leaseId: string,
    token: string,
    request: { outcome: ReleaseOutcome; note?: string },
  ): Promise<ReleaseAnswer> {
    const { stores, tokens, configs, now: clock } = this.deps;
    const lease = parseLeaseOrThrow(leaseId);
    const input = {
      key: lease,
      generation: lease.generation,
      tokenDigest: tokens.digest(token),
      now: clock(),
      outcome: request.outcome,
    };
    const outcome = await this.recovery.withRecovery(lease, token, (digest) =>
      stores.claims.release({ ...input, tokenDigest: digest }),
    );
    if (outcome.kind !== "released") throw refused(leaseRefusal(outcome));
    const record = outcome.record;
    if (record.sync === "pending") {
      const config = await configs.load(lease.installationId, record.repo);
      await writeFenced(
        this.deps,
        refOf(lease, record),
        record,
        releaseWrite(record, config.labels, request.note),
        config.labels,
      );
      await stores.claims.markSynced(lease, record.generation);
      await this.deps.events.transitioned(
        { cause: "released", at: input.now, record, previous: null },
        config,
      );
    }
    return { released: true, outcome: record.outcome, generation: record.generation };
  }

  async verify(leaseId: string, token: string): Promise<VerifyAnswer> {
    const { stores, tokens, now: clock } = this.deps;
    const lease = parseLeaseOrThrow(leaseId);
    const input = {
      key: lease,
      generation: lease.generation,
      tokenDigest: tokens.digest(token),
      now: clock(),
    };
    const outcome = await this.recovery.withRecovery(lease, token, (digest) =>
      stores.claims.verify({ ...input, tokenDigest: digest }),
    );
    if (outcome.kind !== "ok") throw refused(leaseRefusal(outcome));
    const record = outcome.record;
    await this.#requireWrite(lease, record);
    return {
      holder: true,
      generation: record.generation,
      state: livenessOf(record, clock()) === "live" ? "active" : "stale",
      expiresAt: iso(expiresAt(record)),
    };
  }

  /**
   * A holder whose login lost `write` on the repository loses the lease: the claim is revoked
   * (generation + 1, so its PRs fail the check) and the call answers `410 gone revoked`
   * (docs/reference/http-api.md#authentication).
   */
  async #requireWrite(lease: SubjectKey, record: ClaimRecord): Promise<void> {
    const { permissions, configs, now: clock } = this.deps;
    if (!permissions || record.actor.kind !== "agent") return;
    if (await permissions.stillAllowed(lease.installationId, record.repo, record.actor.login)) return;
    await endClaim(this.deps, {
      end: { key: lease, generation: record.generation, now: clock(), to: "revoked", bump: true },
      ref: refOf(lease, record),
      // Read only once the store revoked the lease: a failed read never keeps it alive.
      config: () => configs.load(lease.installationId, record.repo),
      note: `⛔ ${describeActor(record.actor)} lost write access to ${record.repo}; generation ${record.generation} is revoked.`,
    });
    throw refused({
      code: "gone",
      message: "This lease has ended (revoked): the holder no longer has write access.",
      details: { reason: "revoked" },
    });
  }
}

/** The release's write: labels and App-made assignment off, the comment ended, a note if there is one. */
function releaseWrite(
  record: ClaimRecord,
  labels: { claimed: string; stale: string; needsHuman: string },
  note?: string,
): TransitionWrite {
  const write: TransitionWrite = {
    subjectNodeId: record.issueNodeId ?? "",
    // A standing ask for a person ends with the lease that made it (a record restored from its
    // comment asks when the issue showed the label).
    removeLabels: [labels.claimed, labels.stale, ...(record.needsHuman ? [labels.needsHuman] : [])],
    ...commentEdit(record, record.state === "completed" ? "completed" : "released"),
  };
  if (record.appAssigned && record.assigneeNodeId) write.unassign = [record.assigneeNodeId];
  const trimmed = note?.trim();
  if (trimmed || record.outcome === "handoff") {
    write.addComments = [
      `📝 ${describeActor(record.actor)} released generation ${record.generation} (${record.outcome})` +
        (record.branch ? ` · branch ${branchCode(record.branch)}` : "") +
        (trimmed ? `\n\n> ${inert(trimmed, { multiline: true, max: 4000 }).replace(/\n/g, "\n> ")}` : ""),
    ];
  }
  return write;
}

function commentEdit(record: ClaimRecord, state: MarkerState): Pick<TransitionWrite, "editComments"> {
  return record.commentNodeId
    ? { editComments: [{ nodeId: record.commentNodeId, body: renderClaimComment(record, state) }] }
    : {};
}

function usageOf(usage: NonNullable<HeartbeatRequest["usage"]>) {
  return {
    ...(usage.costUsd !== undefined ? { costMicros: usdToMicros(usage.costUsd) } : {}),
    ...(usage.tokens !== undefined ? { tokens: usage.tokens } : {}),
  };
}

function refOf(lease: SubjectKey, record: ClaimRecord): SubjectRef {
  return { installationId: lease.installationId, repo: record.repo, issue: record.issue };
}

function parseLeaseOrThrow(leaseId: string) {
  const lease = parseLeaseId(leaseId);
  if (!lease) throw refused({ code: "not_found", message: "No such lease." });
  return lease;
}

function sameDurations(a: ClaimRecord["durations"], b: ClaimRecord["durations"]): boolean {
  return a.ttlMs === b.ttlMs && a.reclaimAfterMs === b.reclaimAfterMs && a.heartbeatMs === b.heartbeatMs;
}
