// GitHub's REST shapes (as in the REST docs and @octokit/webhooks-examples) for the simulator's records.
import type {
  SimAppInfo,
  SimCheckRun,
  SimComment,
  SimInstallation,
  SimIssue,
  SimIssueEvent,
  SimLabel,
  SimReaction,
  SimRepo,
  SimUser,
} from "./sim-types.js";

/** What rendering needs of the simulator's state (SimState has it); narrow, so state and rendering import one way. */
export interface RestRenderSource {
  readonly app: SimAppInfo;
  readonly urls: { api: string; web: string };
  readonly botUser: SimUser;
  renderApp(): Record<string, unknown>;
  authorAssociation(repo: SimRepo, userId: number): string;
  commentsOf(issue: SimIssue): SimComment[];
  blockersOf(issue: SimIssue): SimIssue[];
  blockedBy(issue: SimIssue): SimIssue[];
  subIssuesOf(issue: SimIssue): SimIssue[];
  issueById(id: number): SimIssue | undefined;
  issuesOf(repo: SimRepo): SimIssue[];
  labelById(repo: SimRepo, id: number): SimLabel;
  repoById(id: number): SimRepo;
  userById(id: number): SimUser;
  userByLogin(login: string): SimUser | undefined;
}

export function renderUser(state: RestRenderSource, user: SimUser) {
  const api = state.urls.api;
  return {
    login: user.login,
    id: user.id,
    node_id: user.nodeId,
    avatar_url: `${state.urls.web}/avatars/${user.id}`,
    gravatar_id: "",
    url: `${api}/users/${encodeURIComponent(user.login)}`,
    html_url: `${state.urls.web}/${user.login}`,
    type: user.type,
    site_admin: false,
  };
}

export function renderRepo(state: RestRenderSource, repo: SimRepo) {
  const owner = state.userByLogin(repo.ownerLogin);
  const fullName = `${repo.ownerLogin}/${repo.name}`;
  const url = `${state.urls.api}/repos/${fullName}`;
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: fullName,
    private: repo.private,
    owner: owner
      ? renderUser(state, owner)
      : { login: repo.ownerLogin, id: 0, node_id: "", type: "Organization", site_admin: false },
    html_url: `${state.urls.web}/${fullName}`,
    description: null,
    fork: false,
    url,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    pushed_at: repo.createdAt,
    default_branch: repo.defaultBranch,
    visibility: repo.private ? "private" : "public",
    archived: false,
    disabled: false,
    has_issues: true,
  };
}

/** The short form installation and check-run payloads list. */
export function renderRepoSummary(repo: SimRepo) {
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: `${repo.ownerLogin}/${repo.name}`,
    private: repo.private,
  };
}

