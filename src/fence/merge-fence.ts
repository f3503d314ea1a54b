// The merge fence: keeps the `claim-hold` check run of every linked PR head and merge group in step with the claims (docs/reference/github-surfaces.md#the-claim-hold-check-run).
//
// The PR head check is pull-request-check.ts, the merge group's merge-group-check.ts, the re-check
// after a subject changed hands recheck-subject.ts; this facade is what the webhooks, the HTTP API
// and the janitor call.
import type { RepoConfig } from "../config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../domain/claim.js";
import type { IndexedPullRequest, RepoKey } from "../providers/fence-store.js";
import { attestHead } from "./attest-head.js";
import { completeUnevaluated, pullCheckOf } from "./complete-unevaluated.js";
import { CrossLinks } from "./cross-links.js";
import { decidePullRequest } from "./decide-pull-request.js";
import {
  type CheckChange,
  type MergeFenceDeps,
  type MergeGroupEvent,
  noteOf,
  type PullRequestEvent,
} from "./fence-types.js";
import { indexPullRequest } from "./link-pull-request.js";
import { MergeGroupCheck } from "./merge-group-check.js";
import { OneAtATime } from "./one-at-a-time.js";
import { PullRequestCheck } from "./pull-request-check.js";
import { SubjectRecheck } from "./recheck-subject.js";
import { SubjectRecovery } from "./subject-recovery.js";
import { UnfinishedChecks, unfinishedKey } from "./unfinished-checks.js";

export type { CheckChange, MergeFenceDeps, MergeGroupEvent, PullRequestEvent } from "./fence-types.js";
export { noteOf } from "./fence-types.js";

export class MergeFence {
  readonly #unfinished: UnfinishedChecks;
  readonly #crossLinks: CrossLinks;
  readonly #pulls: PullRequestCheck;
  readonly #groups: MergeGroupCheck;
  readonly #recheck: SubjectRecheck;

  constructor(private readonly deps: MergeFenceDeps) {
    this.#unfinished = new UnfinishedChecks({ store: deps.stores.documents, now: deps.now, log: deps.log });
    const recovery = new SubjectRecovery(deps);
    this.#crossLinks = new CrossLinks(deps.fences);
    // PR heads and merge-group heads share one queue per head (and per PR's remembered groups).
    const parts = {
      heads: new OneAtATime(),
      unfinished: this.#unfinished,
      recovery,
      crossLinks: this.#crossLinks,
    };
    this.#pulls = new PullRequestCheck(deps, parts);
    this.#groups = new MergeGroupCheck(deps, parts);
    this.#recheck = new SubjectRecheck(deps, this.#pulls, this.#groups, this.#crossLinks);
  }

  /** A PR was opened, pushed to, reopened, edited or marked ready: index it and evaluate its check. */
  async pullRequestChanged(event: PullRequestEvent): Promise<CheckChange> {
    const repoKey = { installationId: event.installationId, repoId: event.repoId };
    let pr: IndexedPullRequest;
    try {
      // Indexed before GitHub is read, with the links it had: should the evaluation fail, a claim
      // transition still finds (and re-runs) this PR.
      const known = await this.deps.fences.pullRequest(repoKey, event.number);
      pr = await indexPullRequest(this.deps, repoKey, event.repo, {
        number: event.number,
        headSha: event.headSha,
        headRef: event.headRef,
        author: event.author,
        closes: known?.closes ?? [],
        linked: [],
      });
    } catch (error) {
      await completeUnevaluated(
        this.deps,
        this.#unfinished,
        event,
        { existing: undefined, pullRequests: [event] },
        error,
        pullCheckOf(event.installationId, event.repo, event.repoId, event, this.deps.now()),
      );
      throw error;
    }
    return this.#pulls.evaluate(event.installationId, event.repo, event.repoId, pr);
  }

  async pullRequestClosed(repo: RepoKey, number: number): Promise<void> {
    await this.deps.fences.removePullRequest(repo, number);
  }

