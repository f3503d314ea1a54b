// The `claim-hold` check run of one PR head (docs/reference/github-surfaces.md#the-claim-hold-check-run).
//
// Pipeline of one evaluation:
//   1. one GitHub read: the PR's closing issue references as GitHub links them (keywords, URLs,
//      manual links) and the App's current check run on the head;
//   2. linked subjects = those references ∪ subjects whose claims named its head branch (re-indexed);
//   3. evidence per subject: the store's record, the fence's claim notes and attestations of the head;
//   4. decideCheck (pure) → the desired check run (checkRunOf, pure);
//   5. write only when it differs from the run read in step 1 (decideCheckWrite, pure).
import type { ClaimRecord } from "../domain/claim.js";
import { supersededPullRequestNotification } from "../notify/notification-events.js";
import type { IndexedPullRequest } from "../providers/fence-store.js";
import { checkRunOf } from "./check-run-plan.js";
import { completeUnevaluated, pullCheckOf } from "./complete-unevaluated.js";
import type { CrossLinks } from "./cross-links.js";
import { recoverAndDecide } from "./decide-pull-request.js";
import type { CheckChange, MergeFenceDeps, Seen } from "./fence-types.js";
import { indexPullRequest } from "./link-pull-request.js";
import type { OneAtATime } from "./one-at-a-time.js";
import type { SubjectRecovery } from "./subject-recovery.js";
import { syncCheckRun } from "./sync-check-run.js";
import type { UnfinishedChecks } from "./unfinished-checks.js";

/** What the PR head check shares with the rest of the fence. */
export interface PullRequestCheckParts {
  /** Evaluations of the same head run one after another, so at most one check run is created per head. */
  heads: OneAtATime;
  unfinished: UnfinishedChecks;
  recovery: SubjectRecovery;
  crossLinks: CrossLinks;
}

export class PullRequestCheck {
  constructor(
    private readonly deps: MergeFenceDeps,
    private readonly parts: PullRequestCheckParts,
  ) {}

  /** Evaluates the PR's check, after any evaluation of the same head; a failure completes the run anyway. */
  async evaluate(
    installationId: number,
    repo: string,
    repoId: number,
    pr: IndexedPullRequest,
  ): Promise<CheckChange> {
    return this.parts.heads.run(`${installationId}:${repoId}:${pr.headSha}`, async () => {
      // The index's closing references are the store's memory, not GitHub's answer: left out.
      const { closes: _indexed, linked: _linked, ...shown } = pr;
      const seen: Seen = { existing: undefined, pullRequests: [shown] };
      try {
        return await this.#evaluateNow(installationId, repo, repoId, pr, seen);
      } catch (error) {
        await completeUnevaluated(
          this.deps,
          this.parts.unfinished,
          { installationId, repo },
          seen,
          error,
          pullCheckOf(installationId, repo, repoId, pr, this.deps.now()),
        );
        throw error;
      }
    });
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
    const pr = await indexPullRequest(this.deps, { installationId, repoId }, repo, {
      ...indexed,
      closes: closes.slice(0, 50),
      elsewhere: closesElsewhere,
    });
    const { verdict, subjects, evidence, foreign } = await recoverAndDecide(
      this.deps,
      this.parts.recovery,
      installationId,
      repo,
      repoId,
      pr,
    );
    await this.parts.crossLinks.remember(installationId, { repo, repoId, number: pr.number }, foreign);
    const detailsIssue = evidence.find((e) => e.record)?.issue ?? evidence[0]?.issue;
    const configError = configs.errorFor(installationId, repo);
    const detailsUrl = claimRouteUrl(this.deps.publicUrl, repo, detailsIssue);
    const desired = checkRunOf(verdict, {
      subjects,
      ...(configError ? { configError } : {}),
      ...(detailsUrl ? { detailsUrl } : {}),
    });
    const change = await syncCheckRun(this.deps, ref, pr, existing, desired);
    if (change.written && verdict.title === supersededTitle) {
      await this.#notifySuperseded(installationId, repo, pr, subjects);
    }
    return change;
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
