// issues, issue_dependencies, sub_issues and pull_request webhooks → the candidate index's feed: the payload's facts, read from GitHub only where it does not carry them.

import { closedIssuesOf } from "../providers/github/closing-keywords.js";
import {
  factsFromIssue,
  type IssueObject,
  openBlockerCount,
  openBlockingCount,
  openSubIssuesOf,
  parentOf,
  subjectOf,
  surfaceOf,
} from "../providers/github/queue-facts.js";
import { standingOf } from "../providers/github/subject-snapshot.js";
import type {
  CandidateFeed,
  CandidateSource,
  ClosingPullRequest,
  QueueRepo,
  QueueStore,
} from "../providers/queue-store.js";
import type { GuardOptions, WebhookHandler, WebhookPayload } from "./webhook-guard.js";

/**
 * One change to the index; the `read…` steps cost one GitHub request each (two for `put` with both
 * reads), `link-pull`/`unlink-pull` read the store's entry of each issue and write it back.
 */
export type FeedStep =
  | { op: "put"; issue: IssueObject; readBlockers: boolean; readClosingPullRequests: boolean }
  | { op: "patch"; issue: number; patch: Parameters<CandidateFeed["patchCandidate"]>[2] }
  | { op: "drop"; issue: number; blocker: string }
  | { op: "read-blockers"; issue: number }
  | { op: "read-sub-issues"; issue: number }
  | { op: "link-pull"; issues: number[]; pullRequest: ClosingPullRequest }
  | { op: "unlink-pull"; issues: number[]; pullRequest: number }
  | { op: "read-blocked"; issue: number };

export interface FeedAction {
  repo: QueueRepo;
  steps: FeedStep[];
}

/** The `issues` actions that change the index. */
export const issueFeedEvents = [
  "issues.opened",
  "issues.edited",
  "issues.closed",
  "issues.reopened",
  "issues.labeled",
  "issues.unlabeled",
  "issues.assigned",
  "issues.unassigned",
  "issues.transferred",
  "issues.deleted",
] as const;
export const dependencyFeedEvents = [
  "issue_dependencies.blocked_by_added",
  "issue_dependencies.blocked_by_removed",
] as const;
export const subIssueFeedEvents = ["sub_issues.sub_issue_added", "sub_issues.sub_issue_removed"] as const;
export const pullRequestFeedEvents = [
  "pull_request.opened",
  "pull_request.reopened",
  "pull_request.closed",
  "pull_request.edited",
] as const;

type IssuesPayload = WebhookPayload<(typeof issueFeedEvents)[number]>;
type DependencyPayload = WebhookPayload<(typeof dependencyFeedEvents)[number]>;
type SubIssuePayload = WebhookPayload<(typeof subIssueFeedEvents)[number]>;
type PullRequestPayload = WebhookPayload<(typeof pullRequestFeedEvents)[number]>;

/** Issues blocked by a reopened issue whose blocker lists are re-read (more wait for the next refresh). */
export const maxBlockedRereads = 10;

function queueRepoOf(payload: {
  installation?: { id: number } | null;
  repository?: { id: number; full_name: string } | null;
}): QueueRepo | null {
  if (!payload.installation || !payload.repository) return null;
  return {
    installationId: payload.installation.id,
    repoId: payload.repository.id,
    repo: payload.repository.full_name,
  };
}

/** The parent of `issue` in the same repository, whose open sub-issue count just changed. */
function parentStep(repo: QueueRepo, issue: IssueObject): FeedStep[] {
  const parent = parentOf(issue);
  return parent && parent.repo.toLowerCase() === repo.repo.toLowerCase()
    ? [{ op: "read-sub-issues", issue: parent.issue }]
    : [];
}

