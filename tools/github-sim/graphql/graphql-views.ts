// GraphQL objects over the simulator's records: plain objects whose function fields take the field's arguments.
import { GraphQLError } from "graphql";
import { parseClosingKeywords } from "../closing-keywords.js";
import type { SimQueueEntry } from "../merge-queue.js";
import { roleAtLeast, type SimState } from "../sim-state.js";
import type {
  SimCaller,
  SimCheckRun,
  SimComment,
  SimIssue,
  SimLabel,
  SimRepo,
  SimUser,
} from "../sim-types.js";

export interface GraphqlContext {
  state: SimState;
  caller: Exclude<SimCaller, { kind: "app" }>;
  viewer: SimUser;
}

type Args = Record<string, unknown>;

/** A resolver error as GitHub reports it: `type` (NOT_FOUND, FORBIDDEN, UNPROCESSABLE) beside the message. */
export function githubError(type: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { type } });
}

function cursorOf(index: number): string {
  return Buffer.from(`cursor:v2:${index}`).toString("base64");
}

function indexOf(cursor: unknown): number {
  if (typeof cursor !== "string") return -1;
  const match = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, "base64").toString());
  if (!match)
    throw githubError("INVALID_CURSOR_ARGUMENTS", `\`${cursor}\` does not appear to be a valid cursor.`);
  return Number(match[1]);
}

