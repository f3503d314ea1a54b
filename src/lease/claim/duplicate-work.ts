// Claims that would duplicate or jump ahead of work (`409 blocked`, `409 pr_open`: docs/reference/http-api.md#post-apiv1claims--claim-re-claim-or-take-over) and a pick's re-check of its candidate, from the claim's one read.
import { subjectName } from "../../domain/claim.js";
import { eligibilityOf } from "../../domain/eligibility.js";
import type { SubjectSnapshot } from "../../providers/assignment-provider.js";
import type { CandidateFacts } from "../../providers/queue-store.js";
import type { ClaimRequest, PickCheck } from "../outcomes.js";
import type { Refusal } from "../refusals.js";

/**
 * Head branches of this subject's claims, as its claim comments name them: a PR from one of them
 * is the subject's own work (a handed-off or taken-over claim continues it), not someone else's.
 */
export function claimBranchesOf(snapshot: SubjectSnapshot): string[] {
  return [...new Set(snapshot.claimComments.flatMap((c) => (c.marker.branch ? [c.marker.branch] : [])))];
}

/**
 * A direct claim's duplicate-work refusal. Blockers come from the candidate index (GitHub's
 * issue dependencies are REST only, so reading them here would cost the claim a second request);
 * the open PRs come from the claim's own GraphQL read (`closedByPullRequestsReferences`).
 */
export function duplicateWorkRefusal(input: {
  request: Pick<ClaimRequest, "takeover" | "ignoreBlockers" | "allowOpenPullRequest">;
  snapshot: SubjectSnapshot;
  blockers: readonly string[];
}): Refusal | null {
  const { request, snapshot, blockers } = input;
  const subject = subjectName(snapshot.repo, snapshot.issue);
  if (blockers.length > 0 && !request.ignoreBlockers) {
    return {
      code: "blocked",
      message: `${subject} is blocked by ${blockers.join(", ")}; send "ignoreBlockers": true to claim it anyway.`,
      details: { blockers: blockers.map((blocker) => ({ subject: blocker, state: "open" })) },
    };
  }
  if (request.takeover || request.allowOpenPullRequest) return null;
  const ours = new Set(claimBranchesOf(snapshot));
  const foreign = snapshot.openPullRequests.filter((pr) => !ours.has(pr.headRef));
  if (foreign.length === 0) return null;
  return {
    code: "pr_open",
    message: `${subject} already has an open pull request that closes it (#${foreign.map((pr) => pr.number).join(", #")}); send "allowOpenPullRequest": true to claim it anyway.`,
    details: {
      pullRequests: foreign.map((pr) => ({ number: pr.number, headRef: pr.headRef, author: pr.author })),
    },
  };
}

/** The candidate's facts as the claim's read shows them (blockers only the index knows). */
export function observedFacts(snapshot: SubjectSnapshot, indexed: CandidateFacts): CandidateFacts {
  return {
    ...indexed,
    title: snapshot.title,
    labels: [...snapshot.labels],
    assignees: snapshot.assignees.map((a) => a.login),
    openSubIssues: snapshot.openSubIssues ?? indexed.openSubIssues,
    closingPullRequests: snapshot.openPullRequests.map((pr) => ({
      number: pr.number,
      headRefName: pr.headRef,
      author: pr.author,
    })),
  };
}

/** Why the claim's read shows a picked candidate ineligible after all (null: still eligible). */
export function pickRecheck(snapshot: SubjectSnapshot, pick: PickCheck, login: string, now: number) {
  const facts = observedFacts(snapshot, pick.facts);
  // Assignees and live claims were judged by `decideClaim` and the store; the rest is judged here.
  const verdict = eligibilityOf({
    facts: { ...facts, assignees: [], state: snapshot.state },
    record: null,
    claimBranches: claimBranchesOf(snapshot),
    login,
    filter: pick.filter,
    includeTakeovers: pick.takeover,
    now,
  });
  return verdict.eligible ? null : { reason: verdict.reason, facts };
}