/** decide (pure): what an `issues` event changes in the index. */
export function decideIssueEvent(payload: IssuesPayload): FeedAction | null {
  const repo = queueRepoOf(payload);
  if (!repo) return null;
  const { issue } = payload;
  const blocker = subjectOf(issue) ?? `${repo.repo}#${issue.number}`;
  switch (payload.action) {
    case "opened":
      return {
        repo,
        steps: [
          { op: "put", issue, readBlockers: openBlockerCount(issue) > 0, readClosingPullRequests: false },
        ],
      };
    case "reopened":
      return {
        repo,
        steps: [
          { op: "put", issue, readBlockers: openBlockerCount(issue) > 0, readClosingPullRequests: true },
          ...(openBlockingCount(issue) > 0 ? [{ op: "read-blocked", issue: issue.number } as const] : []),
          ...parentStep(repo, issue),
        ],
      };
    case "edited":
    case "labeled":
    case "unlabeled":
    case "assigned":
    case "unassigned":
      if (issue.state === "closed") return null;
      return { repo, steps: [{ op: "patch", issue: issue.number, patch: surfaceOf(issue) }] };
    case "closed":
    case "deleted":
    case "transferred":
      return { repo, steps: [{ op: "drop", issue: issue.number, blocker }, ...parentStep(repo, issue)] };
    default:
      return null;
  }
}

/**
 * decide (pure): a blocker added to or removed from an issue of this repository. The payload's
 * summary gives the open blocker count; only a list of two or more needs reading.
 */
export function decideDependencyEvent(payload: DependencyPayload): FeedAction | null {
  const repo = queueRepoOf(payload);
  // `blocking_*` is the same change told to the blocker's repository; the index keeps blocked issues.
  if (!repo || !payload.action.startsWith("blocked_by_")) return null;
  const blocked = payload.blocked_issue;
  if (blocked.state === "closed") return null;
  const open = blocked.issue_dependencies_summary?.blocked_by;
  const blocking = payload.blocking_issue;
  const blocker =
    subjectOf(blocking) ??
    (payload.blocking_issue_repo ? `${payload.blocking_issue_repo.full_name}#${blocking.number}` : null);
  if (open === 0) return { repo, steps: [{ op: "patch", issue: blocked.number, patch: { blockers: [] } }] };
  if (open === 1 && payload.action === "blocked_by_added" && blocking.state !== "closed" && blocker) {
    return { repo, steps: [{ op: "patch", issue: blocked.number, patch: { blockers: [blocker] } }] };
  }
  return { repo, steps: [{ op: "read-blockers", issue: blocked.number }] };
}

/** decide (pure): a sub-issue added to or removed from a parent in this repository. */
export function decideSubIssueEvent(payload: SubIssuePayload): FeedAction | null {
  const repo = queueRepoOf(payload);
  // `parent_issue_*` is the same change told to the sub-issue's repository.
  if (!repo || !payload.action.startsWith("sub_issue_")) return null;
  const parent = payload.parent_issue;
  if (parent.state === "closed") return null;
  if (!parent.sub_issues_summary) return { repo, steps: [{ op: "read-sub-issues", issue: parent.number }] };
  return {
    repo,
    steps: [{ op: "patch", issue: parent.number, patch: { openSubIssues: openSubIssuesOf(parent) } }],
  };
}

/**
 * The issues of the repository a pull request's body closes, as GitHub links closing keywords: only
 * for a PR into the default branch. Links made by hand in the sidebar are in no payload; the
 * claim's read sees them, and the next refresh indexes them.
 */
function closedByBody(payload: PullRequestPayload, body: string | null | undefined, base: string): number[] {
  const repository = payload.repository;
  if (!repository || (repository.default_branch !== undefined && base !== repository.default_branch))
    return [];
  const webBases = [
    "https://github.com",
    ...(repository.html_url ? [new URL(repository.html_url).origin] : []),
  ];
  return closedIssuesOf(body, repository.full_name, webBases);
}

/**
 * decide (pure): a pull request opened, closed, reopened, or edited in its body or base: which
 * issues it now closes and which it no longer does, from the payload alone (0 GitHub requests).
 */
