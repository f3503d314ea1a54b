// The simulator's JSON bodies, with the fields of Gitea's swagger definitions (User, Repository, Permission, Hook, Issue, Label, Comment, TimelineComment, CommitStatus, PullRequest, Commit) and webhook structs.
import type {
  GiteaSimState,
  SimComment,
  SimHook,
  SimIssue,
  SimIssueEvent,
  SimLabel,
  SimPull,
  SimRepo,
  SimStatus,
} from "./gitea-state.js";

export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export function renderUser(state: GiteaSimState, login: string) {
  const user = state.user(login);
  return {
    id: user.id,
    login: user.login,
    login_name: "",
    source_id: 0,
    full_name: "",
    email: `${user.login}@noreply.gitea.test`,
    avatar_url: "",
    html_url: `${state.baseUrl}/${user.login}`,
    language: "",
    is_admin: false,
    restricted: false,
    active: true,
    prohibit_login: false,
    visibility: "public",
  };
}

export function renderRepo(state: GiteaSimState, repo: SimRepo) {
  return {
    id: repo.id,
    owner: renderUser(state, repo.owner),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    description: "",
    empty: false,
    private: false,
    fork: false,
    html_url: `${state.baseUrl}/${repo.owner}/${repo.name}`,
    default_branch: "main",
    has_issues: true,
    has_pull_requests: true,
    internal_tracker: {
      enable_time_tracker: true,
      allow_only_contributors_to_track_time: true,
      enable_issue_dependencies: repo.dependenciesEnabled,
    },
    open_issues_count: repo.issues.filter((i) => !i.isPull && i.state === "open").length,
  };
}

/** The caller's rights on a repository (`Permission`), as `GET /user/repos` adds them. */
export function renderPermissions(state: GiteaSimState, repo: SimRepo, login: string) {
  const permission = repo.permissions.get(login.toLowerCase());
  const admin = state.isAdmin(repo, login);
  return { admin, push: admin || permission === "write", pull: true };
}

/** A hook as Gitea answers it (`Hook`): its config holds the URL and content type, never the secret. */
export function renderHook(hook: SimHook) {
  return {
    id: hook.id,
    type: hook.type,
    branch_filter: hook.branchFilter,
    config: { url: hook.url, content_type: hook.contentType },
    events: hook.events,
    authorization_header: "",
    active: hook.active,
    updated_at: iso(hook.updatedAt),
    created_at: iso(hook.createdAt),
  };
}

export function renderLabel(label: SimLabel) {
  return { ...label, exclusive: false, is_archived: false, url: "" };
}

