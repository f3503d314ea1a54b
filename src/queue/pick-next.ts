// `claims/next` (docs/reference/http-api.md#post-apiv1claimsnext--claim-the-best-free-issue): read a bounded ranked page of the candidate index, reserve the first eligible issue atomically, claim it through the normal claim path.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { RepoConfigSource } from "../config/config-source.js";
import { rankingOf } from "../config/queue-ranking.js";
import { breakerSettingsOf } from "../config/repo-config.js";
import type { ClaimRecord } from "../domain/claim.js";
import { eligibilityOf, type QueueFilter, type SkipReason, skipReasons } from "../domain/eligibility.js";
import { type BreakerSettings, breakerOf } from "../domain/failure-breaker.js";
import { rankingReasons } from "../domain/queue-ranking.js";
import type { ClaimOutcome, ClaimRequest, PickCheck, PickOutcome } from "../lease/outcomes.js";
import { LeaseRefused, refused } from "../lease/refusals.js";
import type { ClaimStore } from "../providers/liveness-store.js";
import type {
  CandidateFacts,
  CandidatePage,
  QueueRanking,
  QueueRepo,
  QueueStore,
} from "../providers/queue-store.js";
import { queueFilterOf } from "./queue-filter.js";
import { noneSkipped, type QueueView, skippedCountKey, skippedRow } from "./queue-view.js";

/**
 * Rebuilds a repository's index from GitHub (a bounded, paged refresh) and answers it; null when the
 * repository cannot be read. Asked only for a repository the index never completed a refresh of
 * (`repoId` absent: the index never held it at all).
 */
export type RefreshQueue = (repo: {
  installationId: number;
  repo: string;
  repoId?: number;
}) => Promise<QueueRepo | null>;

export interface PickDeps {
  stores: {
    queue: Pick<
      QueueStore,
      | "rankedCandidates"
      | "reserve"
      | "unreserve"
      | "repoOf"
      | "refreshedAt"
      | "patchCandidate"
      | "dropCandidate"
    >;
    claims: Pick<ClaimStore, "get" | "epoch" | "failures">;
  };
  /** The claim of a picked candidate, re-checked against the claim's read. */
  claim: (request: ClaimRequest, pick: PickCheck) => Promise<PickOutcome>;
  configs: RepoConfigSource;
  refresh?: RefreshQueue;
  now: () => number;
  log: Logger;
  /** A fresh reservation owner per pick; default a random UUID. */
  pickId?: () => string;
}

/**
 * Candidates read per page, and at most in one pick or queue view: a pick never reads the whole index.
 * Held issues count against the window, so it is twice the refresh's 1,000-issue cap: a fleet holding
 * the top of a full index still finds the free issues behind it.
 */
export const pickPageSize = 100;
export const maxCandidatesScanned = 2_000;
/** Confirming reads (each a claim's GitHub read) that may show a candidate ineligible before the pick gives up. */
export const maxPickTries = 5;
/** A reservation outlives the claim it leads to (the claim path takes well under this). */
export const reservationTtlMs = 30_000;
/** Once claimed, the reservation stays this long, so pickers that read the page before the claim landed skip it. */
export const settledReservationMs = 5_000;

export interface NextRequest extends Omit<ClaimRequest, "issue" | "takeover" | "branch"> {
  labels?: string[];
  excludeLabels?: string[];
  /** What the caller can do: issues that need another capability are skipped (`missingCapability`). */
  capabilities?: string[];
  includeTakeovers: boolean;
}

export interface Picked {
  issue: number;
  /** 1-based position among the eligible issues this pick saw. */
  rank: number;
  reasons: string[];
}

interface Judged {
  facts: CandidateFacts;
  verdict: ReturnType<typeof eligibilityOf>;
}

export class QueuePicker {
  constructor(private readonly deps: PickDeps) {}