export function decidePullRequestEvent(payload: PullRequestPayload): FeedAction | null {
  const repo = queueRepoOf(payload);
  if (!repo) return null;
  const pull = payload.pull_request;
  // An outsider's PR (a fork's, or a reader's) blocks nothing: it is never linked (docs/security.md#trust-model).
  const counts = standingOf({
    author: pull.user
      ? { login: pull.user.login, ...(pull.user.type ? { __typename: pull.user.type } : {}) }
      : null,
    // A head repository GitHub deleted (`null`) is a fork's that is gone.
    ...(pull.base.repo ? { isCrossRepository: pull.head.repo?.id !== pull.base.repo.id } : {}),
    ...(pull.author_association ? { authorAssociation: pull.author_association } : {}),
  });
  const closes = counts ? closedByBody(payload, pull.body, pull.base.ref) : [];
  const link = (issues: number[]): FeedStep => ({
    op: "link-pull",
    issues,
    pullRequest: { number: pull.number, headRefName: pull.head.ref, author: pull.user?.login ?? null },
  });
  const unlink = (issues: number[]): FeedStep => ({ op: "unlink-pull", issues, pullRequest: pull.number });
  const action = (steps: FeedStep[]) => {
    const acting = steps.filter((step) => "issues" in step && step.issues.length > 0);
    return acting.length > 0 ? { repo, steps: acting } : null;
  };
  switch (payload.action) {
    case "opened":
    case "reopened":
      return action([link(closes)]);
    case "closed":
      return action([unlink(closes)]);
    case "edited": {
      const { changes } = payload;
      if (!changes?.body && !changes?.base) return null;
      const before = closedByBody(
        payload,
        changes.body?.from ?? pull.body,
        changes.base?.ref?.from ?? pull.base.ref,
      );
      const now = pull.state === "open" ? closes : [];
      return action([unlink(before.filter((issue) => !now.includes(issue))), link(now)]);
    }
    default:
      return null;
  }
}

export interface QueueFeedDeps {
  candidates: CandidateFeed & Pick<QueueStore, "candidate">;
  source: CandidateSource;
}

/** apply: the steps in order, each one store call (after its GitHub read, when it has one). */
export async function applyFeedAction(action: FeedAction, deps: QueueFeedDeps): Promise<void> {
  const { repo } = action;
  const { candidates, source } = deps;
  for (const step of action.steps) {
    switch (step.op) {
      case "put": {
        const [blockers, closingPullRequests] = await Promise.all([
          step.readBlockers ? source.openBlockers(repo, step.issue.number) : [],
          step.readClosingPullRequests ? source.closingPullRequests(repo, step.issue.number) : [],
        ]);
        await candidates.putCandidate(repo, factsFromIssue(step.issue, { blockers, closingPullRequests }));
        break;
      }
      case "patch":
        await candidates.patchCandidate(repo, step.issue, step.patch);
        break;
      case "drop":
        await candidates.dropCandidate(repo, step.issue);
        await candidates.dropBlocker(repo, step.blocker);
        break;
      case "read-blockers":
        await candidates.patchCandidate(repo, step.issue, {
          blockers: await source.openBlockers(repo, step.issue),
        });
        break;
      case "read-sub-issues":
        await candidates.patchCandidate(repo, step.issue, {
          openSubIssues: await source.openSubIssues(repo, step.issue),
        });
        break;
      case "link-pull":
      case "unlink-pull":
        for (const issue of step.issues) {
          const indexed = await candidates.candidate(repo, issue);
          if (!indexed) continue;
          const number = step.op === "link-pull" ? step.pullRequest.number : step.pullRequest;
          const others = indexed.closingPullRequests.filter((pr) => pr.number !== number);
          const closingPullRequests = step.op === "link-pull" ? [...others, step.pullRequest] : others;
          // A redelivery, or a PR the entry already lists as it is: nothing to write.
          if (JSON.stringify(closingPullRequests) === JSON.stringify(indexed.closingPullRequests)) continue;
          await candidates.patchCandidate(repo, issue, { closingPullRequests });
        }
        break;
      case "read-blocked":
        for (const issue of (await source.blockedIssues(repo, step.issue)).slice(0, maxBlockedRereads)) {
          await candidates.patchCandidate(repo, issue, { blockers: await source.openBlockers(repo, issue) });
        }
        break;
    }
  }
}

/**
 * A feed handler. Bots' events count too (the App's own assignments are facts), and every delivery
 * runs: each step sets facts as GitHub states them, so a redelivery repeats safely (the guard's
 * delivery key is per event name, and the claim handlers on `issues` already record it).
 */
export function feedHandler<P>(
  decide: (payload: P) => FeedAction | null,
  deps: QueueFeedDeps,
): WebhookHandler<P, FeedAction> {
  return { decide, apply: (action) => applyFeedAction(action, deps) };
}

export const feedOptions: GuardOptions = { allowBots: true, dedupe: false };