export function renderLabel(state: RestRenderSource, repo: SimRepo, label: SimLabel) {
  return {
    id: label.id,
    node_id: label.nodeId,
    url: `${state.urls.api}/repos/${repo.ownerLogin}/${repo.name}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: label.isDefault,
    description: label.description,
  };
}

export function renderIssue(state: RestRenderSource, issue: SimIssue) {
  const repo = state.repoById(issue.repoId);
  const base = `${state.urls.api}/repos/${repo.ownerLogin}/${repo.name}`;
  const html = `${state.urls.web}/${repo.ownerLogin}/${repo.name}`;
  const assignees = issue.assigneeIds.map((id) => renderUser(state, state.userById(id)));
  return {
    url: `${base}/issues/${issue.number}`,
    repository_url: base,
    labels_url: `${base}/issues/${issue.number}/labels{/name}`,
    comments_url: `${base}/issues/${issue.number}/comments`,
    events_url: `${base}/issues/${issue.number}/events`,
    html_url: `${html}/${issue.pull ? "pull" : "issues"}/${issue.number}`,
    id: issue.id,
    node_id: issue.nodeId,
    number: issue.number,
    title: issue.title,
    user: renderUser(state, state.userById(issue.authorId)),
    labels: issue.labelIds.map((id) => renderLabel(state, repo, state.labelById(repo, id))),
    state: issue.state,
    locked: false,
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    comments: state.commentsOf(issue).length,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    author_association: state.authorAssociation(repo, issue.authorId),
    active_lock_reason: null,
    body: issue.body,
    state_reason: issue.stateReason,
    ...relationshipFields(state, issue),
    ...(issue.pull
      ? {
          draft: issue.pull.draft,
          pull_request: {
            url: `${base}/pulls/${issue.number}`,
            html_url: `${html}/pull/${issue.number}`,
            diff_url: `${html}/pull/${issue.number}.diff`,
            patch_url: `${html}/pull/${issue.number}.patch`,
            merged_at: issue.pull.mergedAt,
          },
        }
      : {}),
  };
}

const isOpen = (issue: SimIssue) => issue.state === "open";

/** `sub_issues_summary`, `issue_dependencies_summary` (open counts beside totals) and `parent_issue_url`. */
function relationshipFields(state: RestRenderSource, issue: SimIssue) {
  const subIssues = state.subIssuesOf(issue);
  const completed = subIssues.filter((i) => !isOpen(i)).length;
  const blockers = state.blockersOf(issue);
  const blocking = state.blockedBy(issue);
  const parent = issue.parentId !== null ? state.issueById(issue.parentId) : undefined;
  const parentRepo = parent ? state.repoById(parent.repoId) : undefined;
  return {
    sub_issues_summary: {
      total: subIssues.length,
      completed,
      percent_completed: subIssues.length === 0 ? 0 : Math.floor((completed * 100) / subIssues.length),
    },
    issue_dependencies_summary: {
      blocked_by: blockers.filter(isOpen).length,
      total_blocked_by: blockers.length,
      blocking: blocking.filter(isOpen).length,
      total_blocking: blocking.length,
    },
    parent_issue_url:
      parent && parentRepo
        ? `${state.urls.api}/repos/${parentRepo.ownerLogin}/${parentRepo.name}/issues/${parent.number}`
        : null,
  };
}

export function renderComment(state: RestRenderSource, comment: SimComment) {
  const repo = state.repoById(comment.repoId);
  const base = `${state.urls.api}/repos/${repo.ownerLogin}/${repo.name}`;
  return {
    url: `${base}/issues/comments/${comment.id}`,
    html_url: `${state.urls.web}/${repo.ownerLogin}/${repo.name}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${base}/issues/${comment.issueNumber}`,
    id: comment.id,
    node_id: comment.nodeId,
    user: renderUser(state, state.userById(comment.authorId)),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: state.authorAssociation(repo, comment.authorId),
    body: comment.body,
    performed_via_github_app: state.userById(comment.authorId).type === "Bot" ? state.renderApp() : null,
  };
}

/** An issue event as `GET /repos/{owner}/{repo}/issues/{issue_number}/events` lists it (`issue-event-for-issue`). */
export function renderIssueEvent(state: RestRenderSource, issue: SimIssue, event: SimIssueEvent) {
  const repo = state.repoById(issue.repoId);
  const actor = state.userById(event.actorId);
  return {
    id: event.id,
    node_id: `IE_${Buffer.from(`issue-event:${event.id}`).toString("base64url")}`,
    url: `${state.urls.api}/repos/${repo.ownerLogin}/${repo.name}/issues/events/${event.id}`,
    actor: renderUser(state, actor),
    event: event.event,
    commit_id: null,
    commit_url: null,
    created_at: event.createdAt,
    performed_via_github_app: actor.type === "Bot" ? state.renderApp() : null,
    ...(event.assigneeId !== undefined
      ? { assignee: renderUser(state, state.userById(event.assigneeId)), assigner: renderUser(state, actor) }
      : {}),
    ...(event.labelName !== undefined ? { label: { name: event.labelName, color: "ededed" } } : {}),
  };
}

export function renderReaction(state: RestRenderSource, reaction: SimReaction) {
  return {
    id: reaction.id,
    node_id: reaction.nodeId,
    user: renderUser(state, state.userById(reaction.userId)),
    content: reaction.content,
    created_at: reaction.createdAt,
  };
}

function renderBranchRef(state: RestRenderSource, repo: SimRepo, ref: string, sha: string) {
  return {
    label: `${repo.ownerLogin}:${ref}`,
    ref,
    sha,
    user: renderUser(state, state.userByLogin(repo.ownerLogin) ?? state.botUser),
    repo: renderRepo(state, repo),
  };
}

/** A head branch in the PR author's fork: another repository (its own id, `fork: true`). */
function renderForkRef(state: RestRenderSource, repo: SimRepo, issue: SimIssue, ref: string, sha: string) {
  const author = state.userById(issue.authorId);
  const base = renderRepo(state, repo);
  return {
    label: `${author.login}:${ref}`,
    ref,
    sha,
    user: renderUser(state, author),
    repo: {
      ...base,
      id: repo.id + 1_000_000_000,
      node_id: `R_fork_${repo.id}_${author.id}`,
      name: repo.name,
      full_name: `${author.login}/${repo.name}`,
      owner: renderUser(state, author),
      fork: true,
    },
  };
}

export function renderPull(state: RestRenderSource, issue: SimIssue) {
  const pull = issue.pull;
  if (!pull) throw new Error(`#${issue.number} is not a pull request`);
  const repo = state.repoById(issue.repoId);
  const base = `${state.urls.api}/repos/${repo.ownerLogin}/${repo.name}`;
  const asIssue = renderIssue(state, issue);
  return {
    url: `${base}/pulls/${issue.number}`,
    id: issue.id,
    node_id: issue.nodeId,
    html_url: asIssue.html_url,
    issue_url: `${base}/issues/${issue.number}`,
    number: issue.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: asIssue.user,
    body: issue.body,
    labels: asIssue.labels,
    milestone: null,
    active_lock_reason: null,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: null,
    assignee: asIssue.assignee,
    assignees: asIssue.assignees,
    requested_reviewers: [],
    requested_teams: [],
    head: pull.fork
      ? renderForkRef(state, repo, issue, pull.headRef, pull.headSha)
      : renderBranchRef(state, repo, pull.headRef, pull.headSha),
    base: renderBranchRef(state, repo, pull.baseRef, pull.baseSha),
    author_association: asIssue.author_association,
    auto_merge: null,
    draft: pull.draft,
    merged: pull.merged,
    mergeable: null,
    rebaseable: null,
    mergeable_state: "unknown",
    merged_by: null,
    comments: asIssue.comments,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

/** The `pull_requests` array of a check run: open PRs of the repository whose head is the run's sha. */
function checkRunPulls(state: RestRenderSource, repo: SimRepo, sha: string) {
  return state
    .issuesOf(repo)
    .filter((i) => i.pull && i.state === "open" && i.pull.headSha === sha)
    .map((i) => ({
      url: `${state.urls.api}/repos/${repo.ownerLogin}/${repo.name}/pulls/${i.number}`,
      id: i.id,
      number: i.number,
      head: { ref: i.pull!.headRef, sha: i.pull!.headSha, repo: renderRepoSummary(repo) },
      base: { ref: i.pull!.baseRef, sha: i.pull!.baseSha, repo: renderRepoSummary(repo) },
    }));
}

export function renderCheckRun(state: RestRenderSource, run: SimCheckRun) {
  const repo = state.repoById(run.repoId);
  const url = `${state.urls.api}/repos/${repo.ownerLogin}/${repo.name}/check-runs/${run.id}`;
  return {
    id: run.id,
    node_id: run.nodeId,
    head_sha: run.headSha,
    external_id: run.externalId ?? "",
    url,
    html_url: `${state.urls.web}/${repo.ownerLogin}/${repo.name}/runs/${run.id}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: { ...run.output, annotations_count: 0, annotations_url: `${url}/annotations` },
    name: run.name,
    check_suite: { id: run.id },
    app: state.renderApp(),
    pull_requests: checkRunPulls(state, repo, run.headSha),
  };
}

export function renderInstallation(state: RestRenderSource, installation: SimInstallation) {
  const account = state.userByLogin(installation.accountLogin);
  return {
    id: installation.id,
    account: account ? renderUser(state, account) : { login: installation.accountLogin },
    repository_selection: installation.repositorySelection,
    access_tokens_url: `${state.urls.api}/app/installations/${installation.id}/access_tokens`,
    repositories_url: `${state.urls.api}/installation/repositories`,
    html_url: `${state.urls.web}/settings/installations/${installation.id}`,
    app_id: state.app.id,
    app_slug: state.app.slug,
    target_id: account?.id ?? 0,
    target_type: account?.type === "Organization" ? "Organization" : "User",
    permissions: state.app.permissions,
    events: state.app.events,
    created_at: installation.createdAt,
    updated_at: installation.createdAt,
    single_file_name: null,
    suspended_at: null,
    suspended_by: null,
  };
}
