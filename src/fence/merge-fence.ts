// The merge fence: keeps the `claim-hold` check run of every linked PR head in step with the claims (docs/reference/github-surfaces.md#the-claim-hold-check-run).
//
// Pipeline of one evaluation:
//   1. one GitHub read: the PR's closing issue references as GitHub links them (keywords, URLs,
//      manual links) and the App's current check run on the head;
//   2. linked subjects = those references ∪ subjects whose claims named its head branch (re-indexed);
//   3. evidence per subject: the store's record, the fence's claim notes and attestations of the head;
//   4. decideCheck (pure) → the desired check run (checkRunOf, pure);
//   5. write only when it differs from the run read in step 1 (decideCheckWrite, pure).
import type { Logger } from "pino";
import { defaultRepoConfig, type RepoConfig } from "../config/repo-config.js";
import { type ClaimRecord, parseLeaseId, type SubjectKey, subjectName } from "../domain/claim.js";
import {
  agentBranchPatterns,
  agentMayBeInvolved,
  branchMayLink,
  type OutagePullEvidence,
} from "../domain/trust.js";
import { supersededPullRequestNotification } from "../notify/notification-events.js";
import type { Notifier } from "../notify/notifier.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type {
  ChecksProvider,
  DesiredCheckRun,
  ExistingCheckRun,
  ForeignIssue,
} from "../providers/checks-provider.js";
import type {
  ClaimNote,
  FenceEvidence,
  FenceStore,
  IndexedPullRequest,
  RepoKey,
} from "../providers/fence-store.js";
import { type ClaimStore, type DocumentStore, StoreUnavailableError } from "../providers/liveness-store.js";
import { authorKindOf, checkRunOf, claimsOf, decideCheckWrite, linkedSubjectOf } from "./check-run-plan.js";
import {
  type CheckConclusion,
  decideCheck,
  decideGroupCheck,
  type GroupMemberVerdict,
  type LinkedSubject,
  unevaluatedVerdict,
} from "./check-verdict.js";
import { CrossLinks, unfencedNote } from "./cross-links.js";
import type { FleetLogins } from "../lease/fleet-logins.js";
import { inert } from "../lease/inert-text.js";
import type { RepoConfigSource } from "../lease/lease-core.js";
import { membersOfGroup, parseMergeGroupRef } from "./merge-group-plan.js";
import { maxOutageReads, outageEvidenceOf, type SeenPullRequest } from "./outage-evidence.js";
import { refused } from "../lease/refusals.js";
import { SubjectRecovery } from "./subject-recovery.js";
import { type UnfinishedCheck, UnfinishedChecks, unfinishedKey } from "./unfinished-checks.js";

export interface MergeFenceDeps {
  store: ClaimStore & DocumentStore;
  fences: FenceStore;
  checks: ChecksProvider;
  configs: RepoConfigSource & { errorFor(installationId: number, repo: string): string | undefined };
  /** The lease gate (LeaseCore.verify): throws the API's refusal for a superseded or ended lease. */
  verifyLease: (leaseId: string, token: string) => Promise<unknown>;
  /**
   * The digests a lease token may have in the store (current secret first, then the one being
   * rotated out), so an attestation names the token that made it as the record knows it.
   */
  tokenDigests: (token: string) => string[];
  now: () => number;
  log: Logger;
  /** Public base URL of this App; the check's details link points at the subject's claim route. */
  publicUrl?: string;
  /**
   * Reads a subject from GitHub (its claim comments). Used only for a linked subject the store has no
   * record of, so a store loss makes the check fail closed instead of "no agent claim involved".
   */
  assignments?: Pick<AssignmentProvider, "status">;
  /** Told when a check turns to failure because its holder was superseded (`superseded-pr`); absent: nowhere. */
  notifier?: Notifier;
  /** The installation's fleet logins (a fleet login's PR is an agent's whatever its branch); absent: bots only. */
  fleet?: FleetLogins;
}

