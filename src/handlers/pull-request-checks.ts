// pull_request, check_run and check_suite webhooks → the `claim-hold` check of the PR heads (docs/reference/github-surfaces.md#the-claim-hold-check-run).
import type { EmitterWebhookEvent } from "@octokit/webhooks";
import type { MergeFence, PullRequestEvent } from "../fence/merge-fence.js";
import type { WebhookHandler } from "./webhook-guard.js";

type CheckRunPayload = EmitterWebhookEvent<"check_run.rerequested">["payload"];
type CheckSuitePayload = EmitterWebhookEvent<"check_suite.rerequested">["payload"];

export const pullRequestCheckEvents = [
  "pull_request.opened",
  "pull_request.synchronize",
  "pull_request.reopened",
  "pull_request.edited",
  "pull_request.ready_for_review",
  "pull_request.closed",
] as const;
type PullRequestPayload = EmitterWebhookEvent<(typeof pullRequestCheckEvents)[number]>["payload"];

export type PullRequestAction =
  | { kind: "evaluate"; event: PullRequestEvent }
  | { kind: "forget"; installationId: number; repoId: number; number: number }
  | null;

/** decide: what a pull_request webhook means for the fence (an edit of the title alone means nothing). */
export function decidePullRequest(payload: PullRequestPayload): PullRequestAction {
  const installationId = payload.installation?.id;
  if (!installationId) return null;
  const { pull_request: pr, repository } = payload;
  if (payload.action === "closed") {
    return { kind: "forget", installationId, repoId: repository.id, number: pr.number };
  }
  if (payload.action === "edited" && !payload.changes.body && !payload.changes.base) return null;
  if (pr.state !== "open") return null;
  return {
    kind: "evaluate",
    event: {
      installationId,
      repo: repository.full_name,
      repoId: repository.id,
      number: pr.number,
      headSha: pr.head.sha,
      headRef: pr.head.ref,
      author: { login: pr.user?.login ?? "ghost", bot: pr.user?.type === "Bot" },
    },
  };
}

export function pullRequestChecks(
  fence: MergeFence,
): WebhookHandler<PullRequestPayload, NonNullable<PullRequestAction>> {
  return {
    decide: decidePullRequest,
    async apply(action) {
      if (action.kind === "forget") await fence.pullRequestClosed(action, action.number);
      if (action.kind === "evaluate") await fence.pullRequestChanged(action.event);
    },
  };
}

/** decide: the PRs (same repository) a rerequested check run or suite covers. */
export function decideRerequest(payload: CheckRunPayload | CheckSuitePayload) {
  const installationId = payload.installation?.id;
  const suite = "check_run" in payload ? payload.check_run.check_suite : payload.check_suite;
  const listed = "check_run" in payload ? payload.check_run.pull_requests : payload.check_suite.pull_requests;
  if (!installationId) return null;
  const headSha = "check_run" in payload ? payload.check_run.head_sha : suite.head_sha;
  const pullRequests = listed
    .filter((pr) => pr.head.repo.id === payload.repository.id && pr.head.sha === headSha)
    .map((pr) => ({ number: pr.number, headSha: pr.head.sha }));
  if (pullRequests.length === 0) return null;
  return {
    target: { installationId, repo: payload.repository.full_name, repoId: payload.repository.id },
    pullRequests,
  };
}

export function checkRerequests(
  fence: MergeFence,
): WebhookHandler<CheckRunPayload | CheckSuitePayload, NonNullable<ReturnType<typeof decideRerequest>>> {
  return {
    decide: decideRerequest,
    async apply(action) {
      await fence.rerequested(action.target, action.pullRequests);
    },
  };
}
