// The webhook payloads the simulator sends, as Gitea's modules/structs builds them, and which hooks a push or pull request reaches (`branch_filter`).
import type { GiteaSimState, SimIssue, SimRepo, SimStatus } from "./gitea-state.js";
import { renderComment, renderIssue, renderPullRequest, renderRepo, renderUser } from "./render.js";

export type GiteaPayloads = ReturnType<typeof giteaPayloads>;

/**
 * Webhook payloads as Gitea's `modules/structs` builds them (`IssueCommentPayload`, `IssuePayload`,
 * `PushPayload`, `PullRequestPayload`): the issue, comment and pull request bodies are the REST
 * ones, users and repositories too.
 */
export function giteaPayloads(state: GiteaSimState) {
  return {
    /**
     * `issue_comment` (action `created`, `edited`, `deleted`); `changes.body.from` on `edited`: the
     * body before the edit (`ChangesPayload`). Build a deletion's payload before removing the comment.
     */
    issueComment(
      repo: SimRepo,
      issue: SimIssue,
      commentId: number,
      sender: string,
      action = "created",
      changes?: { body: string },
    ) {
      const comment = issue.comments.find((c) => c.id === commentId);
      if (!comment) throw new Error(`no comment ${commentId} on #${issue.number}`);
      return {
        action,
        issue: renderIssue(state, repo, issue),
        comment: renderComment(state, repo, issue, comment),
        ...(changes ? { changes: { body: { from: changes.body } } } : {}),
        repository: renderRepo(state, repo),
        sender: renderUser(state, sender),
        is_pull: issue.isPull,
      };
    },
    /** `issues` (action `opened`, `closed`, `reopened`, `edited`, …). */
    issues(repo: SimRepo, issue: SimIssue, sender: string, action: string) {
      return {
        action,
        number: issue.number,
        issue: renderIssue(state, repo, issue),
        repository: renderRepo(state, repo),
        sender: renderUser(state, sender),
        commit_id: "",
      };
    },
    /**
     * `pull_request` (action `opened`, `synchronized`, `reopened`, `edited`, `closed`, …);
     * `changes` on `edited`: the previous title, description or base branch (`ChangesPayload`).
     */
    pullRequest(
      repo: SimRepo,
      issue: SimIssue,
      sender: string,
      action: string,
      changes?: { title?: string; body?: string; ref?: string },
    ) {
      if (!issue.pull) throw new Error(`#${issue.number} is not a simulated pull request`);
      const from = (value: string | undefined) => (value === undefined ? {} : { from: value });
      return {
        action,
        number: issue.number,
        ...(changes
          ? {
              changes: {
                ...(changes.title !== undefined ? { title: from(changes.title) } : {}),
                ...(changes.body !== undefined ? { body: from(changes.body) } : {}),
                ...(changes.ref !== undefined ? { ref: from(changes.ref) } : {}),
              },
            }
          : {}),
        pull_request: renderPullRequest(state, repo, { ...issue, pull: issue.pull }),
        requested_reviewer: null,
        repository: renderRepo(state, repo),
        sender: renderUser(state, sender),
        commit_id: "",
        review: null,
      };
    },
    /**
     * `status` (`CommitStatusPayload`): the status just written, its commit, and who wrote it as
     * `sender`; Gitea sends no `action` and no branches.
     */
    status(repo: SimRepo, sha: string, status: SimStatus) {
      const creator = renderUser(state, status.creator);
      const at = new Date(status.createdAt).toISOString();
      return {
        commit: {
          id: sha,
          message: "work\n",
          url: `${state.baseUrl}/${repo.owner}/${repo.name}/commit/${sha}`,
          author: { name: status.creator, email: creator.email, username: status.creator },
          committer: { name: status.creator, email: creator.email, username: status.creator },
          verification: null,
          timestamp: at,
          added: null,
          removed: null,
          modified: null,
        },
        context: status.context,
        created_at: at,
        description: status.description,
        id: status.id,
        repository: renderRepo(state, repo),
        sender: creator,
        sha,
        state: status.state,
        target_url: status.target_url,
        updated_at: at,
      };
    },
    /** `push` of one commit to `ref` (`after` all zeros: a deleted branch). */
    push(repo: SimRepo, ref: string, sender: string, after = "1".repeat(40)) {
      const pusher = renderUser(state, sender);
      const commit = {
        id: after,
        message: "work\n",
        url: `${state.baseUrl}/${repo.owner}/${repo.name}/commit/${after}`,
        author: { name: sender, email: pusher.email, username: sender },
        committer: { name: sender, email: pusher.email, username: sender },
        verification: null,
        timestamp: new Date(state.now()).toISOString(),
        added: [],
        removed: [],
        modified: ["README.md"],
      };
      const deleted = /^0+$/.test(after);
      return {
        ref,
        before: "0".repeat(40),
        after,
        compare_url: "",
        commits: deleted ? [] : [commit],
        total_commits: deleted ? 0 : 1,
        head_commit: deleted ? null : commit,
        repository: renderRepo(state, repo),
        pusher,
        sender: pusher,
      };
    },
  };
}

/**
 * The branch Gitea checks a hook's `branch_filter` against (`Payload.Branch()` in modules/structs):
 * a push's ref without `refs/heads/`, a pull request's base branch; null for events it does not filter.
 */
export function branchOfDelivery(event: string, payload: unknown): string | null {
  const body = payload as { ref?: unknown; pull_request?: { base?: { ref?: unknown } } } | null;
  if (event === "push" && typeof body?.ref === "string") return body.ref.replace(/^refs\/heads\//, "");
  if (event === "pull_request" && typeof body?.pull_request?.base?.ref === "string")
    return body.pull_request.base.ref;
  return null;
}

/** Gitea's filter: empty or `*` matches every branch, else a glob (`*`, `?`, `{a,b}`) on the whole name. */
export function branchFilterMatches(filter: string, branch: string): boolean {
  if (filter === "" || filter === "*") return true;
  const pattern = filter
    .replace(/[.+^$()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
    .replace(/\{([^}]*)\}/g, (_, alternatives: string) => `(${alternatives.split(",").join("|")})`);
  return new RegExp(`^${pattern}$`).test(branch);
}
