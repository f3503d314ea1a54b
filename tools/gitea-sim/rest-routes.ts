// The REST v1 routes the simulator answers, by their swagger path templates (test/gitea/gitea-sim.test.ts checks them against Gitea's).
import {
  expandHookEvents,
  type GiteaSimState,
  type SimIssue,
  type SimRepo,
  type SimStatus,
} from "./gitea-state.js";
import {
  renderComment,
  renderCommit,
  renderGitBranch,
  renderHook,
  renderIssue,
  renderLabel,
  renderPermissions,
  renderPullRequest,
  renderRepo,
  renderStatus,
  renderTimelineEntry,
  renderUser,
  timelineOf,
} from "./render.js";

export interface RouteCall {
  state: GiteaSimState;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The login the token belongs to. */
  caller: string;
}

export interface RouteAnswer {
  status: number;
  body?: unknown;
  /** A raw file's text instead of JSON. */
  text?: string;
}

type Route = { method: string; path: string; answer: (call: RouteCall) => RouteAnswer };

const notFound: RouteAnswer = { status: 404, body: { message: "The target couldn't be found.", url: "" } };
const ok = (body: unknown, status = 200): RouteAnswer => ({ status, body });

/** Gitea's `page` (from 1) and `limit` (at most 50) applied to a list. */
function paged<T>(items: T[], query: URLSearchParams): T[] {
  const limit = Math.min(Number(query.get("limit") ?? 30) || 30, 50);
  const page = Math.max(Number(query.get("page") ?? 1) || 1, 1);
  return items.slice((page - 1) * limit, page * limit);
}

function withRepo(answer: (repo: SimRepo, call: RouteCall) => RouteAnswer) {
  return (call: RouteCall) => {
    const repo = call.state.repo(call.params.owner ?? "", call.params.repo ?? "");
    return repo ? answer(repo, call) : notFound;
  };
}

function withIssue(answer: (repo: SimRepo, issue: SimIssue, call: RouteCall) => RouteAnswer) {
  return withRepo((repo, call) => {
    const issue = repo.issues.find((i) => i.number === Number(call.params.index));
    return issue ? answer(repo, issue, call) : notFound;
  });
}

/** Gitea's issue_dependency.go: with dependencies disabled on the repository, the dependency routes are not found. */
function dependenciesOff(repo: SimRepo): RouteAnswer | null {
  return repo.dependenciesEnabled ? null : notFound;
}

const forbidden: RouteAnswer = { status: 403, body: { message: "Must have admin access", url: "" } };

/** The hook routes are an admin's (Gitea's `reqAdmin`). */
function withAdminRepo(answer: (repo: SimRepo, call: RouteCall) => RouteAnswer) {
  return withRepo((repo, call) => (call.state.isAdmin(repo, call.caller) ? answer(repo, call) : forbidden));
}

/** `CreateHookOption`/`EditHookOption`'s `config` as Gitea checks it: a string map, `content_type` json or form. */
function hookConfigOf(
  body: Record<string, unknown>,
): { config: Record<string, string> } | { refused: RouteAnswer } {
  const config = (body.config ?? {}) as Record<string, unknown>;
  if (typeof config !== "object" || Object.values(config).some((v) => typeof v !== "string")) {
    return { refused: { status: 422, body: { message: "config must be a map of strings" } } };
  }
  const contentType = config.content_type;
  if (contentType !== undefined && contentType !== "json" && contentType !== "form") {
    return { refused: { status: 422, body: { message: "Invalid content type" } } };
  }
  return { config: config as Record<string, string> };
}

function findComment(repo: SimRepo, id: number) {
  for (const issue of repo.issues) {
    const comment = issue.comments.find((c) => c.id === id);
    if (comment) return { issue, comment };
  }
  return null;
}

