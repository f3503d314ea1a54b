// The holder's calls on a lease (docs/reference/http-api.md#lease-calls): heartbeat, release and verify, each proven by the lease token.

import { needsHumanChange } from "../../budget/needs-human.js";
import { usdToMicros } from "../../budget/usage.js";
import { defaultRepoConfig, durationsOf } from "../../config/repo-config.js";
import {
  type ClaimRecord,
  type Durations,
  parseLeaseId,
  type ReleaseOutcome,
  type SubjectKey,
  subjectName,
} from "../../domain/claim.js";
import { describeActor } from "../../domain/inert-text.js";
import { expiresAt, livenessOf } from "../../domain/liveness.js";
import { progressBase } from "../../domain/stall.js";
import { stalledNotification } from "../../notify/notification-events.js";
import { subjectRefOf } from "../../providers/assignment-provider.js";
import type {
  HeartbeatInput,
  HeartbeatOk,
  HeartbeatRecord,
  LeaseFacts,
} from "../../providers/liveness-store.js";
import { publishStalled } from "../lease-events.js";
import {
  type HeartbeatAnswer,
  type HeartbeatRequest,
  iso,
  type ReleaseAnswer,
  type VerifyAnswer,
} from "../outcomes.js";
import type { LeaseCoreDeps } from "../ports.js";
import type { LeaseRecovery } from "../recovery/recovery.js";
import { refused } from "../refusals.js";
import { writeFenced } from "../transitions/commit-transition.js";
import { endClaim } from "../transitions/end-claim.js";
import { markTripLanded, withBreakerTrip } from "../transitions/failure-summary.js";
import { applyHeartbeatEffects, heartbeatEffectsDue } from "./budget-effects.js";
import { commentEdit, releaseWrite } from "./lease-call-writes.js";
import { LeaseFactsCache } from "./lease-facts.js";
import { leaseRefusal } from "./lease-refusal.js";
import { NeedsHumanShow } from "./needs-human-show.js";

/** Phase changes edit the claim comment at most this often per subject. */
export const phaseEditEveryMs = 60_000;

export class LeaseCalls {
  /** The fixed facts of the leases this process answered heartbeats for. */
  readonly #facts = new LeaseFactsCache();

  constructor(
    private readonly deps: LeaseCoreDeps,
    private readonly recovery: LeaseRecovery,
  ) {}