export function renderIssue(state: GiteaSimState, repo: SimRepo, issue: SimIssue) {
  const assignees = issue.assignees.map((login) => renderUser(state, login));
  const html = `${state.baseUrl}/${repo.owner}/${repo.name}/${issue.isPull ? "pulls" : "issues"}/${issue.number}`;
  return {
    id: issue.id,
    url: `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/issues/${issue.number}`,
    html_url: html,
    number: issue.number,
    user: renderUser(state, issue.author),
    original_author: "",
    original_author_id: 0,
    title: issue.title,
    body: issue.body,
    ref: "",
    assets: [],
    labels: issue.labelIds.flatMap((id) => repo.labels.filter((l) => l.id === id).map(renderLabel)),
    milestone: null,
    assignee: assignees[0] ?? null,
    // Gitea answers null, not [], for an issue nobody is assigned.
    assignees: assignees.length ? assignees : null,
    state: issue.state,
    is_locked: false,
    comments: issue.comments.length,
    created_at: iso(issue.createdAt),
    updated_at: iso(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : iso(issue.closedAt),
    due_date: null,
    pull_request: issue.isPull ? { merged: false, merged_at: null, draft: false, html_url: html } : null,
    repository: { id: repo.id, name: repo.name, owner: repo.owner, full_name: `${repo.owner}/${repo.name}` },
    pin_order: 0,
  };
}

export function renderComment(state: GiteaSimState, repo: SimRepo, issue: SimIssue, comment: SimComment) {
  const base = `${state.baseUrl}/${repo.owner}/${repo.name}`;
  return {
    id: comment.id,
    html_url: `${base}/issues/${issue.number}#issuecomment-${comment.id}`,
    pull_request_url: issue.isPull ? `${base}/pulls/${issue.number}` : "",
    issue_url: issue.isPull ? "" : `${base}/issues/${issue.number}`,
    user: renderUser(state, comment.author),
    original_author: "",
    original_author_id: 0,
    body: comment.body,
    assets: [],
    created_at: iso(comment.createdAt),
    updated_at: iso(comment.updatedAt),
  };
}

/** An issue's timeline, oldest first: its comments and its assignee and label changes (Gitea orders by time, then id). */
export function timelineOf(issue: SimIssue): (SimComment | SimIssueEvent)[] {
  return [...issue.comments, ...issue.events].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
}

/**
 * One timeline entry (`TimelineComment`): a comment, an `assignees` change (`removed_assignee`), or
 * a `label` change (body `"1"` when added, empty when removed), `user` the one who made it.
 */
export function renderTimelineEntry(
  state: GiteaSimState,
  repo: SimRepo,
  issue: SimIssue,
  entry: SimComment | SimIssueEvent,
) {
  const base = `${state.baseUrl}/${repo.owner}/${repo.name}`;
  const event = "type" in entry ? entry : null;
  const label = event?.type === "label" ? repo.labels.find((l) => l.id === event.labelId) : undefined;
  return {
    id: entry.id,
    type: event ? event.type : "comment",
    html_url: `${base}/issues/${issue.number}#issuecomment-${entry.id}`,
    pull_request_url: issue.isPull ? `${base}/pulls/${issue.number}` : "",
    issue_url: issue.isPull ? "" : `${base}/issues/${issue.number}`,
    user: renderUser(state, event ? event.by : (entry as SimComment).author),
    body: event ? (event.type === "label" && !event.removed ? "1" : "") : (entry as SimComment).body,
    created_at: iso(entry.createdAt),
    updated_at: iso(event ? event.createdAt : (entry as SimComment).updatedAt),
    old_project_id: 0,
    project_id: 0,
    old_milestone: null,
    milestone: null,
    tracked_time: null,
    old_title: "",
    new_title: "",
    old_ref: "",
    new_ref: "",
    ref_issue: null,
    ref_comment: null,
    ref_action: "",
    ref_commit_sha: "",
    review_id: 0,
    label: label ? renderLabel(label) : null,
    assignee: event?.type === "assignees" ? renderUser(state, event.assignee) : null,
    assignee_team: null,
    resolve_doer: null,
    dependent_issue: null,
    removed_assignee: event?.type === "assignees" ? event.removed : false,
  };
}

export function renderStatus(state: GiteaSimState, status: SimStatus) {
  return {
    id: status.id,
    status: status.state,
    target_url: status.target_url,
    description: status.description,
    url: "",
    context: status.context,
    creator: renderUser(state, status.creator),
    created_at: iso(status.createdAt),
    updated_at: iso(status.createdAt),
  };
}

/** `PRBranchInfo`: a branch of the repository itself (the simulator has no forks). */
function renderBranch(state: GiteaSimState, repo: SimRepo, ref: string, sha: string) {
  return { label: ref, ref, sha, repo_id: repo.id, repo: renderRepo(state, repo) };
}

/** `PullRequest`: a pull request as `GET …/pulls/{index}` and the `pull_request` webhook show it. */
export function renderPullRequest(state: GiteaSimState, repo: SimRepo, issue: SimIssue & { pull: SimPull }) {
  const html = `${state.baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}`;
  const baseSha = `${"0".repeat(39)}1`;
  return {
    id: issue.id,
    url: html,
    number: issue.number,
    user: renderUser(state, issue.author),
    title: issue.title,
    body: issue.body,
    labels: issue.labelIds.flatMap((id) => repo.labels.filter((l) => l.id === id).map(renderLabel)),
    milestone: null,
    assignee: null,
    assignees: null,
    requested_reviewers: null,
    state: issue.state,
    draft: false,
    is_locked: false,
    comments: issue.comments.length,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    mergeable: true,
    merged: false,
    merged_at: null,
    merge_commit_sha: null,
    merged_by: null,
    allow_maintainer_edit: false,
    base: renderBranch(state, repo, issue.pull.baseRef, baseSha),
    head: renderBranch(state, repo, issue.pull.headRef, issue.pull.headSha),
    merge_base: baseSha,
    due_date: null,
    created_at: iso(issue.createdAt),
    updated_at: iso(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : iso(issue.closedAt),
    pin_order: 0,
  };
}

/** `Commit` with its `RepoCommit`, as `GET …/pulls/{index}/commits?verification=false&files=false` lists them. */
export function renderCommit(state: GiteaSimState, repo: SimRepo, commit: { sha: string; message: string }) {
  const url = `${state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/git/commits/${commit.sha}`;
  return {
    url,
    sha: commit.sha,
    created: iso(state.now()),
    html_url: `${state.baseUrl}/${repo.owner}/${repo.name}/commit/${commit.sha}`,
    commit: { url, message: commit.message, author: null, committer: null, tree: null, verification: null },
    author: null,
    committer: null,
    parents: [],
  };
}

/** `Branch` with its head `PayloadCommit`, as `GET …/branches/{branch}` answers it. */
export function renderGitBranch(
  state: GiteaSimState,
  repo: SimRepo,
  name: string,
  head: { sha: string; message: string; committedAt: number },
) {
  return {
    name,
    commit: {
      id: head.sha,
      message: head.message,
      url: `${state.baseUrl}/${repo.owner}/${repo.name}/commit/${head.sha}`,
      author: null,
      committer: null,
      verification: null,
      timestamp: iso(head.committedAt),
      added: null,
      removed: null,
      modified: null,
    },
    protected: false,
    required_approvals: 0,
    enable_status_check: false,
    status_check_contexts: [],
    user_can_push: true,
    user_can_merge: true,
    effective_branch_protection_name: "",
  };
}
