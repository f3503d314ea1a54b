// The `claim-hold` check run of a merge group: the worst verdict over the group's PRs, and the groups each PR was judged in.
//
// Pipeline of one evaluation:
//   1. one GitHub read: the queue's entries and the App's run on the group head;
//   2. the group's PRs: the entry of this group and those ahead of it (membersOfGroup, pure);
//   3. each PR indexed with GitHub's closing references (a queued PR is fenced like any other);
//   4. `in_progress` first when no run is there yet and a linked subject must be recovered from
//      GitHub (more reads);
//   5. each PR's verdict (decideCheck) → the worst (decideGroupCheck) → written unless GitHub shows it.
// An evaluation that cannot finish completes the run anyway (completeUnevaluated).
import type { IndexedPullRequest } from "../providers/fence-store.js";
import { checkRunOf } from "./check-run-plan.js";
import { decideGroupCheck, type GroupMemberVerdict, type LinkedSubject } from "./check-verdict.js";
import { completeUnevaluated } from "./complete-unevaluated.js";
import { recoverAndDecide } from "./decide-pull-request.js";
import type { CheckChange, MergeFenceDeps, MergeGroupEvent, RememberedGroup, Seen } from "./fence-types.js";
import { indexPullRequest } from "./link-pull-request.js";
import { membersOfGroup, parseMergeGroupRef } from "./merge-group-plan.js";
import type { PullRequestCheckParts } from "./pull-request-check.js";
import { syncCheckRun } from "./sync-check-run.js";

/** A merge group waits in the queue for its checks, minutes to hours; a day covers any. */
const groupMemoryMs = 24 * 3_600_000;
/** Groups remembered per PR: each rebuild of the queue makes a new one; the oldest are long gone. */
const rememberedGroupsPerPull = 10;

function groupsDocument(installationId: number, repoId: number, number: number): string {
  return `merge-groups:${installationId}:${repoId}:${number}`;
}

export class MergeGroupCheck {
  constructor(
    private readonly deps: MergeFenceDeps,
    private readonly parts: Pick<PullRequestCheckParts, "heads" | "unfinished" | "recovery">,
  ) {}

  /** With `recheck`: null, and nothing written, when the group is no longer in the queue. */
  judge(group: MergeGroupEvent, recheck: boolean): Promise<CheckChange | null> {
    const { installationId, repo, repoId, headSha } = group;
    return this.parts.heads.run(`${installationId}:${repoId}:${headSha}`, async () => {
      const seen: Seen = { existing: undefined, pullRequests: [] };
      try {
        return await this.#evaluateGroup(group, seen, recheck);
      } catch (error) {
        await completeUnevaluated(this.deps, this.parts.unfinished, { installationId, repo }, seen, error, {
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

  /** The groups a PR was judged in (the latest last). */
  async groupsOf(installationId: number, repoId: number, number: number): Promise<RememberedGroup[]> {
    const value = await this.deps.stores.documents.getDocument(
      groupsDocument(installationId, repoId, number),
    );
    return Array.isArray(value) ? (value as RememberedGroup[]) : [];
  }

  /** Each member PR remembers the groups it was judged in, one update at a time per PR in this process. */
  async #rememberGroup(installationId: number, repoId: number, numbers: number[], group: RememberedGroup) {
    for (const number of numbers) {
      await this.parts.heads.run(`groups:${installationId}:${repoId}:${number}`, async () => {
        const known = (await this.groupsOf(installationId, repoId, number)).filter(
          (g) => g.headSha !== group.headSha,
        );
        const kept = [...known, group].slice(-rememberedGroupsPerPull);
        await this.deps.stores.documents.putDocument(
          groupsDocument(installationId, repoId, number),
          kept,
          groupMemoryMs,
        );
      });
    }
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
      members.push(
        await indexPullRequest(this.deps, repoKey, repo, {
          ...pr,
          elsewhere: closesElsewhere ?? [],
          linked: [],
        }),
      );
    }
    await this.#rememberGroup(
      installationId,
      repoId,
      members.map((pr) => pr.number),
      { headSha, headRef: group.headRef, baseRef: group.baseRef },
    );
    // A run already on the head (a redelivery, a retry) shows the group is being answered.
    if (read.existing === null && (await this.parts.recovery.needed(installationId, repoId, members))) {
      const id = await checks.start(ref, headSha, {
        title: "Evaluating the merge group",
        summary: "claim-hold is recovering the claims of this group's pull requests from GitHub.",
      });
      seen.existing = { id, conclusion: null, title: null, summary: null, text: null };
    }
    const verdicts: GroupMemberVerdict[] = [];
    const subjects: LinkedSubject[] = [];
    for (const pr of members) {
      const decided = await recoverAndDecide(
        this.deps,
        this.parts.recovery,
        installationId,
        repo,
        repoId,
        pr,
      );
      verdicts.push({ number: pr.number, verdict: decided.verdict });
      subjects.push(...decided.subjects);
    }
    const configError = configs.errorFor(installationId, repo);
    const desired = checkRunOf(decideGroupCheck(verdicts), {
      subjects,
      ...(configError ? { configError } : {}),
    });
    const named = parseMergeGroupRef(group.headRef)?.number ?? members.at(-1)?.number ?? 0;
    return syncCheckRun(this.deps, ref, { number: named, headSha }, seen.existing ?? null, desired);
  }
}