/** A Relay connection over a list, paged by first/after and last/before like GitHub's. */
export function connection<T>(items: T[], args: Args, view: (item: T) => unknown) {
  let start = 0;
  let end = items.length;
  if (args.after != null) start = indexOf(args.after) + 1;
  if (args.before != null) end = Math.min(end, indexOf(args.before));
  if (typeof args.first === "number") end = Math.min(end, start + args.first);
  if (typeof args.last === "number") start = Math.max(start, end - args.last);
  const window = items.slice(start, Math.max(start, end)).map((item, i) => ({ item, index: start + i }));
  const edges = window.map(({ item, index }) => ({ cursor: cursorOf(index), node: view(item) }));
  return {
    totalCount: items.length,
    nodes: edges.map((e) => e.node),
    edges,
    pageInfo: {
      hasNextPage: start + window.length < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

export function actorView(ctx: GraphqlContext, user: SimUser) {
  const { state } = ctx;
  return {
    __typename: user.type === "Bot" ? "Bot" : user.type === "Organization" ? "Organization" : "User",
    id: user.nodeId,
    databaseId: user.id,
    login: user.login,
    name: null,
    url: `${state.urls.web}/${user.login}`,
    resourcePath: `/${user.login}`,
    avatarUrl: `${state.urls.web}/avatars/${user.id}`,
    isViewer: user.id === ctx.viewer.id,
  };
}

export function labelView(ctx: GraphqlContext, repo: SimRepo, label: SimLabel) {
  return {
    __typename: "Label",
    id: label.nodeId,
    name: label.name,
    color: label.color,
    description: label.description,
    isDefault: label.isDefault,
    url: `${ctx.state.urls.web}/${ctx.state.fullName(repo)}/labels/${encodeURIComponent(label.name)}`,
    repository: () => repoView(ctx, repo),
  };
}

export function commentView(ctx: GraphqlContext, comment: SimComment) {
  const { state } = ctx;
  const repo = state.repoById(comment.repoId);
  const author = state.userById(comment.authorId);
  const role = state.roleOf(repo, ctx.viewer);
  return {
    __typename: "IssueComment",
    id: comment.nodeId,
    databaseId: comment.id,
    fullDatabaseId: String(comment.id),
    body: comment.body,
    bodyText: comment.body,
    author: actorView(ctx, author),
    authorAssociation: state.authorAssociation(repo, comment.authorId),
    createdAt: comment.createdAt,
    updatedAt: comment.updatedAt,
    publishedAt: comment.createdAt,
    lastEditedAt: comment.updatedAt === comment.createdAt ? null : comment.updatedAt,
    includesCreatedEdit: false,
    isMinimized: false,
    minimizedReason: null,
    url: `${state.urls.web}/${state.fullName(repo)}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
    viewerDidAuthor: author.id === ctx.viewer.id,
    viewerCanUpdate:
      author.id === ctx.viewer.id || roleAtLeast(role, "triage") || ctx.caller.kind === "installation",
    viewerCanDelete:
      author.id === ctx.viewer.id || roleAtLeast(role, "triage") || ctx.caller.kind === "installation",
    issue: () => issueView(ctx, state.issueOfComment(comment)),
    repository: () => repoView(ctx, repo),
  };
}

/**
 * A pull request's closing issue references as GitHub links them: closing keywords in its body
 * (`#n`, `owner/repo#n`, an issue URL on github.com or this simulator), then the issues linked by
 * hand — or only those with `userLinkedOnly`. Pull requests and unknown issues are left out.
 */
export function closingIssuesOf(state: SimState, pullRequest: SimIssue, userLinkedOnly = false): SimIssue[] {
  const repo = state.repoById(pullRequest.repoId);
  const found: SimIssue[] = [];
  const keep = (issue: SimIssue | undefined) => {
    if (issue && !issue.pull && !found.includes(issue)) found.push(issue);
  };
  if (!userLinkedOnly) {
    for (const reference of parseClosingKeywords(pullRequest.body, ["https://github.com", state.urls.web])) {
      const target = reference.repo ? state.findRepo(reference.repo) : repo;
      keep(target ? state.findIssue(target, reference.number) : undefined);
    }
  }
  for (const id of pullRequest.pull?.linkedIssueIds ?? []) {
    keep(state.issuesOf(repo).find((issue) => issue.id === id));
  }
  return found;
}

export function issueView(ctx: GraphqlContext, issue: SimIssue) {
  const { state } = ctx;
  const repo = state.repoById(issue.repoId);
  const common = {
    id: issue.nodeId,
    databaseId: issue.id,
    fullDatabaseId: String(issue.id),
    number: issue.number,
    title: issue.title,
    body: issue.body,
    bodyText: issue.body,
    closed: issue.state === "closed",
    closedAt: issue.closedAt,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    locked: false,
    author: actorView(ctx, state.userById(issue.authorId)),
    authorAssociation: state.authorAssociation(repo, issue.authorId),
    url: `${state.urls.web}/${state.fullName(repo)}/${issue.pull ? "pull" : "issues"}/${issue.number}`,
    repository: () => repoView(ctx, repo),
    viewerDidAuthor: issue.authorId === ctx.viewer.id,
    assignees: (args: Args) =>
      connection(
        issue.assigneeIds.map((id) => state.userById(id)),
        args,
        (u) => actorView(ctx, u),
      ),
    labels: (args: Args) =>
      connection(
        issue.labelIds.map((id) => state.labelById(repo, id)),
        args,
        (l) => labelView(ctx, repo, l),
      ),
    comments: (args: Args) => connection(state.commentsOf(issue), args, (c) => commentView(ctx, c)),
  };
  if (!issue.pull) {
    return {
      __typename: "Issue",
      ...common,
      state: issue.state === "open" ? "OPEN" : "CLOSED",
      stateReason: issue.stateReason?.toUpperCase() ?? null,
      subIssuesSummary: () => {
        const subIssues = state.subIssuesOf(issue);
        const completed = subIssues.filter((i) => i.state === "closed").length;
        return {
          total: subIssues.length,
          completed,
          percentCompleted: subIssues.length === 0 ? 0 : Math.floor((completed * 100) / subIssues.length),
        };
      },
      subIssues: (args: Args) => connection(state.subIssuesOf(issue), args, (i) => issueView(ctx, i)),
      parent: () => {
        const parent = issue.parentId !== null ? state.issueById(issue.parentId) : undefined;
        return parent ? issueView(ctx, parent) : null;
      },
      closedByPullRequestsReferences: (args: Args) =>
        connection(
          state
            .issuesOf(repo)
            .filter((p) => p.pull && (args.includeClosedPrs || p.state === "open"))
            .filter((p) => closingIssuesOf(state, p).includes(issue)),
          args,
          (p) => issueView(ctx, p),
        ),
    };
  }
  const pull = issue.pull;
  return {
    __typename: "PullRequest",
    ...common,
    state: pull.merged ? "MERGED" : issue.state === "open" ? "OPEN" : "CLOSED",
    isDraft: pull.draft,
    merged: pull.merged,
    mergedAt: pull.mergedAt,
    headRefName: pull.headRef,
    headRefOid: pull.headSha,
    baseRefName: pull.baseRef,
    baseRefOid: pull.baseSha,
    isCrossRepository: pull.fork === true,
    closingIssuesReferences: (args: Args) =>
      connection(closingIssuesOf(state, issue, args.userLinkedOnly === true), args, (i) => issueView(ctx, i)),
  };
}

/** Throws GitHub's NOT_FOUND unless the caller may see the repository. */
export function visibleRepo(ctx: GraphqlContext, repo: SimRepo | undefined, name: string): SimRepo {
  const message = `Could not resolve to a Repository with the name '${name}'.`;
  if (!repo) throw githubError("NOT_FOUND", message);
  if (ctx.caller.kind === "installation" && !ctx.caller.installation.repoIds.has(repo.id)) {
    throw githubError("NOT_FOUND", message);
  }
  if (ctx.caller.kind === "user" && ctx.state.roleOf(repo, ctx.caller.user) === "none") {
    throw githubError("NOT_FOUND", message);
  }
  return repo;
}

function issueFilter(ctx: GraphqlContext, repo: SimRepo, args: Args) {
  const filterBy = (args.filterBy ?? {}) as Args;
  const states = (args.states ?? filterBy.states) as string[] | undefined;
  const labels = (args.labels ?? filterBy.labels) as string[] | undefined;
  const assignee = filterBy.assignee as string | undefined;
  return (issue: SimIssue) => {
    const state = issue.pull?.merged ? "MERGED" : issue.state === "open" ? "OPEN" : "CLOSED";
    if (states && !states.includes(state)) return false;
    if (labels) {
      const names = issue.labelIds.map((id) => ctx.state.labelById(repo, id).name.toLowerCase());
      if (!labels.some((l) => names.includes(l.toLowerCase()))) return false;
    }
    if (assignee === "*" && issue.assigneeIds.length === 0) return false;
    if (assignee && assignee !== "*") {
      const user = ctx.state.userByLogin(assignee);
      if (!user || !issue.assigneeIds.includes(user.id)) return false;
    }
    return true;
  };
}

function ordered(issues: SimIssue[], args: Args): SimIssue[] {
  const order = args.orderBy as { field?: string; direction?: string } | undefined;
  const key = order?.field === "UPDATED_AT" ? "updatedAt" : "createdAt";
  const sorted = [...issues].sort((a, b) => a[key].localeCompare(b[key]) || a.number - b.number);
  return order?.direction === "DESC" ? sorted.reverse() : sorted;
}

/** The App that made the simulator's check runs (the only App here). */
function appView(ctx: GraphqlContext, appId: number) {
  const { app } = ctx.state;
  return {
    __typename: "App",
    id: `A_${Buffer.from(`app:${appId}`).toString("base64url")}`,
    databaseId: appId,
    slug: app.slug,
    name: app.slug,
  };
}

function checkRunView(ctx: GraphqlContext, run: SimCheckRun) {
  const repo = ctx.state.repoById(run.repoId);
  return {
    __typename: "CheckRun",
    id: run.nodeId,
    databaseId: run.id,
    name: run.name,
    status: run.status.toUpperCase(),
    conclusion: run.conclusion?.toUpperCase() ?? null,
    title: run.output.title,
    summary: run.output.summary,
    text: run.output.text,
    detailsUrl: run.detailsUrl,
    externalId: run.externalId,
    startedAt: run.startedAt,
    completedAt: run.completedAt,
    url: `${ctx.state.urls.web}/${ctx.state.fullName(repo)}/runs/${run.id}`,
  };
}

/**
 * The check suites of a commit: one per App with runs on it, like GitHub's. `filterBy.appId`
 * narrows the suites; a suite's `checkRuns` take `filterBy` `checkName`, `checkType` (LATEST:
 * the newest run of each name) and `status`, newest first.
 */
function checkSuitesOf(ctx: GraphqlContext, repo: SimRepo, sha: string, args: Args) {
  const filter = (args.filterBy ?? {}) as Args;
  const runs = [...ctx.state.checkRuns.values()].filter((r) => r.repoId === repo.id && r.headSha === sha);
  const appIds = [...new Set(runs.map((r) => r.appId))]
    .filter((appId) => filter.appId == null || filter.appId === appId)
    .sort((a, b) => a - b);
  const suites = appIds.map((appId) => {
    const own = runs.filter((r) => r.appId === appId);
    return {
      __typename: "CheckSuite",
      id: `CS_${Buffer.from(`suite:${repo.id}:${sha}:${appId}`).toString("base64url")}`,
      databaseId: Math.min(...own.map((r) => r.id)),
      app: appView(ctx, appId),
      status: own.every((r) => r.status === "completed") ? "COMPLETED" : "IN_PROGRESS",
      checkRuns: (runArgs: Args) => {
        const runFilter = (runArgs.filterBy ?? {}) as Args;
        let selected = own
          .filter((r) => runFilter.checkName == null || r.name === runFilter.checkName)
          .filter((r) => runFilter.status == null || r.status.toUpperCase() === runFilter.status)
          .sort((a, b) => b.id - a.id);
        if (runFilter.checkType === "LATEST") {
          selected = selected.filter((r, i) => selected.findIndex((o) => o.name === r.name) === i);
        }
        return connection(selected, runArgs, (r) => checkRunView(ctx, r));
      },
    };
  });
  return connection(suites, args, (suite) => suite);
}

export function commitView(ctx: GraphqlContext, repo: SimRepo, sha: string) {
  const commit = repo.commits.get(sha);
  const date = commit?.timestamp ?? repo.createdAt;
  return {
    __typename: "Commit",
    id: `C_${Buffer.from(`commit:${repo.id}:${sha}`).toString("base64url")}`,
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    message: commit?.message ?? "",
    messageHeadline: (commit?.message ?? "").split("\n")[0],
    committedDate: date,
    authoredDate: date,
    pushedDate: date,
    url: `${ctx.state.urls.web}/${ctx.state.fullName(repo)}/commit/${sha}`,
    checkSuites: (args: Args) => checkSuitesOf(ctx, repo, sha, args),
  };
}

/** A branch (only branches exist here), or null like GitHub for an unknown ref. */
function refView(ctx: GraphqlContext, repo: SimRepo, branch: string) {
  const sha = repo.branches.get(branch);
  if (!sha) return null;
  return {
    __typename: "Ref",
    id: `REF_${Buffer.from(`ref:${repo.id}:${branch}`).toString("base64url")}`,
    name: branch,
    prefix: "refs/heads/",
    target: commitView(ctx, repo, sha),
    repository: () => repoView(ctx, repo),
  };
}

export function repoView(ctx: GraphqlContext, repo: SimRepo) {
  const { state } = ctx;
  const fullName = state.fullName(repo);
  const issue = (number: number) => state.findIssue(repo, number);
  return {
    __typename: "Repository",
    id: repo.nodeId,
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: fullName,
    owner: actorView(ctx, state.userByLogin(repo.ownerLogin)!),
    url: `${state.urls.web}/${fullName}`,
    isPrivate: repo.private,
    isArchived: false,
    visibility: repo.private ? "PRIVATE" : "PUBLIC",
    createdAt: repo.createdAt,
    viewerPermission:
      ctx.caller.kind === "installation" ? null : state.roleOf(repo, ctx.viewer).toUpperCase(),
    defaultBranchRef: refView(ctx, repo, repo.defaultBranch),
    /** A commit by its full sha or a branch name (the only git objects here); null like GitHub otherwise. */
    object: ({ oid, expression }: Args) => {
      const sha = typeof oid === "string" ? oid : repo.branches.get(String(expression ?? ""));
      const known =
        sha !== undefined &&
        (repo.commits.has(sha) ||
          [...repo.branches.values()].includes(sha) ||
          state.issuesOf(repo).some((i) => i.pull?.headSha === sha));
      return known ? commitView(ctx, repo, sha) : null;
    },
    mergeQueue: (args: Args) => mergeQueueView(ctx, repo, args),
    ref: ({ qualifiedName }: Args) => refView(ctx, repo, String(qualifiedName).replace(/^refs\/heads\//, "")),
    label: ({ name }: Args) => {
      const label = state.findLabel(repo, String(name));
      return label ? labelView(ctx, repo, label) : null;
    },
    labels: (args: Args) => {
      const query = typeof args.query === "string" ? args.query.toLowerCase() : "";
      const labels = repo.labels.filter((l) => l.name.toLowerCase().includes(query));
      return connection(labels, args, (l) => labelView(ctx, repo, l));
    },
    issueOrPullRequest: ({ number }: Args) => {
      const found = issue(Number(number));
      if (!found) {
        throw githubError(
          "NOT_FOUND",
          `Could not resolve to an issue or pull request with the number of ${number}.`,
        );
      }
      return issueView(ctx, found);
    },
    issue: ({ number }: Args) => {
      const found = issue(Number(number));
      if (!found || found.pull) {
        throw githubError("NOT_FOUND", `Could not resolve to an Issue with the number of ${number}.`);
      }
      return issueView(ctx, found);
    },
    pullRequest: ({ number }: Args) => {
      const found = issue(Number(number));
      if (!found?.pull) {
        throw githubError("NOT_FOUND", `Could not resolve to a PullRequest with the number of ${number}.`);
      }
      return issueView(ctx, found);
    },
    issues: (args: Args) =>
      connection(
        ordered(
          state
            .issuesOf(repo)
            .filter((i) => !i.pull)
            .filter(issueFilter(ctx, repo, args)),
          args,
        ),
        args,
        (i) => issueView(ctx, i),
      ),
    pullRequests: (args: Args) => {
      const pulls = state
        .issuesOf(repo)
        .filter((i) => i.pull)
        .filter(issueFilter(ctx, repo, args))
        .filter((i) => args.headRefName == null || i.pull!.headRef === args.headRefName)
        .filter((i) => args.baseRefName == null || i.pull!.baseRef === args.baseRefName);
      return connection(ordered(pulls, args), args, (i) => issueView(ctx, i));
    },
  };
}

/** Any node the caller may see, by its global id. */
export function nodeView(ctx: GraphqlContext, nodeId: string) {
  const { state } = ctx;
  const notFound = () =>
    githubError("NOT_FOUND", `Could not resolve to a node with the global id of '${nodeId}'`);
  const node = state.nodeById(nodeId);
  if (!node) throw notFound();
  const checkRepo = (repo: SimRepo) => {
    try {
      return visibleRepo(ctx, repo, state.fullName(repo));
    } catch {
      throw notFound();
    }
  };
  switch (node.kind) {
    case "user":
    case "bot":
    case "org": {
      const user = state.users.get(node.id);
      if (!user) throw notFound();
      return actorView(ctx, user);
    }
    case "repo": {
      const repo = state.repos.get(node.id);
      if (!repo) throw notFound();
      return repoView(ctx, checkRepo(repo));
    }
    case "issue":
    case "pull": {
      const issue = state.issues.get(node.id);
      if (!issue) throw notFound();
      checkRepo(state.repoById(issue.repoId));
      return issueView(ctx, issue);
    }
    case "comment": {
      const comment = state.comments.get(node.id);
      if (!comment) throw notFound();
      checkRepo(state.repoById(comment.repoId));
      return commentView(ctx, comment);
    }
    case "label": {
      for (const repo of state.repos.values()) {
        const label = repo.labels.find((l) => l.id === node.id);
        if (label) return labelView(ctx, checkRepo(repo), label);
      }
      throw notFound();
    }
    default:
      throw notFound();
  }
}

/** The queue of `branch` (default: the default branch); null, like GitHub, for a branch that does not exist. */
export function mergeQueueView(ctx: GraphqlContext, repo: SimRepo, args: Args) {
  const { state } = ctx;
  const branch = typeof args.branch === "string" ? args.branch : repo.defaultBranch;
  if (!repo.branches.has(branch)) return null;
  const path = `/${state.fullName(repo)}/queue/${encodeURIComponent(branch)}`;
  const queue = () => state.mergeQueues.entries(repo, branch);
  const view = {
    __typename: "MergeQueue",
    id: `MQ_${Buffer.from(`queue:${repo.id}:${branch}`).toString("base64url")}`,
    resourcePath: path,
    url: `${state.urls.web}${path}`,
    configuration: null,
    nextEntryEstimatedTimeToMerge: null,
    repository: () => repoView(ctx, repo),
    entries: (entryArgs: Args) => {
      const entries = queue();
      return connection(entries, entryArgs, (entry) => entryView(entry, entries.indexOf(entry) + 1));
    },
  };
  const entryView = (entry: SimQueueEntry, position: number) => ({
    __typename: "MergeQueueEntry",
    id: `MQE_${Buffer.from(`entry:${repo.id}:${entry.id}`).toString("base64url")}`,
    position,
    state: "AWAITING_CHECKS",
    enqueuedAt: entry.enqueuedAt,
    enqueuer: actorView(ctx, state.userById(entry.enqueuerId)),
    estimatedTimeToMerge: null,
    jump: false,
    solo: false,
    headCommit: commitView(ctx, repo, entry.group.headSha),
    baseCommit: commitView(ctx, repo, entry.group.baseSha),
    pullRequest: issueView(ctx, state.issues.get(entry.pullIssueId)!),
    mergeQueue: () => view,
  });
  return view;
}