/** One PR whose check was evaluated: what GitHub showed before and what it shows now. */
export interface CheckChange {
  repo: string;
  number: number;
  headSha: string;
  before: string | null;
  after: CheckConclusion;
  written: boolean;
}

/** The PR fields an evaluation needs, from a webhook or the index. */
export interface PullRequestEvent {
  installationId: number;
  repo: string;
  repoId: number;
  number: number;
  headSha: string;
  headRef: string;
  author: { login: string; bot: boolean };
}

/** `merge_group.checks_requested`: the group's head and base, as the webhook names them (never its PRs). */
export interface MergeGroupEvent {
  installationId: number;
  repo: string;
  repoId: number;
  headSha: string;
  /** `refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>`. */
  headRef: string;
  /** `refs/heads/<base>`. */
  baseRef: string;
}

/** What an evaluation had seen when it failed: the run GitHub shows (undefined: not read) and the PRs involved. */
interface Seen {
  existing: ExistingCheckRun | null | undefined;
  /** `closes`: GitHub's closing references as read (absent: not read). */
  pullRequests: SeenPullRequest[];
}

export function noteOf(record: ClaimRecord): ClaimNote {
  return {
    generation: record.generation,
    actor: record.actor,
    ...(record.branch ? { branch: record.branch } : {}),
  };
}

export class MergeFence {
  /** Evaluations of the same head run one after another, so at most one check run is created per head. */
  readonly #heads = new Map<string, Promise<unknown>>();
  readonly #unfinished: UnfinishedChecks;
  readonly #recovery: SubjectRecovery;
  readonly #crossLinks: CrossLinks;

  constructor(private readonly deps: MergeFenceDeps) {
    this.#unfinished = new UnfinishedChecks({ store: deps.store, now: deps.now, log: deps.log });
    this.#recovery = new SubjectRecovery(deps);
    this.#crossLinks = new CrossLinks(deps.store);
  }