  /** Picks and claims the best free issue, or refuses `queue_empty` with what was skipped. */
  async next(request: NextRequest): Promise<{ claim: ClaimOutcome; picked: Picked }> {
    const { stores, log } = this.deps;
    const config = await this.deps.configs.load(request.installationId, request.repo);
    const filter = queueFilterOf(config, request);
    const ranking = rankingOf(config.queue);
    const repo = await this.#indexedRepo(request.installationId, request.repo);
    const skipped = noneSkipped();
    const owner = (this.deps.pickId ?? randomUUID)();
    let tries = 0;
    let eligibleSeen = 0;
    for (
      let offset = 0;
      repo && offset < maxCandidatesScanned && tries < maxPickTries;
      offset += pickPageSize
    ) {
      const page = await this.#page(repo, ranking, offset);
      const judged = await this.#judge(
        repo,
        page.candidates,
        request.user.login,
        filter,
        request.includeTakeovers,
        breakerSettingsOf(config),
      );
      const eligible: Judged[] = [];
      for (const entry of judged) {
        if (entry.verdict.eligible) eligible.push(entry);
        else skipped[skippedCountKey[entry.verdict.reason]]++;
      }
      const ranks = new Map(eligible.map((entry, i) => [entry.facts.issue, eligibleSeen + i + 1]));
      eligibleSeen += eligible.length;
      while (eligible.length > 0 && tries < maxPickTries) {
        const issue = await stores.queue.reserve(
          repo,
          eligible.map((e) => e.facts.issue),
          owner,
          reservationTtlMs,
          this.deps.now(),
        );
        if (issue === null) {
          skipped.reserved += eligible.length;
          break;
        }
        const at = eligible.findIndex((e) => e.facts.issue === issue);
        // Every issue before the reserved one is another pick's now.
        skipped.reserved += at;
        const chosen = eligible.splice(0, at + 1)[at] as Judged;
        const takeover = chosen.verdict.eligible && chosen.verdict.takeover;
        const attempt = await this.#claimCandidate(
          repo,
          owner,
          { ...request, issue, takeover },
          {
            facts: chosen.facts,
            filter,
            takeover,
          },
        );
        if (attempt.kind === "claimed") {
          const reasons = [...rankingReasons(chosen.facts, ranking), ...(takeover ? ["takeover"] : [])];
          return { claim: attempt.claim, picked: { issue, rank: ranks.get(issue) ?? 1, reasons } };
        }
        tries++;
        skipped[skippedCountKey[attempt.reason]]++;
        log.info(
          { subject: `${repo.repo}#${issue}`, reason: attempt.reason },
          "picked issue was not free after all",
        );
      }
      if (page.candidates.length < pickPageSize) break;
    }
    throw refused({
      code: "queue_empty",
      message: `No issue of ${request.repo} is free for this session right now.`,
      details: { skipped },
    });
  }

  /**
   * The ranked eligible issues with their reasons, then the first skipped ones with why (at most
   * `limit` each), as a caller declaring `capabilities` would see them.
   */
  async view(
    installationId: number,
    repoName: string,
    login: string,
    limit: number,
    capabilities: readonly string[] = [],
  ): Promise<QueueView> {
    const config = await this.deps.configs.load(installationId, repoName);
    const filter = queueFilterOf(config, { capabilities });
    const ranking = rankingOf(config.queue);
    const repo = await this.#indexedRepo(installationId, repoName);
    const view: QueueView = { queue: [], skipped: [], truncated: false };
    let more = false;
    for (let offset = 0; repo && offset < maxCandidatesScanned; offset += pickPageSize) {
      const page = await this.#page(repo, ranking, offset);
      for (const { facts, verdict } of await this.#judge(
        repo,
        page.candidates,
        login,
        filter,
        false,
        breakerSettingsOf(config),
      )) {
        if (verdict.eligible && view.queue.length < limit) {
          const row = { issue: facts.issue, title: facts.title, rank: view.queue.length + 1 };
          view.queue.push({ ...row, reasons: rankingReasons(facts, ranking) });
        } else if (!verdict.eligible && view.skipped.length < limit) {
          view.skipped.push(skippedRow(facts, verdict.reason, filter));
        } else more = true;
      }
      const scanned = offset + page.candidates.length;
      const full = view.queue.length >= limit && view.skipped.length >= limit;
      if (full || page.candidates.length < pickPageSize || scanned >= maxCandidatesScanned) {
        view.truncated = more || page.total > scanned;
        break;
      }
    }
    return view;
  }

  /** The repository as the index knows it; one it never held is refreshed first, when a refresh is wired. */
  async #indexedRepo(installationId: number, repoName: string): Promise<QueueRepo | null> {
    const { stores, refresh } = this.deps;
    const repo = await stores.queue.repoOf(installationId, repoName);
    if (repo || !refresh) return repo;
    return refresh({ installationId, repo: repoName });
  }

  /**
   * A ranked page. The first page of an index that never completed a refresh (only webhooks fed it)
   * asks for the refresh and is read again: the refresh stamps it, so this happens once.
   */
  async #page(repo: QueueRepo, ranking: QueueRanking, offset: number): Promise<CandidatePage> {
    const { stores, refresh } = this.deps;
    const page = await stores.queue.rankedCandidates(repo, ranking, { offset, limit: pickPageSize });
    if (offset > 0 || page.refreshedAt !== null || !refresh) return page;
    await refresh(repo);
    return stores.queue.rankedCandidates(repo, ranking, { offset, limit: pickPageSize });
  }

  /** Each candidate with its verdict, judged with its claim record (the reads go out together: one round trip). */
  async #judge(
    repo: QueueRepo,
    candidates: CandidateFacts[],
    login: string,
    filter: QueueFilter,
    includeTakeovers: boolean,
    breaker: BreakerSettings,
  ): Promise<Judged[]> {
    if (candidates.length === 0) return [];
    const { stores } = this.deps;
    const now = this.deps.now();
    const keyOf = (facts: CandidateFacts) => ({
      installationId: repo.installationId,
      repoId: repo.repoId,
      issue: facts.issue,
    });
    const [storeEpoch, ...records] = await Promise.all([
      stores.claims.epoch(repo.installationId, now),
      ...candidates.map((facts) => stores.claims.get(keyOf(facts))),
    ] as [Promise<number>, ...Promise<ClaimRecord | null>[]]);
    const judge = (facts: CandidateFacts, i: number, failing: boolean) =>
      eligibilityOf({
        facts,
        record: records[i] ?? null,
        claimBranches: records[i]?.branch ? [records[i].branch] : [],
        login,
        filter,
        includeTakeovers,
        now,
        storeEpoch,
        failing,
      });
    const first = candidates.map((facts, i) => ({ facts, verdict: judge(facts, i, false) }));
    // Failed attempts are read only for the candidates no earlier skip reason keeps out.
    const breakers = await Promise.all(
      first.map(({ facts, verdict }) =>
        verdict.eligible || skipReasons.indexOf(verdict.reason) > skipReasons.indexOf("failing")
          ? stores.claims.failures(keyOf(facts))
          : null,
      ),
    );
    return first.map((entry, i) => {
      const attempts = breakers[i];
      if (!attempts || attempts.length === 0) return entry;
      const failing = breakerOf(attempts, breaker, now).kind !== "closed";
      return failing ? { facts: entry.facts, verdict: judge(entry.facts, i, true) } : entry;
    });
  }

  /**
   * Claims a reserved candidate. Claimed: its reservation settles. Ineligible after all (the claim's
   * read showed it so, or someone else holds it): why, and the index learns what the read showed.
   */
  async #claimCandidate(
    repo: QueueRepo,
    owner: string,
    request: ClaimRequest,
    pick: PickCheck,
  ): Promise<{ kind: "claimed"; claim: ClaimOutcome } | { kind: "ineligible"; reason: SkipReason }> {
    const { stores } = this.deps;
    const { issue } = request;
    let outcome: PickOutcome;
    try {
      outcome = await this.deps.claim(request, pick);
      if (outcome.kind === "claimed") {
        await stores.queue.reserve(repo, [issue], owner, settledReservationMs, this.deps.now());
        return outcome;
      }
    } catch (error) {
      return { kind: "ineligible", reason: await this.#skipAfterRefusal(repo, issue, owner, error) };
    }
    if (outcome.observed) {
      const { issue: _issue, ...patch } = outcome.observed;
      await stores.queue.patchCandidate(repo, issue, patch);
    } else await stores.queue.dropCandidate(repo, issue);
    await stores.queue.unreserve(repo, issue, owner);
    return { kind: "ineligible", reason: outcome.reason };
  }

  /** The skip reason of a claim refused for a picked issue; an error that is no refusal is rethrown. */
  async #skipAfterRefusal(
    repo: QueueRepo,
    issue: number,
    owner: string,
    error: unknown,
  ): Promise<SkipReason> {
    const { stores } = this.deps;
    // Someone claimed it directly meanwhile (held), or its claim state cannot be known: skip it.
    // Kept only as long as a claimed pick's: pickers that read it free skip it, and a release is not blocked for long.
    if (error instanceof LeaseRefused && (error.code === "held" || error.code === "human_held")) {
      await stores.queue.reserve(repo, [issue], owner, settledReservationMs, this.deps.now());
      return error.code === "held" ? "held" : "human";
    }
    await stores.queue.unreserve(repo, issue, owner);
    if (error instanceof LeaseRefused && error.code === "claim_state_unknown") return "held";
    // Its takeover of a stalled claim tripped the failure breaker: the stalled generation ended and
    // the issue now waits for a person, so the pick moves on.
    if (error instanceof LeaseRefused && error.code === "failing") return "failing";
    throw error;
  }
}
