// Gitea's `pull_request` and `claim-hold` `status` deliveries through GitHub's handlers: the holder's progress and the fence's evaluation, on the payload fields they read.
import type { MergeFence } from "../fence/merge-fence.js";
import { pullRequestChecks } from "../handlers/pull-request-checks.js";
import { pullRequestProgress } from "../handlers/push-evidence.js";
import { maxPullRequestPages } from "../providers/gitea/gitea-assignment-provider.js";
import { type GiteaPullRequest, giteaPageSize } from "../providers/gitea/gitea-schemas.js";
import type { GiteaWebhookEvent } from "../providers/gitea/gitea-webhook-events.js";
import { type GiteaReads, ownerAndName } from "./gitea-confirmations.js";
import type { GiteaAccountOf, RunHandler } from "./gitea-removals.js";

/**
 * `pull_request` opened, synchronized or reopened from a claim's branch by its holder: progress, as
 * GitHub's `pullRequestProgress` counts it (the head in the base repository, the PR's author the
 * holder's login). Noting progress again on a redelivery is harmless, as on GitHub.
 */
export function runPullRequestProgress(
  read: Extract<GiteaWebhookEvent, { kind: "pull-request" }>,
  deps: Parameters<typeof pullRequestProgress>[0],
  run: RunHandler,
  common: Record<string, unknown>,
  user: GiteaAccountOf,
) {
  if (read.action !== "opened" && read.action !== "synchronized" && read.action !== "reopened") return;
  const { action, payload } = githubPullRequestPayload(read, common, user);
  return run(`pull_request.${action}`, pullRequestProgress(deps), payload, {
    allowBots: true,
    dedupe: false,
  });
}

/**
 * `pull_request`: the fence's decision and evaluation as for GitHub's (`pullRequestChecks`), on the
 * payload fields it reads. Gitea's `synchronized` is GitHub's `synchronize`; its `changes.ref` (the
 * base branch) is GitHub's `changes.base`. Every delivery is evaluated, as on GitHub (an evaluation
 * writes nothing when the status already says it).
 */
export function runPullRequestFence(
  read: Extract<GiteaWebhookEvent, { kind: "pull-request" }>,
  fence: MergeFence,
  run: RunHandler,
  common: Record<string, unknown>,
  user: GiteaAccountOf,
) {
  const { action, payload: base } = githubPullRequestPayload(read, common, user);
  const payload = {
    ...base,
    ...(read.action === "edited"
      ? {
          changes: {
            ...(read.changed.body ? { body: { from: "" } } : {}),
            ...(read.changed.base ? { base: { ref: { from: "" } } } : {}),
          },
        }
      : {}),
  };
  return run(`pull_request.${action}`, pullRequestChecks(fence), payload, {
    allowBots: true,
    dedupe: false,
  });
}

/** The delivery as GitHub's `pull_request` payload carries the fields the handlers read: Gitea's `synchronized` is GitHub's `synchronize`. */
function githubPullRequestPayload(
  read: Extract<GiteaWebhookEvent, { kind: "pull-request" }>,
  common: Record<string, unknown>,
  user: GiteaAccountOf,
) {
  const action = read.action === "synchronized" ? "synchronize" : read.action;
  const { pullRequest: pr } = read;
  const head = {
    sha: pr.headSha,
    ref: pr.headRef,
    repo: pr.headRepoId === null ? null : { id: pr.headRepoId },
  };
  const payload = {
    ...common,
    action,
    pull_request: { number: pr.number, state: pr.state, head, user: user(pr.author) },
  };
  return { action, payload };
}

/**
 * A `claim-hold` status someone other than the App wrote to a commit: each open pull request of the
 * repository whose head is that commit is evaluated again, as a push to it (`synchronized`) is, so
 * the App's verdict is the newest status again within a delivery's latency
 * (docs/reference/gitea-surfaces.md#the-claim-hold-commit-status). Gitea's list route filters by
 * state, not by head: the open pull requests are read page by page (at most `maxPullRequestPages`).
 */
export async function runStatusFence(
  read: Extract<GiteaWebhookEvent, { kind: "fence-status" }>,
  deps: { fence: MergeFence; reads: Pick<GiteaReads, "listOpenPullRequests"> },
  run: RunHandler,
  common: Record<string, unknown>,
  user: GiteaAccountOf,
) {
  const [owner, name] = ownerAndName(read.repository.fullName);
  const atSha: GiteaPullRequest[] = [];
  for (let page = 1; page <= maxPullRequestPages; page++) {
    const pulls = await deps.reads.listOpenPullRequests(owner, name, page);
    atSha.push(...pullRequestsAt(pulls, read.sha, read.repository.id));
    if (pulls.length < giteaPageSize) break;
  }
  for (const pr of atSha) {
    const synchronized: Extract<GiteaWebhookEvent, { kind: "pull-request" }> = {
      kind: "pull-request",
      action: "synchronized",
      repository: read.repository,
      pullRequest: {
        number: pr.number,
        state: pr.state,
        headSha: pr.head.sha,
        headRef: pr.head.ref,
        headRepoId: pr.head.repo_id ?? null,
        author: pr.user ?? null,
      },
      changed: { body: false, base: false },
      sender: read.sender,
    };
    await runPullRequestFence(synchronized, deps.fence, run, common, user);
  }
}

/** The open pull requests whose head is `sha` in the repository itself (a fork's head is not its commit). */
export function pullRequestsAt(pulls: GiteaPullRequest[], sha: string, repoId: number): GiteaPullRequest[] {
  return pulls.filter(
    (pr) =>
      pr.state === "open" &&
      pr.head.sha === sha &&
      (pr.head.repo_id === null || pr.head.repo_id === undefined || pr.head.repo_id === repoId),
  );
}