export const restRoutes: Route[] = [
  { method: "GET", path: "/user", answer: ({ state, caller }) => ok(renderUser(state, caller)) },
  {
    method: "GET",
    path: "/user/repos",
    answer: ({ state, query, caller }) =>
      ok(
        paged(state.repos, query).map((repo) => ({
          ...renderRepo(state, repo),
          permissions: renderPermissions(state, repo, caller),
        })),
      ),
  },
  {
    method: "GET",
    path: "/repositories/{id}",
    answer: ({ state, params }) => {
      const repo = state.repos.find((r) => r.id === Number(params.id));
      return repo ? ok(renderRepo(state, repo)) : notFound;
    },
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}",
    answer: withRepo((repo, { state }) => ok(renderRepo(state, repo))),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/collaborators/{collaborator}/permission",
    answer: withRepo((repo, { state, params }) => {
      const login = params.collaborator ?? "";
      const permission = repo.permissions.get(login.toLowerCase());
      if (!permission) return notFound;
      return ok({ permission, role_name: permission, user: renderUser(state, login) });
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/raw/{filepath}",
    answer: withRepo((repo, { params }) => {
      const text = repo.files.get(params.filepath ?? "");
      return text === undefined ? notFound : { status: 200, text };
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues",
    answer: withRepo((repo, { state, query }) => {
      const wantedState = query.get("state") ?? "open";
      const type = query.get("type");
      // Gitea's database filter joins each label named (every one), whatever its swagger says ("any").
      const labels = (query.get("labels") ?? "").split(",").filter(Boolean);
      const issues = repo.issues
        .filter((i) => wantedState === "all" || i.state === wantedState)
        .filter((i) => (type === "issues" ? !i.isPull : type === "pulls" ? i.isPull : true))
        .filter((i) =>
          labels.every((name) =>
            i.labelIds.some((id) => repo.labels.find((l) => l.id === id)?.name === name),
          ),
        )
        .sort((a, b) => b.updatedAt - a.updatedAt || b.number - a.number);
      return ok(paged(issues, query).map((issue) => renderIssue(state, repo, issue)));
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/{index}",
    answer: withIssue((repo, issue, { state }) => ok(renderIssue(state, repo, issue))),
  },
  {
    method: "PATCH",
    path: "/repos/{owner}/{repo}/issues/{index}",
    answer: withIssue((repo, issue, { state, body, caller }) => {
      if (Array.isArray(body.assignees)) {
        for (const login of body.assignees) {
          if (!state.users.some((u) => u.login.toLowerCase() === String(login).toLowerCase())) {
            return { status: 422, body: { message: `user does not exist [name: ${login}]` } };
          }
        }
        const before = issue.assignees;
        issue.assignees = body.assignees.map((login) => state.user(String(login)).login);
        state.recordAssignees(issue, before, caller);
      }
      if (body.state === "open" || body.state === "closed") {
        issue.state = body.state;
        issue.closedAt = body.state === "closed" ? state.now() : null;
      }
      issue.updatedAt = state.now();
      return ok(renderIssue(state, repo, issue), 201);
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/{index}/dependencies",
    answer: withIssue(
      (repo, issue, { state, query }) =>
        dependenciesOff(repo) ??
        ok(paged(state.blockersOf(issue), query).map(({ repo, issue: i }) => renderIssue(state, repo, i))),
    ),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/{index}/blocks",
    answer: withIssue(
      (repo, issue, { state, query }) =>
        dependenciesOff(repo) ??
        ok(paged(state.blockedBy(issue), query).map(({ repo, issue: i }) => renderIssue(state, repo, i))),
    ),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/{index}/comments",
    answer: withIssue((repo, issue, { state }) =>
      ok(issue.comments.map((comment) => renderComment(state, repo, issue, comment))),
    ),
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/issues/{index}/comments",
    answer: withIssue((repo, issue, { state, body, caller }) => {
      const comment = state.addComment(issue, caller, String(body.body ?? ""));
      return ok(renderComment(state, repo, issue, comment), 201);
    }),
  },
  {
    // Gitea's `IssueGetComment`: a comment of another repository is not found here.
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/comments/{id}",
    answer: withRepo((repo, { state, params }) => {
      const found = findComment(repo, Number(params.id));
      return found ? ok(renderComment(state, repo, found.issue, found.comment)) : notFound;
    }),
  },
  {
    method: "DELETE",
    path: "/repos/{owner}/{repo}/issues/comments/{id}",
    answer: withRepo((repo, { state, params }) => {
      const found = findComment(repo, Number(params.id));
      if (!found) return notFound;
      found.issue.comments = found.issue.comments.filter((c) => c !== found.comment);
      found.issue.updatedAt = state.now();
      return { status: 204 };
    }),
  },
  {
    method: "PATCH",
    path: "/repos/{owner}/{repo}/issues/comments/{id}",
    answer: withRepo((repo, { state, params, body }) => {
      const found = findComment(repo, Number(params.id));
      if (!found) return notFound;
      found.comment.body = String(body.body ?? "");
      found.comment.updatedAt = state.now();
      return ok(renderComment(state, repo, found.issue, found.comment));
    }),
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/issues/comments/{id}/reactions",
    answer: withRepo((repo, { state, params, body, caller }) => {
      const found = findComment(repo, Number(params.id));
      if (!found) return notFound;
      const content = String(body.content ?? "");
      const existing = found.comment.reactions.some((r) => r.login === caller && r.content === content);
      if (!existing) found.comment.reactions.push({ login: caller, content });
      const reaction = {
        user: renderUser(state, caller),
        content,
        created_at: new Date(state.now()).toISOString(),
      };
      return ok(reaction, existing ? 200 : 201);
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/{index}/timeline",
    answer: withIssue((repo, issue, { state, query }) => {
      const page = paged(timelineOf(issue), query).map((entry) =>
        renderTimelineEntry(state, repo, issue, entry),
      );
      // Gitea's handler marshals a nil slice: a page past the end is `null`, not `[]`.
      return ok(page.length ? page : null);
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/labels",
    answer: withRepo((repo, { query }) => ok(paged(repo.labels, query).map(renderLabel))),
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/labels",
    answer: withRepo((repo, { state, body }) => {
      const name = String(body.name ?? "");
      if (repo.labels.some((l) => l.name === name)) return { status: 409, body: { message: "label exists" } };
      const label = {
        id: state.nextId(),
        name,
        color: String(body.color ?? "#ededed"),
        description: String(body.description ?? ""),
      };
      repo.labels.push(label);
      return ok(renderLabel(label), 201);
    }),
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/issues/{index}/labels",
    answer: withIssue((repo, issue, { state, body, caller }) => {
      const before = [...issue.labelIds];
      for (const id of Array.isArray(body.labels) ? body.labels : []) {
        if (!repo.labels.some((l) => l.id === id))
          return { status: 422, body: { message: "label not found" } };
        if (!issue.labelIds.includes(Number(id))) issue.labelIds.push(Number(id));
      }
      state.recordLabels(issue, before, caller);
      issue.updatedAt = state.now();
      return ok(issue.labelIds.flatMap((id) => repo.labels.filter((l) => l.id === id).map(renderLabel)));
    }),
  },
  {
    method: "DELETE",
    path: "/repos/{owner}/{repo}/issues/{index}/labels/{id}",
    answer: withIssue((_repo, issue, { state, params, caller }) => {
      const id = Number(params.id);
      if (!issue.labelIds.includes(id)) return notFound;
      const before = issue.labelIds;
      issue.labelIds = issue.labelIds.filter((l) => l !== id);
      state.recordLabels(issue, before, caller);
      issue.updatedAt = state.now();
      return { status: 204 };
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/statuses/{sha}",
    answer: withRepo((repo, { state, params, query }) => {
      const statuses = sortStatuses(repo.statuses.get(params.sha ?? "") ?? [], query.get("sort"));
      return ok(paged(statuses, query).map((status) => renderStatus(state, status)));
    }),
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/statuses/{sha}",
    answer: withRepo((repo, { state, params, body, caller }) => {
      const sha = params.sha ?? "";
      const status = {
        id: state.nextId(),
        state: String(body.state ?? ""),
        context: String(body.context ?? ""),
        description: String(body.description ?? ""),
        target_url: String(body.target_url ?? ""),
        creator: caller,
        createdAt: state.now(),
      };
      repo.statuses.set(sha, [...(repo.statuses.get(sha) ?? []), status]);
      return ok(renderStatus(state, status), 201);
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/pulls/{index}",
    answer: withIssue((repo, issue, { state }) =>
      issue.pull ? ok(renderPullRequest(state, repo, { ...issue, pull: issue.pull })) : notFound,
    ),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/pulls/{index}/commits",
    answer: withIssue((repo, issue, { state, query }) =>
      issue.pull ? ok(paged(issue.pull.commits, query).map((c) => renderCommit(state, repo, c))) : notFound,
    ),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/pulls",
    answer: withRepo((repo, { state, query }) => {
      const wantedState = query.get("state") ?? "open";
      const pulls = repo.issues
        .filter((i): i is SimIssue & { pull: NonNullable<SimIssue["pull"]> } => i.pull !== undefined)
        .filter((i) => wantedState === "all" || i.state === wantedState)
        .sort((a, b) => b.updatedAt - a.updatedAt || b.number - a.number);
      return ok(paged(pulls, query).map((issue) => renderPullRequest(state, repo, issue)));
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/branches/{branch}",
    answer: withRepo((repo, { state, params }) => {
      const name = params.branch ?? "";
      const head = repo.branches.get(name);
      return head ? ok(renderGitBranch(state, repo, name, head)) : notFound;
    }),
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/hooks",
    answer: withAdminRepo((repo, { query }) => ok(paged(repo.hooks, query).map(renderHook))),
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/hooks",
    answer: withAdminRepo((repo, { state, body }) => {
      const checked = hookConfigOf(body);
      if ("refused" in checked) return checked.refused;
      const { config } = checked;
      if (!["gitea", "forgejo", "gogs", "slack", "discord"].includes(String(body.type))) {
        return { status: 422, body: { message: `Invalid hook type: ${String(body.type)}` } };
      }
      if (config.url === undefined || config.content_type === undefined) {
        return { status: 422, body: { message: "Missing config option: url or content_type" } };
      }
      const hook = {
        id: state.nextId(),
        type: String(body.type),
        active: body.active === true,
        events: expandHookEvents(Array.isArray(body.events) ? body.events.map(String) : []),
        url: config.url,
        contentType: config.content_type,
        secret: config.secret ?? "",
        branchFilter: typeof body.branch_filter === "string" ? body.branch_filter : "",
        createdAt: state.now(),
        updatedAt: state.now(),
      };
      repo.hooks.push(hook);
      return ok(renderHook(hook), 201);
    }),
  },
  {
    method: "PATCH",
    path: "/repos/{owner}/{repo}/hooks/{id}",
    answer: withAdminRepo((repo, { state, params, body }) => {
      const hook = repo.hooks.find((h) => h.id === Number(params.id));
      if (!hook) return notFound;
      const checked = hookConfigOf(body);
      if ("refused" in checked) return checked.refused;
      const { config } = checked;
      if (config.url !== undefined) hook.url = config.url;
      if (config.content_type !== undefined) hook.contentType = config.content_type;
      if (config.secret !== undefined) hook.secret = config.secret;
      // Gitea replaces the whole event list: an edit naming none leaves `push` only.
      hook.events = expandHookEvents(Array.isArray(body.events) ? body.events.map(String) : []);
      if (typeof body.active === "boolean") hook.active = body.active;
      // Gitea sets the filter from the form as given (routers/api/v1/utils/hook.go editHook).
      hook.branchFilter = typeof body.branch_filter === "string" ? body.branch_filter : "";
      hook.updatedAt = state.now();
      return ok(renderHook(hook));
    }),
  },
  {
    method: "DELETE",
    path: "/repos/{owner}/{repo}/hooks/{id}",
    answer: withAdminRepo((repo, { params }) => {
      const index = repo.hooks.findIndex((h) => h.id === Number(params.id));
      if (index < 0) return notFound;
      repo.hooks.splice(index, 1);
      return { status: 204 };
    }),
  },
];

/**
 * A commit's statuses in the order `sort` asks for, as Gitea's `CommitStatusOptions.ToOrders`
 * (models/git/commit_status.go) gives them: its times are whole seconds, so statuses of one second
 * tie and come in storage order; `leastindex` is `index` DESC (newest first), `highestindex` ASC.
 * Stored oldest first, so the index is the position (the id grows with it).
 */
function sortStatuses(stored: SimStatus[], sort: string | null): SimStatus[] {
  const second = (status: SimStatus) => Math.floor(status.createdAt / 1000);
  const rows = [...stored];
  switch (sort) {
    case "leastindex":
      return rows.reverse();
    case "highestindex":
      return rows;
    case "oldest":
    case "leastupdate":
      return rows.sort((a, b) => second(a) - second(b));
    default:
      // created_unix DESC (the default) and `recentupdate` (updated_unix DESC): a status is never updated.
      return rows.sort((a, b) => second(b) - second(a));
  }
}

/** The route and its parameters for a method and a path under `/api/v1`, or null. */
export function matchRoute(method: string, path: string) {
  for (const route of restRoutes) {
    if (route.method !== method) continue;
    const names: string[] = [];
    const pattern = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return name === "filepath" || name === "branch" ? "(.+)" : "([^/]+)";
    });
    const match = new RegExp(`^${pattern}$`).exec(path);
    if (!match) continue;
    const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")]));
    return { route, params };
  }
  return null;
}