  /** A PR was opened, pushed to, reopened, edited or marked ready: index it and evaluate its check. */
  async pullRequestChanged(event: PullRequestEvent): Promise<CheckChange> {
    const repoKey = { installationId: event.installationId, repoId: event.repoId };
    let pr: IndexedPullRequest;
    try {
      // Indexed before GitHub is read, with the links it had: should the evaluation fail, a claim
      // transition still finds (and re-runs) this PR.
      const known = await this.deps.fences.pullRequest(repoKey, event.number);
      pr = await this.#index(repoKey, event.repo, {
        number: event.number,
        headSha: event.headSha,
        headRef: event.headRef,
        author: event.author,
        closes: known?.closes ?? [],
        linked: [],
      });
    } catch (error) {
      await this.#completeUnevaluated(
        event,
        { existing: undefined, pullRequests: [event] },
        error,
        pullCheckOf(event.installationId, event.repo, event.repoId, event, this.deps.now()),
      );
      throw error;
    }
    return this.#evaluate(event.installationId, event.repo, event.repoId, pr);
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
      pr = await this.#index(repoKey, target.repo, pr);
      changes.push(await this.#evaluate(target.installationId, target.repo, target.repoId, pr));
    }
    return changes;
  }

  /**
   * Re-runs the checks of every open PR linked to the subject. Call it whenever the subject changes
   * hands (takeover, release, /reclaim, reap, revoke); it costs no GitHub request when no PR is linked.
   */
  async recheckSubject(installationId: number, key: SubjectKey): Promise<CheckChange[]> {
    const prs = await this.deps.fences.pullRequestsFor({ ...key, installationId });
    const crossLinked = await this.#recheckCrossLinked(installationId, key);
    if (prs.length === 0) return crossLinked;
    const record = await this.deps.store.get(key);
    if (!record) {
      this.deps.log.warn(
        { installationId, repoId: key.repoId, issue: key.issue },
        "no claim record to name the repository; checks not re-run",
      );
      return [];
    }
    const changes: CheckChange[] = [...crossLinked];
    for (const pr of prs) changes.push(await this.#evaluate(installationId, record.repo, key.repoId, pr));
    // A group already answered holds these PRs at their queued heads: it is judged again too, so a
    // holder superseded while its PR waits in the queue fails the group before it merges.
    const groups = new Map<string, RememberedGroup>();
    for (const pr of prs) {
      for (const group of await this.#groupsOf(installationId, key.repoId, pr.number))
        groups.set(group.headSha, group);
    }
    for (const group of groups.values()) {
      const event = { installationId, repo: record.repo, repoId: key.repoId, ...group };
      const change = await this.#judgeGroup(event, true);
      if (change) changes.push(change);
    }
    return changes;
  }

  /** The open PRs of other repositories that close this subject: their checks re-run too. */
  async #recheckCrossLinked(installationId: number, key: SubjectKey): Promise<CheckChange[]> {
    const links = await this.#crossLinks.of({ ...key, installationId });
    const changes: CheckChange[] = [];
    for (const link of links) {
      const pr = await this.deps.fences.pullRequest({ installationId, repoId: link.repoId }, link.number);
      if (pr) changes.push(await this.#evaluate(installationId, link.repo, link.repoId, pr));
    }
    return changes;
  }

  async #groupsOf(installationId: number, repoId: number, number: number): Promise<RememberedGroup[]> {
    const value = await this.deps.store.getDocument(groupsDocument(installationId, repoId, number));
    return Array.isArray(value) ? (value as RememberedGroup[]) : [];
  }

  /** Each member PR remembers the groups it was judged in, one update at a time per PR in this process. */
  async #rememberGroup(installationId: number, repoId: number, numbers: number[], group: RememberedGroup) {
    for (const number of numbers) {
      await this.#oneAtATime(`groups:${installationId}:${repoId}:${number}`, async () => {
        const known = (await this.#groupsOf(installationId, repoId, number)).filter(
          (g) => g.headSha !== group.headSha,
        );
        const kept = [...known, group].slice(-rememberedGroupsPerPull);
        await this.deps.store.putDocument(
          groupsDocument(installationId, repoId, number),
          kept,
          groupMemoryMs,
        );
      });
    }
  }

  /** A claim transition happened (lease core, /reclaim, janitor): remember its claims, then re-run the checks. */
  async claimChanged(record: ClaimRecord, previous: ClaimRecord | null): Promise<CheckChange[]> {
    const key: SubjectKey = {
      installationId: record.installationId,
      repoId: record.repoId,
      issue: record.issue,
    };
    if (previous) await this.deps.fences.recordClaim(key, noteOf(previous));
    await this.deps.fences.recordClaim(key, noteOf(record));
    return this.recheckSubject(record.installationId, key);
  }

  /** `POST /leases/{id}/attest`: the current holder vouches for `sha`; the checks of PRs on that head re-run. */
  async attest(leaseId: string, token: string, sha: string): Promise<Record<string, unknown>> {
    const lease = parseLeaseId(leaseId);
    if (!lease) throw refused({ code: "not_found", message: "No such lease." });
    // Throws 409 superseded / 410 gone / 401 before anything is recorded.
    await this.deps.verifyLease(leaseId, token);
    const record = await this.deps.store.get(lease);
    // Recorded under the lease's own generation: should a takeover slip in after the gate, the
    // attestation belongs to a superseded generation and cannot pass the check.
    if (record?.generation === lease.generation) await this.deps.fences.recordClaim(lease, noteOf(record));
    // Named by its token: once a re-claim rotates that token out, the attestation no longer counts.
    await this.deps.fences.attest(
      lease,
      lease.generation,
      sha,
      this.deps.now(),
      this.#storedDigest(token, record),
    );
    const prs = (await this.deps.fences.pullRequestsFor(lease)).filter((pr) => pr.headSha === sha);
    if (prs.length > 0 && record) {
      for (const pr of prs) await this.#evaluate(lease.installationId, record.repo, lease.repoId, pr);
    }
    // PRs of other repositories that close this subject, on the attested head.
    for (const link of await this.#crossLinks.of(lease)) {
      const pr = await this.deps.fences.pullRequest(
        { installationId: lease.installationId, repoId: link.repoId },
        link.number,
      );
      if (pr?.headSha === sha) await this.#evaluate(lease.installationId, link.repo, link.repoId, pr);
    }
    return { attested: true, sha, generation: lease.generation };
  }

  #storedDigest(token: string, record: ClaimRecord | null): string {
    const digests = this.deps.tokenDigests(token);
    return digests.find((d) => d === record?.tokenDigest) ?? digests[0]!;
  }

  /**
   * Links = GitHub's closing references ∪ subjects whose claims named the head branch — the latter
   * only on an agent branch or for a fleet login's PR (docs/security.md#trust-model); re-indexed
   * when that changed.
   */
  async #index(repo: RepoKey, repoName: string, pr: IndexedPullRequest): Promise<IndexedPullRequest> {
    const { patterns, authorFleet } = await this.#trustOf(repo.installationId, repoName, pr.author);
    const byBranch = branchMayLink({ headRef: pr.headRef, patterns, authorFleet })
      ? await this.deps.fences.subjectsForBranch(repo, pr.headRef)
      : [];
    const linked = [...new Set([...pr.closes, ...byBranch])].slice(0, 100);
    const known = await this.deps.fences.pullRequest(repo, pr.number);
    const next = { ...pr, linked };
    if (!known || JSON.stringify(known) !== JSON.stringify(next))
      await this.deps.fences.putPullRequest(repo, next);
    return next;
  }

  /** The repository's agent branch globs and whether the PR's author is a fleet login. */
  async #trustOf(installationId: number, repo: string, author: { login: string; bot: boolean }) {
    const config = await this.deps.configs.load(installationId, repo);
    const patterns = agentBranchPatterns(config.check);
    const authorFleet = this.deps.fleet
      ? await this.deps.fleet.isFleet(installationId, author, config)
      : author.bot;
    return { config, patterns, authorFleet };
  }

  async #evaluate(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
  ): Promise<CheckChange> {
    return this.#oneAtATime(`${installationId}:${repoId}:${pr.headSha}`, async () => {
      // The index's closing references are the store's memory, not GitHub's answer: left out.
      const { closes: _indexed, linked: _linked, ...shown } = pr;
      const seen: Seen = { existing: undefined, pullRequests: [shown] };
      try {
        return await this.#evaluateNow(installationId, repo, repoId, pr, seen);
      } catch (error) {
        await this.#completeUnevaluated(
          { installationId, repo },
          seen,
          error,
          pullCheckOf(installationId, repo, repoId, pr, this.deps.now()),
        );
        throw error;
      }
    });
  }

  /** Runs evaluations of one head one after another, so at most one check run is created per head. */
  async #oneAtATime<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#heads.get(id) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(work);
    this.#heads.set(id, run);
    try {
      return await run;
    } finally {
      if (this.#heads.get(id) === run) this.#heads.delete(id);
    }
  }

  /**
   * `merge_group.checks_requested`: the `claim-hold` run on the group's head, the worst verdict over
   * the group's PRs, each judged on its own head and its subjects' current generation.
   *   1. one GitHub read: the queue's entries and the App's run on the group head;
   *   2. the group's PRs: the entry of this group and those ahead of it (membersOfGroup, pure);
   *   3. each PR indexed with GitHub's closing references (a queued PR is fenced like any other);
   *   4. `in_progress` first when no run is there yet and a linked subject must be recovered from
   *      GitHub (more reads);
   *   5. each PR's verdict (decideCheck) → the worst (decideGroupCheck) → written unless GitHub shows it.
   * An evaluation that cannot finish completes the run anyway (#completeUnevaluated).
   */
  async mergeGroupRequested(group: MergeGroupEvent): Promise<CheckChange> {
    return (await this.#judgeGroup(group, false))!;
  }

  /** With `recheck`: null, and nothing written, when the group is no longer in the queue. */
  #judgeGroup(group: MergeGroupEvent, recheck: boolean): Promise<CheckChange | null> {
    const { installationId, repo, repoId, headSha } = group;
    return this.#oneAtATime(`${installationId}:${repoId}:${headSha}`, async () => {
      const seen: Seen = { existing: undefined, pullRequests: [] };
      try {
        return await this.#evaluateGroup(group, seen, recheck);
      } catch (error) {
        await this.#completeUnevaluated({ installationId, repo }, seen, error, {
          kind: "group",
          installationId,
          repo,
          repoId,
          headSha,
          headRef: group.headRef,
          baseRef: group.baseRef,
          at: this.deps.now(),
        });
        throw error;
      }
    });
  }

  async #evaluateGroup(group: MergeGroupEvent, seen: Seen, recheck: boolean): Promise<CheckChange | null> {
    const { checks, configs } = this.deps;
    const { installationId, repo, repoId, headSha } = group;
    const ref = { installationId, repo };
    const repoKey = { installationId, repoId };
    const baseBranch = group.baseRef.replace(/^refs\/heads\//, "");
    const read = await checks.readMergeGroupCheck({ ...ref, repoId }, { baseBranch, headSha });
    seen.existing = read.existing;
    const found = membersOfGroup(read.queue ?? [], group);
    // A re-check of a group that left the queue (merged, or rebuilt) writes nothing: its head may be the base branch's now.
    if (recheck && !found) return null;
    const queued = found ?? [];
    seen.pullRequests = queued;
    const members: IndexedPullRequest[] = [];
    for (const { closesElsewhere, ...pr } of queued) {
      members.push(await this.#index(repoKey, repo, { ...pr, elsewhere: closesElsewhere ?? [], linked: [] }));
    }
    await this.#rememberGroup(
      installationId,
      repoId,
      members.map((pr) => pr.number),
      { headSha, headRef: group.headRef, baseRef: group.baseRef },
    );
    // A run already on the head (a redelivery, a retry) shows the group is being answered.
    if (read.existing === null && (await this.#recovery.needed(installationId, repoId, members))) {
      const id = await checks.start(ref, headSha, {
        title: "Evaluating the merge group",
        summary: "claim-hold is recovering the claims of this group's pull requests from GitHub.",
      });
      seen.existing = { id, conclusion: null, title: null, summary: null, text: null };
    }
    const verdicts: GroupMemberVerdict[] = [];
    const subjects: LinkedSubject[] = [];
    for (const pr of members) {
      const decided = await this.#recoverAndDecide(installationId, repo, repoId, pr);
      verdicts.push({ number: pr.number, verdict: decided.verdict });
      subjects.push(...decided.subjects);
    }
    const configError = configs.errorFor(installationId, repo);
    const desired = checkRunOf(decideGroupCheck(verdicts), {
      subjects,
      ...(configError ? { configError } : {}),
    });
    const named = parseMergeGroupRef(group.headRef)?.number ?? members.at(-1)?.number ?? 0;
    return this.#sync(ref, { number: named, headSha }, seen.existing ?? null, desired);
  }

  /**
   * Never hang (docs/reference/github-surfaces.md#the-claim-hold-check-run): an evaluation that
   * failed completes the head's run all the same, with a conclusion and a summary that say what
   * happened (unevaluatedVerdict), and is remembered so the janitor re-runs it. Writing that run may
   * fail too (GitHub down): then only the retry is left.
   */
  async #completeUnevaluated(
    ref: { installationId: number; repo: string },
    seen: Seen,
    error: unknown,
    check: UnfinishedCheck,
  ): Promise<void> {
    const { checks, configs, log } = this.deps;
    const config = configs.peek(ref.installationId, ref.repo) ?? defaultRepoConfig;
    const patterns = agentBranchPatterns(config.check);
    // Fail closed on evidence: `neutral` only where GitHub's answer shows no agent claim involved.
    const pulls = seen.pullRequests.slice(0, maxOutageReads);
    const evidence: OutagePullEvidence[] = [];
    for (const pr of pulls) {
      evidence.push(
        await outageEvidenceOf(this.deps, { ...ref, repoId: check.repoId }, pr, config, patterns),
      );
    }
    const agentInvolved = seen.pullRequests.length > maxOutageReads || agentMayBeInvolved(evidence, patterns);
    const cause = error instanceof StoreUnavailableError ? "store-unavailable" : "error";
    const message = error instanceof Error ? error.message : String(error);
    const desired = checkRunOf(
      unevaluatedVerdict({ cause, agentInvolved, detail: inert(message, { max: 300 }) }),
      { subjects: [] },
    );
    const failure = { repo: ref.repo, headSha: check.headSha, cause, conclusion: desired.conclusion };
    try {
      const write =
        seen.existing === undefined ? { kind: "create" as const } : decideCheckWrite(seen.existing, desired);
      if (write.kind === "create") await checks.create(ref, check.headSha, desired);
      if (write.kind === "update") await checks.update(ref, write.id, desired);
      log.error(
        { ...failure, err: error },
        "claim-hold check could not be evaluated: completed as such, to be re-run",
      );
    } catch (writeError) {
      log.error(
        { ...failure, err: error, writeError },
        "claim-hold check could not be evaluated nor completed: left to the retry",
      );
    }
    await this.#unfinished.remember(check);
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
    return (await this.#decide(installationId, repo, repoId, pr, config)).verdict;
  }

  /** The verdict of a PR once what the store lost of its linked subjects is read back from GitHub. */
  async #recoverAndDecide(installationId: number, repo: string, repoId: number, pr: IndexedPullRequest) {
    const unknown = await this.#recovery.linked(installationId, repo, repoId, pr);
    const unknownForeign = await this.#recovery.foreign(installationId, pr);
    return this.#decide(installationId, repo, repoId, pr, undefined, unknown, unknownForeign);
  }

  async #decide(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
    knownConfig?: RepoConfig,
    unknown: ReadonlySet<number> = new Set(),
    unknownForeign: ReadonlySet<string> = new Set(),
  ) {
    const { store, fences, now: clock } = this.deps;
    const trust = await this.#trustOf(installationId, repo, pr.author);
    const config = knownConfig ?? trust.config;
    const mayLink = branchMayLink({
      headRef: pr.headRef,
      patterns: trust.patterns,
      authorFleet: trust.authorFleet,
    });
    const now = clock();
    // A person's PR is linked through its branch only while that branch is a live claim's: an ended
    // claim's branch name alone never links it (docs/security.md#trust-model). A fleet login's
    // always is: a superseded holder's PR must meet its successor.
    const branchLinks = (record: ClaimRecord | null) =>
      mayLink && (trust.authorFleet || (record?.state === "active" && record.branch === pr.headRef));
    const read = await Promise.all(
      pr.linked.map(async (issue) => {
        const key: SubjectKey = { installationId, repoId, issue };
        const record = await store.get(key);
        const current =
          record?.tokenDigest !== undefined
            ? { generation: record.generation, tokenDigest: record.tokenDigest }
            : undefined;
        const found = await fences.evidence(key, pr.headSha, now, current);
        return { issue, record, found };
      }),
    );
    const evidence = read.filter(
      ({ issue, record }) => pr.closes.includes(issue) || unknown.has(issue) || branchLinks(record),
    );
    const subjects = evidence.map(({ issue, record, found }) => ({
      ...linkedSubjectOf(subjectName(repo, issue), record, found, branchLinks(record) ? pr.headRef : null),
      ...(unknown.has(issue) ? { stateUnknown: true } : {}),
    }));
    // Issues of other repositories it closes: fenced like its own where this installation holds a
    // claim record (GitHub links them the same way); branch names are per repository, so only the
    // closing reference links them.
    const foreign = await this.#foreignEvidence(installationId, pr, now, unknownForeign);
    subjects.push(
      ...foreign.held.map(({ ref, record, found }) =>
        linkedSubjectOf(subjectName(ref.repo, ref.issue), record, found, null),
      ),
      // Invariant 12 across repositories: a claim GitHub shows but no marker explains fails closed.
      ...foreign.unknown.map((ref) => ({
        subject: subjectName(ref.repo, ref.issue),
        record: null,
        everAgentClaimed: true,
        branchGenerations: [],
        attestedGenerations: [],
        stateUnknown: true,
      })),
    );
    const allClaims = [...evidence, ...foreign.held].flatMap(({ record, found }) => claimsOf(found, record));
    const decided = decideCheck({
      pullRequest: {
        number: pr.number,
        authorKind: trust.authorFleet ? "agent" : authorKindOf(pr.author, allClaims),
        headRef: pr.headRef,
        headSha: pr.headSha,
      },
      subjects,
      requireAttestation: config.check.requireAttestation,
      agentBranches: agentBranchPatterns(config.check),
    });
    const verdict = foreign.unheld.length
      ? { ...decided, text: `${decided.text}\n\n${unfencedNote(foreign.unheld)}` }
      : decided;
    return { verdict, subjects, evidence, foreign: foreign.held.map(({ ref }) => ref) };
  }

  /** The store's evidence of the other repositories' issues a PR closes; `unheld`: those it has no record of. */
  async #foreignEvidence(
    installationId: number,
    pr: IndexedPullRequest,
    now: number,
    unknownForeign: ReadonlySet<string>,
  ) {
    const { store, fences } = this.deps;
    const held: { ref: ForeignIssue; record: ClaimRecord; found: FenceEvidence }[] = [];
    const unheld: ForeignIssue[] = [];
    const unknown: ForeignIssue[] = [];
    for (const ref of pr.elsewhere ?? []) {
      const key: SubjectKey = { installationId, repoId: ref.repoId, issue: ref.issue };
      const record = await store.get(key);
      if (!record) {
        (unknownForeign.has(`${ref.repoId}#${ref.issue}`) ? unknown : unheld).push(ref);
        continue;
      }
      const current =
        record.tokenDigest !== undefined
          ? { generation: record.generation, tokenDigest: record.tokenDigest }
          : undefined;
      held.push({ ref, record, found: await fences.evidence(key, pr.headSha, now, current) });
    }
    return { held, unheld, unknown };
  }

  /** `superseded-pr` for the subject whose superseded holder the PR head belongs to (queued, never awaited). */
  async #notifySuperseded(
    installationId: number,
    repo: string,
    pr: IndexedPullRequest,
    subjects: { record: ClaimRecord | null; attestedGenerations: number[]; branchGenerations: number[] }[],
  ): Promise<void> {
    const { notifier, configs } = this.deps;
    if (!notifier) return;
    const superseded = subjects.flatMap(({ record, attestedGenerations, branchGenerations }) => {
      const older = [...attestedGenerations, ...branchGenerations].filter((g) => g !== record?.generation);
      return record && older.length > 0 ? [{ record, previous: Math.max(...older) }] : [];
    })[0];
    if (!superseded) return;
    // The evaluation just loaded it: cached.
    const config = configs.peek(installationId, repo) ?? (await configs.load(installationId, repo));
    notifier.emit(
      supersededPullRequestNotification(
        {
          record: superseded.record,
          pullRequest: pr.number,
          headSha: pr.headSha,
          headRef: pr.headRef,
          supersededGeneration: superseded.previous,
        },
        config,
      ),
    );
  }

  async #evaluateNow(
    installationId: number,
    repo: string,
    repoId: number,
    indexed: IndexedPullRequest,
    seen: Seen,
  ): Promise<CheckChange> {
    const { checks, configs } = this.deps;
    const ref = { installationId, repo };
    const { closes, closesElsewhere, existing } = await checks.readPullRequestCheck(
      { ...ref, repoId },
      indexed,
    );
    seen.existing = existing;
    seen.pullRequests = [{ ...indexed, closes, closesElsewhere }];
    const pr = await this.#index({ installationId, repoId }, repo, {
      ...indexed,
      closes: closes.slice(0, 50),
      elsewhere: closesElsewhere,
    });
    const { verdict, subjects, evidence, foreign } = await this.#recoverAndDecide(
      installationId,
      repo,
      repoId,
      pr,
    );
    await this.#crossLinks.remember(installationId, { repo, repoId, number: pr.number }, foreign);
    const detailsIssue = evidence.find((e) => e.record)?.issue ?? evidence[0]?.issue;
    const configError = configs.errorFor(installationId, repo);
    const detailsUrl = claimRouteUrl(this.deps.publicUrl, repo, detailsIssue);
    const desired = checkRunOf(verdict, {
      subjects,
      ...(configError ? { configError } : {}),
      ...(detailsUrl ? { detailsUrl } : {}),
    });
    const change = await this.#sync(ref, pr, existing, desired);
    if (change.written && verdict.title === supersededTitle) {
      await this.#notifySuperseded(installationId, repo, pr, subjects);
    }
    return change;
  }

  /** Step 5: the run written only when it differs from what GitHub shows. */
  async #sync(
    ref: { installationId: number; repo: string },
    pr: { number: number; headSha: string },
    existing: ExistingCheckRun | null,
    desired: DesiredCheckRun,
  ): Promise<CheckChange> {
    const { checks } = this.deps;
    const write = decideCheckWrite(existing, desired);
    if (write.kind === "create") await checks.create(ref, pr.headSha, desired);
    if (write.kind === "update") await checks.update(ref, write.id, desired);
    this.deps.log.info(
      {
        repo: ref.repo,
        pullRequest: pr.number,
        headSha: pr.headSha,
        conclusion: desired.conclusion,
        write: write.kind,
      },
      "claim-hold check evaluated",
    );
    return {
      repo: ref.repo,
      number: pr.number,
      headSha: pr.headSha,
      before: existing?.conclusion ?? null,
      after: desired.conclusion,
      written: write.kind !== "none",
    };
  }
}

