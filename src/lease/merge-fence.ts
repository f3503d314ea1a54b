// The merge fence: keeps the `claim-hold` check run of every linked PR head in step with the claims (SPEC §5).
//
// Pipeline of one evaluation:
//   1. one GitHub read: the PR's closing issue references as GitHub links them (keywords, URLs,
//      manual links) and the App's current check run on the head;
//   2. linked subjects = those references ∪ subjects whose claims named its head branch (re-indexed);
//   3. evidence per subject: the store's record, the fence's claim notes and attestations of the head;
//   4. decideCheck (pure) → the desired check run (checkRunOf, pure);
//   5. write only when it differs from the run read in step 1 (decideCheckWrite, pure).
import type { Logger } from "pino";
import type { RepoConfig } from "../config/repo-config.js";
import { type ClaimRecord, parseLeaseId, type SubjectKey, subjectName } from "../domain/claim.js";
import { supersededPullRequestNotification } from "../notify/notification-events.js";
import type { Notifier } from "../notify/notifier.js";
import type { AssignmentProvider } from "../providers/assignment-provider.js";
import type { ChecksProvider } from "../providers/checks-provider.js";
import type { ClaimNote, FenceStore, IndexedPullRequest, RepoKey } from "../providers/fence-store.js";
import type { ClaimStore, DocumentStore } from "../providers/liveness-store.js";
import { authorKindOf, checkRunOf, claimsOf, decideCheckWrite, linkedSubjectOf } from "./check-run-plan.js";
import { type CheckConclusion, decideCheck } from "./check-verdict.js";
import type { RepoConfigSource } from "./lease-core.js";
import { refused } from "./refusals.js";
import { claimStateUnknown, latestMarker, recordFromMarker } from "./restore-from-comments.js";

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
}