  /**
   * `check_run`/`check_suite` rerequested: evaluate each listed PR, read from the index or (once)
   * from GitHub when the index does not know it.
   */
  async rerequested(
    target: { installationId: number; repo: string; repoId: number },
    pullRequests: { number: number; headSha: string }[],
  ): Promise<CheckChange[]> {
    const repoKey = { installationId: target.installationId, repoId: target.repoId };
    const changes: CheckChange[] = [];
    for (const listed of pullRequests) {
      let pr = await this.deps.fences.pullRequest(repoKey, listed.number);
      if (!pr || pr.headSha !== listed.headSha) {
        const head = await this.deps.checks.pullRequest(target, listed.number);
        if (head?.state !== "open") continue;
        pr = {
          number: head.number,
          headSha: head.headSha,
          headRef: head.headRef,
          author: head.author,
          // GitHub's closing references come with the evaluation's read.
          closes: pr?.closes ?? [],
          linked: [],
        };
      }
      pr = await indexPullRequest(this.deps, repoKey, target.repo, pr);
      changes.push(await this.#pulls.evaluate(target.installationId, target.repo, target.repoId, pr));
    }
    return changes;
  }

  /**
   * Re-runs the checks of every open PR linked to the subject. Call it whenever the subject changes
   * hands (takeover, release, /reclaim, reap, revoke); it costs no GitHub request when no PR is linked.
   */
  recheckSubject(installationId: number, key: SubjectKey): Promise<CheckChange[]> {
    return this.#recheck.run(installationId, key);
  }

  /** A claim transition happened (lease core, /reclaim, janitor): remember its claims, then re-run the checks. */
  async claimChanged(
    record: ClaimRecord,
    previous: ClaimRecord | null,
    shownPullRequests: readonly number[] = [],
  ): Promise<CheckChange[]> {
    const key: SubjectKey = {
      installationId: record.installationId,
      repoId: record.repoId,
      issue: record.issue,
    };
    if (previous) await this.deps.fences.recordClaim(key, noteOf(previous));
    // The note's store call answers the subject's linked PRs and cross links too: the re-check needs no read of its own.
    const linked = await this.deps.fences.recordClaim(key, noteOf(record));
    const changes = await this.#recheck.run(record.installationId, key, linked);
    // A change rebuilt after a store loss: the PRs GitHub showed that the index lost are read
    // (once each) and evaluated too, as a re-requested check would be.
    const repoKey = { installationId: record.installationId, repoId: record.repoId };
    const unindexed: { number: number; headSha: string }[] = [];
    for (const number of shownPullRequests) {
      if (!(await this.deps.fences.pullRequest(repoKey, number))) unindexed.push({ number, headSha: "" });
    }
    if (unindexed.length === 0) return changes;
    const target = { installationId: record.installationId, repo: record.repo, repoId: record.repoId };
    return [...changes, ...(await this.rerequested(target, unindexed))];
  }

  /** `POST /leases/{id}/attest`: the current holder vouches for `sha`; the checks of PRs on that head re-run. */
  attest(leaseId: string, token: string, sha: string): Promise<Record<string, unknown>> {
    return attestHead(
      this.deps,
      { pulls: this.#pulls, crossLinks: this.#crossLinks },
      { leaseId, token, sha },
    );
  }

  /**
   * `merge_group.checks_requested`: the `claim-hold` run on the group's head, the worst verdict over
   * the group's PRs, each judged on its own head and its subjects' current generation (merge-group-check.ts).
   */
  async mergeGroupRequested(group: MergeGroupEvent): Promise<CheckChange> {
    return (await this.#groups.judge(group, false))!;
  }

  /**
   * Re-runs the evaluations that could not finish (the janitor calls it each sweep, so they are
   * re-evaluated once GitHub and the store answer again). A PR's head that moved on is evaluated at
   * its new head; a group no longer in the queue gets "not found" (its queue built another).
   */
  async retryUnfinished(): Promise<{ retried: number; finished: number }> {
    const due = await this.#unfinished.due();
    const finished: string[] = [];
    for (const check of due) {
      try {
        if (check.kind === "group") await this.mergeGroupRequested(check);
        else await this.rerequested(check, [{ number: check.number, headSha: check.headSha }]);
        finished.push(unfinishedKey(check));
      } catch (error) {
        this.deps.log.warn(
          { repo: check.repo, headSha: check.headSha, err: error },
          "an unfinished check evaluation failed again; kept for the next retry",
        );
      }
    }
    await this.#unfinished.settle(finished);
    if (due.length > 0)
      this.deps.log.info(
        { retried: due.length, finished: finished.length },
        "unfinished check evaluations re-run",
      );
    return { retried: due.length, finished: finished.length };
  }

  /**
   * Steps 1–3 of the pipeline: the verdict the store's evidence gives a PR head, without reading
   * or writing GitHub (the dashboard shows it; an evaluation then syncs the check run).
   */
  async verdictOf(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
    config: RepoConfig,
  ) {
    return (await decidePullRequest(this.deps, installationId, repo, repoId, pr, config)).verdict;
  }
}