/** A merge group a PR was judged in, as its `checks_requested` named it. */
type RememberedGroup = Pick<MergeGroupEvent, "headSha" | "headRef" | "baseRef">;

/** A merge group waits in the queue for its checks, minutes to hours; a day covers any. */
const groupMemoryMs = 24 * 3_600_000;
/** Groups remembered per PR: each rebuild of the queue makes a new one; the oldest are long gone. */
const rememberedGroupsPerPull = 10;

function groupsDocument(installationId: number, repoId: number, number: number): string {
  return `merge-groups:${installationId}:${repoId}:${number}`;
}

/** The verdict title of check-verdict.ts's superseded-holder rule. */
const supersededTitle = "Superseded holder";

/** What a retry of a PR's evaluation needs. */
function pullCheckOf(
  installationId: number,
  repo: string,
  repoId: number,
  pr: { number: number; headSha: string },
  at: number,
): Extract<UnfinishedCheck, { kind: "pull" }> {
  return { kind: "pull", installationId, repo, repoId, number: pr.number, headSha: pr.headSha, at };
}

/** The check's details link: the subject's claim route on this App, when its public URL is known. */
function claimRouteUrl(
  publicUrl: string | undefined,
  repo: string,
  issue: number | undefined,
): string | undefined {
  if (!publicUrl || issue === undefined) return undefined;
  return `${publicUrl.replace(/\/+$/, "")}/api/v1/repos/${repo}/issues/${issue}/claim`;
}