/** A linked subject whose issue carries no claim comment is remembered as never claimed (saves a read). */
const neverClaimedMemoryMs = 30 * 24 * 3_600_000;

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

  constructor(private readonly deps: MergeFenceDeps) {}

  /** A PR was opened, pushed to, reopened, edited or marked ready: index it and evaluate its check. */
  async pullRequestChanged(event: PullRequestEvent): Promise<CheckChange> {
    const repoKey = { installationId: event.installationId, repoId: event.repoId };
    // Indexed before GitHub is read, with the links it had: should the evaluation fail, a claim
    // transition still finds (and re-runs) this PR.
    const known = await this.deps.fences.pullRequest(repoKey, event.number);
    const pr = await this.#index(repoKey, {
      number: event.number,
      headSha: event.headSha,
      headRef: event.headRef,
      author: event.author,
      closes: known?.closes ?? [],
      linked: [],
    });
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
      pr = await this.#index(repoKey, pr);
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
    if (prs.length === 0) return [];
    const record = await this.deps.store.get(key);
    if (!record) {
      this.deps.log.warn(
        { installationId, repoId: key.repoId, issue: key.issue },
        "no claim record to name the repository; checks not re-run",
      );
      return [];
    }
    const changes: CheckChange[] = [];
    for (const pr of prs) changes.push(await this.#evaluate(installationId, record.repo, key.repoId, pr));
    return changes;
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
    return { attested: true, sha, generation: lease.generation };
  }

  #storedDigest(token: string, record: ClaimRecord | null): string {
    const digests = this.deps.tokenDigests(token);
    return digests.find((d) => d === record?.tokenDigest) ?? digests[0]!;
  }

  /** Links = GitHub's closing references ∪ subjects whose claims named the head branch; re-indexed when that changed. */
  async #index(repo: RepoKey, pr: IndexedPullRequest): Promise<IndexedPullRequest> {
    const byBranch = await this.deps.fences.subjectsForBranch(repo, pr.headRef);
    const linked = [...new Set([...pr.closes, ...byBranch])].slice(0, 100);
    const known = await this.deps.fences.pullRequest(repo, pr.number);
    const next = { ...pr, linked };
    if (!known || JSON.stringify(known) !== JSON.stringify(next))
      await this.deps.fences.putPullRequest(repo, next);
    return next;
  }

  async #evaluate(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
  ): Promise<CheckChange> {
    const id = `${installationId}:${repoId}:${pr.headSha}`;
    const previous = this.#heads.get(id) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(() => this.#evaluateNow(installationId, repo, repoId, pr));
    this.#heads.set(id, run);
    try {
      return await run;
    } finally {
      if (this.#heads.get(id) === run) this.#heads.delete(id);
    }
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

  async #decide(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
    knownConfig?: RepoConfig,
    unknown: ReadonlySet<number> = new Set(),
  ) {
    const { store, fences, configs, now: clock } = this.deps;
    const config = knownConfig ?? (await configs.load(installationId, repo));
    const now = clock();
    const evidence = await Promise.all(
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
    const subjects = evidence.map(({ issue, record, found }) => ({
      ...linkedSubjectOf(subjectName(repo, issue), record, found, pr.headRef),
      ...(unknown.has(issue) ? { stateUnknown: true } : {}),
    }));
    const allClaims = evidence.flatMap(({ record, found }) => claimsOf(found, record));
    const verdict = decideCheck({
      pullRequest: {
        number: pr.number,
        authorKind: authorKindOf(pr.author, allClaims),
        headRef: pr.headRef,
        headSha: pr.headSha,
      },
      subjects,
      requireAttestation: config.check.requireAttestation,
      agentBranchPrefix: config.check.agentBranchPrefix,
    });
    return { verdict, subjects, evidence };
  }

  /**
   * Invariant 7 at the merge: a linked subject without a store record may have lost it. Its claim
   * comments bring the newest incarnation back (whatever its state) before the verdict; one with no
   * claim comment is remembered as never claimed, so the steady state costs no extra read.
   */
  async #recoverLinked(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
  ): Promise<Set<number>> {
    const { store, assignments, configs, now: clock } = this.deps;
    const unknown = new Set<number>();
    if (!assignments) return unknown;
    for (const issue of pr.linked) {
      const key: SubjectKey = { installationId, repoId, issue };
      if ((await store.get(key)) !== null) continue;
      const memo = `never-claimed:${installationId}:${repoId}:${issue}`;
      if ((await store.getDocument(memo)) !== null) continue;
      const snapshot = await assignments.status({ installationId, repo, issue });
      const latest = snapshot ? latestMarker(snapshot) : undefined;
      if (snapshot) {
        const { labels } = await configs.load(installationId, repo);
        if (claimStateUnknown(snapshot, [labels.claimed, labels.stale])) {
          unknown.add(issue);
          continue;
        }
      }
      if (!snapshot || !latest) {
        await store.putDocument(memo, { at: clock() }, neverClaimedMemoryMs);
        continue;
      }
      const now = clock();
      const epoch = await store.epoch(installationId, now);
      await store.restore(recordFromMarker(key, snapshot, latest, epoch, now), now);
      this.deps.log.info(
        { subject: subjectName(repo, issue) },
        "linked subject restored from its claim comment for the check",
      );
    }
    return unknown;
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
  ): Promise<CheckChange> {
    const { checks, configs } = this.deps;
    const ref = { installationId, repo };
    const { closes, existing } = await checks.readPullRequestCheck({ ...ref, repoId }, indexed);
    const pr = await this.#index({ installationId, repoId }, { ...indexed, closes: closes.slice(0, 50) });
    const unknown = await this.#recoverLinked(installationId, repo, repoId, pr);
    const { verdict, subjects, evidence } = await this.#decide(
      installationId,
      repo,
      repoId,
      pr,
      undefined,
      unknown,
    );
    const detailsIssue = evidence.find((e) => e.record)?.issue ?? evidence[0]?.issue;
    const configError = configs.errorFor(installationId, repo);
    const detailsUrl = claimRouteUrl(this.deps.publicUrl, repo, detailsIssue);
    const desired = checkRunOf(verdict, {
      subjects,
      ...(configError ? { configError } : {}),
      ...(detailsUrl ? { detailsUrl } : {}),
    });
    const write = decideCheckWrite(existing, desired);
    if (write.kind === "create") await checks.create(ref, pr.headSha, desired);
    if (write.kind === "update") await checks.update(ref, write.id, desired);
    if (write.kind !== "none" && verdict.title === supersededTitle) {
      await this.#notifySuperseded(installationId, repo, pr, subjects);
    }
    this.deps.log.info(
      {
        repo,
        pullRequest: pr.number,
        headSha: pr.headSha,
        conclusion: desired.conclusion,
        write: write.kind,
      },
      "claim-hold check evaluated",
    );
    return {
      repo,
      number: pr.number,
      headSha: pr.headSha,
      before: existing?.conclusion ?? null,
      after: desired.conclusion,
      written: write.kind !== "none",
    };
  }
}

/** The verdict title of check-verdict.ts's superseded-holder rule. */
const supersededTitle = "Superseded holder";

/** The check's details link: the subject's claim route on this App, when its public URL is known. */
function claimRouteUrl(
  publicUrl: string | undefined,
  repo: string,
  issue: number | undefined,
): string | undefined {
  if (!publicUrl || issue === undefined) return undefined;
  return `${publicUrl.replace(/\/+$/, "")}/api/v1/repos/${repo}/issues/${issue}/claim`;
}