  /**
   * The hottest call, kept flat: the token digested once, the store's input built directly, and
   * one store call that answers the record's liveness only — the lease's fixed facts come from
   * `#facts` (the whole record is asked for when they are not there). The follow-ups (durations
   * refresh, write permission, needs-human and budget, comment edit) await only when they have
   * something to do.
   */
  async heartbeat(leaseId: string, token: string, request: HeartbeatRequest): Promise<HeartbeatAnswer> {
    const { deps } = this;
    const lease = parseLeaseOrThrow(leaseId);
    const now = deps.now();
    // Under the current secret first, then under the one being rotated out (when one is set).
    const digests = deps.tokens.digests(token);
    const known = this.#facts.get(leaseId, digests[0]!);
    const input: HeartbeatInput = {
      key: lease,
      generation: lease.generation,
      tokenDigest: digests[0]!,
      now,
      phaseEditEveryMs,
    };
    if (known === undefined) input.wantRecord = true;
    if (request.phase !== undefined) input.phase = request.phase;
    if (request.blocker !== undefined) input.blocker = request.blocker;
    const requestedWait = request.waitUntil ? Date.parse(request.waitUntil) : undefined;
    // A reported wait keeps the holder live (takeover, janitor) only up to `maxWait` from now.
    if (requestedWait !== undefined) {
      input.waitUntil = Math.min(requestedWait, now + defaultRepoConfig.maxWait);
    }
    if (request.pullRequest !== undefined) input.pullRequest = request.pullRequest;
    if (request.needsHuman) input.needsHuman = true;
    if (request.usage) input.usage = usageOf(request.usage);
    let outcome = await deps.stores.claims.heartbeat(input);
    if (outcome.kind === "invalid_token" || outcome.kind === "missing") {
      // The rare paths: a token of the secret being rotated out, a subject the store lost. The digest
      // that proved the lease stays in `input` (for the durations refresh and the budget's release).
      outcome = await this.recovery.recover(lease, digests, outcome, (digest) => {
        input.tokenDigest = digest;
        input.wantRecord = true;
        return deps.stores.claims.heartbeat(input);
      });
    }
    if (outcome.kind === "usage_decreased") {
      throw refused({
        code: "invalid_request",
        message: `usage.${outcome.field} is cumulative for the lease and may not go below its last value (${outcome.last}).`,
        details: { field: `usage.${outcome.field}`, last: outcome.last },
      });
    }
    if (outcome.kind !== "ok") {
      this.#facts.forget(leaseId);
      throw refused(leaseRefusal(outcome));
    }
    const facts = outcome.record ? this.#facts.remember(leaseId, input.tokenDigest, outcome.record) : known;
    if (facts === undefined) throw new Error("the store answered a heartbeat without the record asked for");
    // A config change reaches a claim at its next heartbeat; only then is a second store call made.
    const config = deps.configs.peek(lease.installationId, facts.repo);
    if (config !== undefined) {
      const wanted = durationsOf(config, facts.taskClass);
      const wait = requestedWait === undefined ? undefined : Math.min(requestedWait, now + config.maxWait);
      if (
        !sameDurations(wanted, outcome.live.durations) ||
        (wait !== undefined && wait !== input.waitUntil)
      ) {
        outcome = await this.#refreshDurations(input, outcome, wanted, wait);
      }
    }
    const permissions = deps.permissions;
    if (
      permissions &&
      facts.actor.kind === "agent" &&
      !permissions.recentlyConfirmed(lease.installationId, facts.repo, facts.actor.login)
    ) {
      await this.#requireWrite(lease, facts);
    }
    const needsHumanBefore = outcome.needsHumanBefore === true;
    let paused = outcome.live.budgetPaused === true;
    if (heartbeatEffectsDue(deps, lease, needsHumanBefore, request, outcome.spend)) {
      paused = await applyHeartbeatEffects(deps, {
        lease,
        tokenDigest: input.tokenDigest,
        record: { ...facts, ...outcome.live, state: "active" },
        needsHumanBefore,
        heartbeat: request,
        spend: outcome.spend,
      });
    }
    if (outcome.stalledNow && outcome.record) this.#notifyStalled(outcome.record, outcome.stalledSince);
    if (outcome.stallAskChange)
      await this.#showStallAsk(
        outcome,
        { ...facts, ...outcome.live, state: "active" },
        needsHumanBefore,
        request,
      );
    if (outcome.editComment) await this.#editClaimComment(lease, outcome.record);
    const live = outcome.live;
    const waiting =
      paused || live.needsHuman === true || (live.waitUntil !== undefined && live.waitUntil > deps.now());
    const answer: HeartbeatAnswer = {
      generation: lease.generation,
      expiresAt: iso(expiresAt(live)),
      state: waiting ? "waiting" : "active",
    };
    if (paused) answer.paused = "budget";
    if (outcome.stalledSince !== undefined) answer.stalledSince = iso(outcome.stalledSince);
    return answer;
  }

  /** The first heartbeat that found the generation stalled: the `stalled` lease event and notification. Queued, never awaited. */
  #notifyStalled(record: ClaimRecord, since: number | undefined): void {
    const { notifier, configs, leaseEvents, log } = this.deps;
    if (since === undefined) return;
    void publishStalled(leaseEvents, log, record, since);
    if (!notifier) return;
    const config = configs.peek(record.installationId, record.repo) ?? defaultRepoConfig;
    notifier.emit(stalledNotification(record, since, progressBase(record), config));
  }

  /**
   * The App's ask for a person on the stall's behalf (`onStall: needs-human`), made or withdrawn by
   * this heartbeat, shown through the needs-human path: label, comment and notification, or the label
   * off — unless the holder's own ask keeps it (its own change already showed it).
   */
  async #showStallAsk(
    outcome: HeartbeatOk,
    record: HeartbeatRecord,
    needsHumanBefore: boolean,
    request: HeartbeatRequest,
  ): Promise<void> {
    const { deps } = this;
    const show = deps.needsHuman ?? new NeedsHumanShow(deps);
    const config =
      deps.configs.peek(record.installationId, record.repo) ??
      (await deps.configs.load(record.installationId, record.repo));
    if (outcome.stallAskChange === "asked" && outcome.record) {
      const lastProgressAt = progressBase(outcome.record);
      const ask = `no progress (push, pull request, phase change, spend) since ${iso(lastProgressAt)}: is this claim stuck?`;
      await show.stallAsked(outcome.record, config, ask);
    } else if (needsHumanChange(needsHumanBefore, request).kind === "unchanged") {
      await show.settle(record, config);
    }
  }

  /**
   * The heartbeat again with the durations (and the wait's cap) of the current config. It repeats
   * the ask and the usage, so what those changed is the first call's news; the record comes along
   * when the first call's comment edit needs it.
   */
  async #refreshDurations(
    input: HeartbeatInput,
    first: HeartbeatOk,
    durations: Durations,
    wait: number | undefined,
  ): Promise<HeartbeatOk> {
    const again = await this.deps.stores.claims.heartbeat({
      ...input,
      durations,
      ...(wait !== undefined ? { waitUntil: wait } : {}),
      wantRecord: first.editComment || first.stalledNow === true,
    });
    if (again.kind !== "ok") return first;
    const news = {
      ...(first.needsHumanBefore ? { needsHumanBefore: first.needsHumanBefore } : {}),
      ...(first.spend ? { spend: first.spend } : {}),
      ...(first.stalledNow ? { stalledNow: first.stalledNow } : {}),
      ...(first.stallAskChange ? { stallAskChange: first.stallAskChange } : {}),
      ...(again.stalledSince !== undefined ? { stalledSince: again.stalledSince } : {}),
    };
    if (again.editComment)
      return { kind: "ok", live: again.live, editComment: true, record: again.record, ...news };
    if (first.editComment) {
      // Asked for above (wantRecord), since the first call's edit renders it.
      if (!again.record) throw new Error("the store answered a heartbeat without the record asked for");
      return { kind: "ok", live: again.live, editComment: true, record: again.record, ...news };
    }
    const record = again.record ? { record: again.record } : {};
    return { kind: "ok", live: again.live, editComment: false, ...record, ...news };
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
      subjectRefOf(record),
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
    const digests = tokens.digests(token);
    const input = {
      key: lease,
      generation: lease.generation,
      tokenDigest: digests[0]!,
      now: clock(),
      outcome: request.outcome,
      ...(request.note !== undefined ? { note: request.note } : {}),
    };
    const outcome = await this.recovery.withRecovery(lease, digests, (digest) =>
      stores.claims.release({ ...input, tokenDigest: digest }),
    );
    if (outcome.kind !== "released") throw refused(leaseRefusal(outcome));
    const record = outcome.record;
    if (record.sync === "pending") {
      const config = await configs.load(lease.installationId, record.repo);
      const { write, trippedThrough } = withBreakerTrip(
        releaseWrite(record, config.labels, request.note, outcome.stallAsked),
        {
          subject: subjectName(record.repo, record.issue),
          failures: outcome.failures,
          config,
          ended: { generation: record.generation, state: record.state },
        },
      );
      await writeFenced(this.deps, subjectRefOf(record), record, write, config.labels);
      await stores.claims.markSynced(lease, record.generation);
      // Only a landed trip is marked: a failed write (502) leaves it to the janitor.
      // The release is done either way: a failed mark is logged and left to the janitor.
      if (trippedThrough !== undefined) {
        await markTripLanded(this.deps, lease, subjectName(record.repo, record.issue), trippedThrough);
      }
      await this.deps.events.transitioned(
        { cause: "released", at: input.now, record, previous: null },
        config,
      );
    }
    return { released: true, outcome: record.outcome, generation: record.generation };
  }

  /** `recheckWrite: false` (the live events' opening state): the token only, never a GitHub request. */
  async verify(
    leaseId: string,
    token: string,
    options: { recheckWrite?: boolean } = {},
  ): Promise<VerifyAnswer> {
    const { stores, tokens, now: clock } = this.deps;
    const lease = parseLeaseOrThrow(leaseId);
    const digests = tokens.digests(token);
    const input = {
      key: lease,
      generation: lease.generation,
      tokenDigest: digests[0]!,
      now: clock(),
    };
    const outcome = await this.recovery.withRecovery(lease, digests, (digest) =>
      stores.claims.verify({ ...input, tokenDigest: digest }),
    );
    if (outcome.kind !== "ok") throw refused(leaseRefusal(outcome));
    const record = outcome.record;
    if (options.recheckWrite !== false) await this.#requireWrite(lease, record);
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
  async #requireWrite(lease: SubjectKey, record: LeaseFacts): Promise<void> {
    const { permissions, configs, now: clock } = this.deps;
    if (!permissions || record.actor.kind !== "agent") return;
    if (await permissions.stillAllowed(lease.installationId, record.repo, record.actor.login)) return;
    await endClaim(this.deps, {
      end: {
        key: lease,
        generation: record.generation,
        now: clock(),
        to: "revoked",
        bump: true,
        failure: "revoked",
      },
      ref: subjectRefOf(record),
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

function usageOf(usage: NonNullable<HeartbeatRequest["usage"]>) {
  return {
    ...(usage.costUsd !== undefined ? { costMicros: usdToMicros(usage.costUsd) } : {}),
    ...(usage.tokens !== undefined ? { tokens: usage.tokens } : {}),
  };
}

function parseLeaseOrThrow(leaseId: string) {
  const lease = parseLeaseId(leaseId);
  if (!lease) throw refused({ code: "not_found", message: "No such lease." });
  return lease;
}

function sameDurations(a: ClaimRecord["durations"], b: ClaimRecord["durations"]): boolean {
  return a.ttlMs === b.ttlMs && a.reclaimAfterMs === b.reclaimAfterMs && a.heartbeatMs === b.heartbeatMs;
}
