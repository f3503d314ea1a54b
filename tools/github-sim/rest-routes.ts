// The REST routes the App (and its CLI) call, answered from the simulator's state with GitHub's shapes and errors.
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import {
  renderCheckRun,
  renderComment,
  renderInstallation,
  renderIssue,
  renderIssueEvent,
  renderLabel,
  renderPull,
  renderReaction,
  renderRepo,
  renderUser,
} from "./render-rest.js";
import { roleAtLeast, type SimState } from "./sim-state.js";
import type { RepoRole, SimCaller, SimIssue, SimRepo, SimUser } from "./sim-types.js";

export interface RestRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  caller: SimCaller | null;
  /** The request's URL without the query, for Link headers. */
  url: string;
}

export interface RestAnswer {
  status: number;
  body?: unknown;
  /** A body sent as is (raw file contents). */
  text?: string;
  headers?: Record<string, string>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const docs = "https://docs.github.com/rest";
const notFound = () => new HttpError(404, "Not Found");

type Handler = (req: RestRequest, state: SimState) => RestAnswer;

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

const routes: Route[] = [];

/** `{name}` matches one segment (digits only for `*_number` and `*_id`), `{name+}` the rest of the path. */
function route(method: string, template: string, handler: Handler): void {
  const names: string[] = [];
  const source = template.replace(/\{(\w+)(\+?)\}/g, (_, name: string, rest: string) => {
    names.push(name);
    if (rest) return "(.+)";
    return /_(number|id)$/.test(name) ? "(\\d+)" : "([^/]+)";
  });
  routes.push({ method, template, pattern: new RegExp(`^${source}$`), names, handler });
}

export function matchRoute(method: string, path: string) {
  for (const candidate of routes) {
    if (candidate.method !== method) continue;
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    candidate.names.forEach((name, i) => {
      params[name] = decodeURIComponent(match[i + 1]!);
    });
    return { route: `${method} ${candidate.template}`, params, handler: candidate.handler };
  }
  return undefined;
}

/** Every path this table answers, as `METHOD /template` (for docs and the control API). */
export function routeTemplates(): string[] {
  return routes.map((r) => `${r.method} ${r.template}`);
}

// ---- helpers ----------------------------------------------------------------------------------

function ok(body: unknown, status = 200, headers?: Record<string, string>): RestAnswer {
  return { status, body, ...(headers ? { headers } : {}) };
}

function requireApp(req: RestRequest): void {
  if (req.caller?.kind !== "app") {
    throw new HttpError(401, "A JSON web token could not be decoded");
  }
}

/** The repository, if the caller may read it; GitHub answers 404 (not 403) for what one cannot see. */
function readableRepo(req: RestRequest, state: SimState): SimRepo {
  const repo = state.findRepo(`${req.params.owner}/${req.params.repo}`);
  if (!repo) throw notFound();
  const caller = req.caller;
  if (caller?.kind === "app") throw new HttpError(403, "Resource not accessible by integration");
  if (caller?.kind === "installation" && !caller.installation.repoIds.has(repo.id)) throw notFound();
  if (caller?.kind === "user" && state.roleOf(repo, caller.user) === "none") throw notFound();
  if (!caller && repo.private) throw notFound();
  return repo;
}

function actor(req: RestRequest): SimUser {
  const caller = req.caller;
  if (caller?.kind === "installation" || caller?.kind === "user") return caller.user;
  throw new HttpError(401, "Requires authentication");
}

/** An installation holds the App's permissions; a user needs the role. */
function requireRole(req: RestRequest, state: SimState, repo: SimRepo, role: RepoRole): SimUser {
  const user = actor(req);
  if (req.caller?.kind === "user" && !roleAtLeast(state.roleOf(repo, user), role)) {
    throw new HttpError(403, "Resource not accessible by personal access token");
  }
  return user;
}

function issueParam(req: RestRequest, state: SimState, repo: SimRepo, param = "issue_number"): SimIssue {
  const issue = state.findIssue(repo, Number(req.params[param]));
  if (!issue) throw notFound();
  return issue;
}

function validation(resource: string, code: string, field: string, message?: string): HttpError {
  return new HttpError(422, "Validation Failed", {
    errors: [{ resource, code, field, ...(message ? { message } : {}) }],
  });
}

function stringField(body: Record<string, unknown>, field: string, resource: string): string {
  const value = body[field];
  if (typeof value !== "string" || value.length === 0) throw validation(resource, "missing_field", field);
  return value;
}

function stringList(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new HttpError(422, "Invalid request: expected an array");
  return value.map((v) => (typeof v === "string" ? v : String((v as { name?: unknown }).name)));
}

/** `per_page` (≤ 100, default 30) and `page`, with GitHub's Link header. */
function paged<T>(req: RestRequest, items: T[], render: (item: T) => unknown): RestAnswer {
  const perPage = Math.min(100, Math.max(1, Number(req.query.get("per_page") ?? 30) || 30));
  const page = Math.max(1, Number(req.query.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const query = new URLSearchParams(req.query);
    query.set("per_page", String(perPage));
    query.set("page", String(n));
    return `<${req.url}?${query}>; rel="${rel}"`;
  };
  const links = [
    ...(page < last ? [link(page + 1, "next"), link(last, "last")] : []),
    ...(page > 1 ? [link(1, "first"), link(page - 1, "prev")] : []),
  ];
  return ok(
    items.slice((page - 1) * perPage, page * perPage).map(render),
    200,
    links.length ? { link: links.join(", ") } : undefined,
  );
}

const legacyPermission: Record<RepoRole | "none", string> = {
  admin: "admin",
  maintain: "write",
  write: "write",
  triage: "read",
  read: "read",
  none: "none",
};

function wantsRaw(headers: IncomingHttpHeaders): boolean {
  return /application\/vnd\.github(\.v3)?\.raw/.test(String(headers.accept ?? ""));
}

// ---- the App and its installations -------------------------------------------------------------

route("GET", "/app", (req, state) => {
  requireApp(req);
  return ok(state.renderApp());
});

route("GET", "/app/installations", (req, state) => {
  requireApp(req);
  return paged(req, [...state.installations.values()], (i) => renderInstallation(state, i));
});

route("GET", "/app/installations/{installation_id}", (req, state) => {
  requireApp(req);
  const installation = state.installations.get(Number(req.params.installation_id));
  if (!installation) throw notFound();
  return ok(renderInstallation(state, installation));
});

route("POST", "/app/installations/{installation_id}/access_tokens", (req, state) => {
  requireApp(req);
  const installation = state.installations.get(Number(req.params.installation_id));
  if (!installation) throw notFound();
  const token = `ghs_${randomBytes(18).toString("base64url")}`;
  const expiresAt = state.now() + 3_600_000;
  state.installationTokens.set(token, { installationId: installation.id, expiresAt });
  return ok(
    {
      token,
      expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
      permissions: state.app.permissions,
      repository_selection: installation.repositorySelection,
    },
    201,
  );
});

route("GET", "/repos/{owner}/{repo}/installation", (req, state) => {
  requireApp(req);
  const repo = state.findRepo(`${req.params.owner}/${req.params.repo}`);
  const installation = repo ? state.installationFor(repo) : undefined;
  if (!installation) throw notFound();
  return ok(renderInstallation(state, installation));
});

route("GET", "/installation/repositories", (req, state) => {
  if (req.caller?.kind !== "installation") throw new HttpError(403, "Resource not accessible by integration");
  const repos = [...req.caller.installation.repoIds].map((id) => state.repoById(id));
  return ok({
    total_count: repos.length,
    repository_selection: req.caller.installation.repositorySelection,
    repositories: repos.map((r) => renderRepo(state, r)),
  });
});

// ---- users ------------------------------------------------------------------------------------

route("GET", "/user", (req, state) => {
  if (!req.caller) throw new HttpError(401, "Requires authentication");
  if (req.caller.kind !== "user") throw new HttpError(403, "Resource not accessible by integration");
  const user = req.caller.user;
  return ok({ ...renderUser(state, user), name: null, email: null, created_at: "2020-01-01T00:00:00Z" });
});

route("GET", "/users/{username}", (req, state) => {
  const user = state.userByLogin(req.params.username!);
  if (!user) throw notFound();
  return ok(renderUser(state, user));
});

// ---- repositories -----------------------------------------------------------------------------

route("GET", "/repos/{owner}/{repo}", (req, state) => ok(renderRepo(state, readableRepo(req, state))));

route("GET", "/repositories/{repository_id}", (req, state) => {
  const repo = state.repos.get(Number(req.params.repository_id));
  if (!repo) throw notFound();
  const [owner, name] = [repo.ownerLogin, repo.name];
  return ok(renderRepo(state, readableRepo({ ...req, params: { owner, repo: name } }, state)));
});

route("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", (req, state) => {
  const repo = readableRepo(req, state);
  const user = state.userByLogin(req.params.username!);
  if (!user) throw new HttpError(404, `${req.params.username} is not a user`);
  const role = state.roleOf(repo, user);
  return ok({
    permission: legacyPermission[role],
    role_name: role,
    user: { ...renderUser(state, user), role_name: role },
  });
});

route("GET", "/repos/{owner}/{repo}/branches/{branch+}", (req, state) => {
  const repo = readableRepo(req, state);
  const sha = repo.branches.get(req.params.branch!);
  if (!sha) throw new HttpError(404, "Branch not found");
  return ok({ name: req.params.branch, commit: { sha, url: `${req.url}` }, protected: false });
});

route("GET", "/repos/{owner}/{repo}/contents/{path+}", (req, state) => {
  const repo = readableRepo(req, state);
  const ref = req.query.get("ref");
  if (ref && ref !== repo.defaultBranch && !repo.branches.has(ref)) {
    throw new HttpError(404, `No commit found for the ref ${ref}`);
  }
  const path = req.params.path!.replace(/\/+$/, "");
  const content = repo.files.get(path);
  if (content === undefined) {
    const children = [...repo.files.keys()].filter((p) => p.startsWith(`${path}/`));
    if (children.length === 0) throw notFound();
    const names = [...new Set(children.map((p) => p.slice(path.length + 1).split("/")[0]!))];
    return ok(
      names.map((name) => {
        const childPath = `${path}/${name}`;
        return { type: repo.files.has(childPath) ? "file" : "dir", name, path: childPath };
      }),
    );
  }
  if (wantsRaw(req.headers)) {
    return {
      status: 200,
      text: content,
      headers: { "content-type": "application/vnd.github.raw; charset=utf-8" },
    };
  }
  const base64 = Buffer.from(content).toString("base64");
  return ok({
    type: "file",
    encoding: "base64",
    size: Buffer.byteLength(content),
    name: path.split("/").at(-1),
    path,
    content: base64,
    sha: Buffer.from(`blob:${content}`).toString("hex").slice(0, 40).padEnd(40, "0"),
  });
});

// ---- labels -----------------------------------------------------------------------------------

route("GET", "/repos/{owner}/{repo}/labels", (req, state) => {
  const repo = readableRepo(req, state);
  return paged(req, repo.labels, (l) => renderLabel(state, repo, l));
});

route("GET", "/repos/{owner}/{repo}/labels/{name}", (req, state) => {
  const repo = readableRepo(req, state);
  const label = state.findLabel(repo, req.params.name!);
  if (!label) throw notFound();
  return ok(renderLabel(state, repo, label));
});

route("POST", "/repos/{owner}/{repo}/labels", (req, state) => {
  const repo = readableRepo(req, state);
  requireRole(req, state, repo, "write");
  const name = stringField(req.body, "name", "Label");
  if (state.findLabel(repo, name)) throw validation("Label", "already_exists", "name");
  const color = typeof req.body.color === "string" ? req.body.color.replace(/^#/, "") : undefined;
  if (color !== undefined && !/^[0-9a-fA-F]{6}$/.test(color)) throw validation("Label", "invalid", "color");
  const label = state.createLabel(repo, {
    name,
    ...(color ? { color } : {}),
    description: typeof req.body.description === "string" ? req.body.description : null,
  });
  return ok(renderLabel(state, repo, label), 201);
});

route("PATCH", "/repos/{owner}/{repo}/labels/{name}", (req, state) => {
  const repo = readableRepo(req, state);
  requireRole(req, state, repo, "write");
  const label = state.findLabel(repo, req.params.name!);
  if (!label) throw notFound();
  if (typeof req.body.new_name === "string") label.name = req.body.new_name;
  if (typeof req.body.color === "string") label.color = req.body.color.replace(/^#/, "");
  if (typeof req.body.description === "string") label.description = req.body.description;
  return ok(renderLabel(state, repo, label));
});

route("DELETE", "/repos/{owner}/{repo}/labels/{name}", (req, state) => {
  const repo = readableRepo(req, state);
  requireRole(req, state, repo, "write");
  const label = state.findLabel(repo, req.params.name!);
  if (!label) throw notFound();
  state.deleteLabel(repo, label);
  return { status: 204 };
});

// ---- issues -----------------------------------------------------------------------------------

route("GET", "/repos/{owner}/{repo}/issues", (req, state) => {
  const repo = readableRepo(req, state);
  const wantedState = req.query.get("state") ?? "open";
  const labels = (req.query.get("labels") ?? "")
    .split(",")
    .filter(Boolean)
    .map((l) => l.toLowerCase());
  const assignee = req.query.get("assignee");
  const sort = req.query.get("sort") === "updated" ? "updatedAt" : "createdAt";
  const direction = req.query.get("direction") ?? "desc";
  const issues = state
    .issuesOf(repo)
    .filter((i) => wantedState === "all" || i.state === wantedState)
    .filter((i) => {
      const names = i.labelIds.map((id) => state.labelById(repo, id).name.toLowerCase());
      return labels.every((l) => names.includes(l));
    })
    .filter((i) => {
      if (!assignee) return true;
      if (assignee === "none") return i.assigneeIds.length === 0;
      if (assignee === "*") return i.assigneeIds.length > 0;
      const user = state.userByLogin(assignee);
      return user !== undefined && i.assigneeIds.includes(user.id);
    })
    .sort((a, b) => a[sort].localeCompare(b[sort]) || a.number - b.number);
  if (direction === "desc") issues.reverse();
  return paged(req, issues, (i) => renderIssue(state, i));
});

route("POST", "/repos/{owner}/{repo}/issues", (req, state) => {
  const repo = readableRepo(req, state);
  const author = actor(req);
  const canTriage = req.caller?.kind === "installation" || roleAtLeast(state.roleOf(repo, author), "triage");
  const issue = state.createIssue(
    repo,
    {
      title: stringField(req.body, "title", "Issue"),
      ...(typeof req.body.body === "string" ? { body: req.body.body } : {}),
      // Like GitHub, labels and assignees from someone who cannot triage are dropped silently.
      ...(canTriage
        ? { labels: stringList(req.body.labels), assignees: stringList(req.body.assignees) }
        : {}),
    },
    author,
  );
  return ok(renderIssue(state, issue), 201);
});

route("GET", "/repos/{owner}/{repo}/issues/{issue_number}", (req, state) => {
  const repo = readableRepo(req, state);
  return ok(renderIssue(state, issueParam(req, state, repo)));
});

route("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  const user = actor(req);
  const isAuthor = issue.authorId === user.id;
  if (!isAuthor) requireRole(req, state, repo, "triage");
  const body = req.body;
  state.editIssue(
    issue,
    {
      ...(typeof body.title === "string" ? { title: body.title } : {}),
      ...(typeof body.body === "string" ? { body: body.body } : {}),
    },
    user,
  );
  if (body.state === "open" || body.state === "closed") {
    const reason = body.state_reason === "not_planned" ? "not_planned" : "completed";
    state.setIssueState(issue, body.state, user, reason);
  }
  if (body.assignees !== undefined) {
    requireRole(req, state, repo, "triage");
    const wanted = stringList(body.assignees)
      .map((login) => state.userByLogin(login))
      .filter((u) => u !== undefined);
    state.removeAssignees(
      issue,
      issue.assigneeIds.filter((id) => !wanted.some((u) => u.id === id)).map((id) => state.userById(id)),
      user,
    );
    state.addAssignees(issue, wanted, user);
  }
  if (body.labels !== undefined) {
    requireRole(req, state, repo, "triage");
    const wanted = stringList(body.labels).map(
      (name) => state.findLabel(repo, name) ?? state.createLabel(repo, { name }),
    );
    state.removeLabels(
      issue,
      issue.labelIds.filter((id) => !wanted.some((l) => l.id === id)).map((id) => state.labelById(repo, id)),
      user,
    );
    state.addLabels(issue, wanted, user);
  }
  return ok(renderIssue(state, issue));
});

route("POST", "/repos/{owner}/{repo}/issues/{issue_number}/assignees", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  const user = requireRole(req, state, repo, "triage");
  const users = stringList(req.body.assignees).flatMap((login) => state.userByLogin(login) ?? []);
  state.addAssignees(issue, users, user);
  return ok(renderIssue(state, issue), 201);
});

route("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/assignees", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  const user = requireRole(req, state, repo, "triage");
  const users = stringList(req.body.assignees).flatMap((login) => state.userByLogin(login) ?? []);
  state.removeAssignees(issue, users, user);
  return ok(renderIssue(state, issue));
});

route("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  const user = requireRole(req, state, repo, "triage");
  const names = stringList(req.body.labels);
  state.addLabels(
    issue,
    names.map((name) => state.findLabel(repo, name) ?? state.createLabel(repo, { name })),
    user,
  );
  return ok(issue.labelIds.map((id) => renderLabel(state, repo, state.labelById(repo, id))));
});

route("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  const user = requireRole(req, state, repo, "triage");
  const label = state.findLabel(repo, req.params.name!);
  if (!label || !issue.labelIds.includes(label.id)) throw new HttpError(404, "Label does not exist");
  state.removeLabels(issue, [label], user);
  return ok(issue.labelIds.map((id) => renderLabel(state, repo, state.labelById(repo, id))));
});

// ---- issue dependencies and sub-issues --------------------------------------------------------

/** An issue by its global id (the id these endpoints take), if the caller may read its repository. */
function issueById(
  req: RestRequest,
  state: SimState,
  value: unknown,
  field: string,
  resource: string,
): SimIssue {
  if (typeof value !== "number" || !Number.isInteger(value))
    throw validation(resource, "missing_field", field);
  const issue = state.issueById(value);
  if (!issue) throw notFound();
  const repo = state.repoById(issue.repoId);
  readableRepo({ ...req, params: { owner: repo.ownerLogin, repo: repo.name } }, state);
  return issue;
}

route("GET", "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", (req, state) => {
  const repo = readableRepo(req, state);
  return paged(req, state.blockersOf(issueParam(req, state, repo)), (i) => renderIssue(state, i));
});

route("GET", "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocking", (req, state) => {
  const repo = readableRepo(req, state);
  return paged(req, state.blockedBy(issueParam(req, state, repo)), (i) => renderIssue(state, i));
});

route("POST", "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", (req, state) => {
  const repo = readableRepo(req, state);
  const blocked = issueParam(req, state, repo);
  const user = requireRole(req, state, repo, "triage");
  const blocking = issueById(req, state, req.body.issue_id, "issue_id", "IssueDependency");
  const problem = state.dependencyProblem(blocked, blocking);
  if (problem) throw validation("IssueDependency", "invalid", "issue_id", problem);
  state.addBlockedBy(blocked, blocking, user);
  return ok(renderIssue(state, blocking), 201, { location: `${req.url}` });
});

route(
  "DELETE",
  "/repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id}",
  (req, state) => {
    const repo = readableRepo(req, state);
    const blocked = issueParam(req, state, repo);
    const user = requireRole(req, state, repo, "triage");
    const blocking = state.issueById(Number(req.params.issue_id));
    if (!blocking || !blocked.blockedByIds.includes(blocking.id)) throw notFound();
    state.removeBlockedBy(blocked, blocking, user);
    return ok(renderIssue(state, blocking));
  },
);

route("GET", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", (req, state) => {
  const repo = readableRepo(req, state);
  return paged(req, state.subIssuesOf(issueParam(req, state, repo)), (i) => renderIssue(state, i));
});

route("POST", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", (req, state) => {
  const repo = readableRepo(req, state);
  const parent = issueParam(req, state, repo);
  const user = requireRole(req, state, repo, "triage");
  const child = issueById(req, state, req.body.sub_issue_id, "sub_issue_id", "SubIssue");
  const replaceParent = req.body.replace_parent === true;
  const problem = state.subIssueProblem(parent, child, replaceParent);
  if (problem) throw validation("SubIssue", "invalid", "sub_issue_id", problem);
  state.addSubIssue(parent, child, user, replaceParent);
  return ok(renderIssue(state, parent), 201, { location: `${req.url}` });
});

route("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issue", (req, state) => {
  const repo = readableRepo(req, state);
  const parent = issueParam(req, state, repo);
  const user = requireRole(req, state, repo, "triage");
  const child = issueById(req, state, req.body.sub_issue_id, "sub_issue_id", "SubIssue");
  if (!parent.subIssueIds.includes(child.id)) throw notFound();
  state.removeSubIssue(parent, child, user);
  return ok(renderIssue(state, parent));
});

// ---- comments and reactions -------------------------------------------------------------------

function commentParam(req: RestRequest, state: SimState, repo: SimRepo) {
  const comment = state.commentById(Number(req.params.comment_id));
  if (!comment || comment.repoId !== repo.id) throw notFound();
  return comment;
}

route("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}", (req, state) => {
  const repo = readableRepo(req, state);
  return ok(renderComment(state, commentParam(req, state, repo)));
});

route("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", (req, state) => {
  const repo = readableRepo(req, state);
  const comment = commentParam(req, state, repo);
  const user = actor(req);
  if (comment.authorId !== user.id) requireRole(req, state, repo, "triage");
  state.editComment(comment, stringField(req.body, "body", "IssueComment"), user);
  return ok(renderComment(state, comment));
});

route("DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}", (req, state) => {
  const repo = readableRepo(req, state);
  const comment = commentParam(req, state, repo);
  const user = actor(req);
  if (comment.authorId !== user.id) requireRole(req, state, repo, "triage");
  state.deleteComment(comment, user);
  return { status: 204 };
});

const reactionContents = new Set(["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]);

route("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", (req, state) => {
  const repo = readableRepo(req, state);
  const comment = commentParam(req, state, repo);
  const content = req.query.get("content");
  const reactions = state.reactionsOf(comment).filter((r) => !content || r.content === content);
  return paged(req, reactions, (r) => renderReaction(state, r));
});

route("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", (req, state) => {
  const repo = readableRepo(req, state);
  const comment = commentParam(req, state, repo);
  const content = req.body.content;
  if (typeof content !== "string" || !reactionContents.has(content)) {
    throw validation("Reaction", "invalid", "content");
  }
  const { reaction, created } = state.addReaction(comment, actor(req), content);
  return ok(renderReaction(state, reaction), created ? 201 : 200);
});

route("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  return paged(req, state.commentsOf(issue), (c) => renderComment(state, c));
});

route("GET", "/repos/{owner}/{repo}/issues/{issue_number}/events", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  return paged(req, state.eventsOf(issue), (e) => renderIssueEvent(state, issue, e));
});

route("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo);
  const comment = state.addComment(issue, actor(req), stringField(req.body, "body", "IssueComment"));
  return ok(renderComment(state, comment), 201);
});

// ---- pull requests ----------------------------------------------------------------------------

route("GET", "/repos/{owner}/{repo}/pulls", (req, state) => {
  const repo = readableRepo(req, state);
  const wantedState = req.query.get("state") ?? "open";
  const head = req.query.get("head");
  const base = req.query.get("base");
  const direction = req.query.get("direction") ?? "desc";
  const pulls = state
    .issuesOf(repo)
    .filter((i) => i.pull)
    .filter((i) => wantedState === "all" || i.state === wantedState)
    // `head` is `user:ref` (or `org:ref`); only same-repository heads exist here.
    .filter((i) => !head || head === `${repo.ownerLogin}:${i.pull!.headRef}` || head === i.pull!.headRef)
    .filter((i) => !base || i.pull!.baseRef === base)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.number - b.number);
  if (direction === "desc") pulls.reverse();
  return paged(req, pulls, (i) => renderPull(state, i));
});

route("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", (req, state) => {
  const repo = readableRepo(req, state);
  const issue = issueParam(req, state, repo, "pull_number");
  if (!issue.pull) throw notFound();
  return ok(renderPull(state, issue));
});

// ---- check runs -------------------------------------------------------------------------------

function requireInstallation(req: RestRequest): SimUser {
  if (req.caller?.kind !== "installation")
    throw new HttpError(403, "You must authenticate via a GitHub App.");
  return req.caller.user;
}

route("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", (req, state) => {
  const repo = readableRepo(req, state);
  const ref = req.params.ref!;
  const sha = repo.branches.get(ref.replace(/^refs\/heads\//, "")) ?? ref;
  const name = req.query.get("check_name");
  const status = req.query.get("status");
  let runs = [...state.checkRuns.values()]
    .filter((r) => r.repoId === repo.id && r.headSha === sha)
    .filter((r) => !name || r.name === name)
    .filter((r) => !status || r.status === status)
    .sort((a, b) => b.id - a.id);
  if ((req.query.get("filter") ?? "latest") === "latest") {
    runs = runs.filter((r, i) => runs.findIndex((o) => o.name === r.name) === i);
  }
  const page = paged(req, runs, (r) => renderCheckRun(state, r));
  return { ...page, body: { total_count: runs.length, check_runs: page.body } };
});

function checkRunFields(body: Record<string, unknown>) {
  const output = body.output as Record<string, unknown> | undefined;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const status = text(body.status);
  if (status !== undefined && !["queued", "in_progress", "completed"].includes(status)) {
    throw validation("CheckRun", "invalid", "status");
  }
  const conclusion = text(body.conclusion);
  if (status === "completed" && !conclusion) {
    throw new HttpError(
      422,
      'Invalid request.\n\nNo subschema in "anyOf" matched.\n"conclusion" wasn\'t supplied.',
    );
  }
  return {
    ...(status ? { status: status as "queued" | "in_progress" | "completed" } : {}),
    ...(conclusion ? { conclusion } : {}),
    ...(body.details_url !== undefined ? { detailsUrl: text(body.details_url) ?? null } : {}),
    ...(body.external_id !== undefined ? { externalId: text(body.external_id) ?? null } : {}),
    ...(output
      ? {
          output: {
            ...(output.title !== undefined ? { title: text(output.title) ?? null } : {}),
            ...(output.summary !== undefined ? { summary: text(output.summary) ?? null } : {}),
            ...(output.text !== undefined ? { text: text(output.text) ?? null } : {}),
          },
        }
      : {}),
    ...(text(body.completed_at) ? { completedAt: text(body.completed_at)! } : {}),
  };
}

route("POST", "/repos/{owner}/{repo}/check-runs", (req, state) => {
  const repo = readableRepo(req, state);
  const sender = requireInstallation(req);
  const name = stringField(req.body, "name", "CheckRun");
  const headSha = stringField(req.body, "head_sha", "CheckRun");
  if (!/^[0-9a-f]{40}$/.test(headSha)) throw new HttpError(422, `No commit found for SHA: ${headSha}`);
  const output = req.body.output as Record<string, unknown> | undefined;
  if (output && (typeof output.title !== "string" || typeof output.summary !== "string")) {
    throw new HttpError(422, 'Invalid request.\n\n"title", "summary" weren\'t supplied.');
  }
  const run = state.createCheckRun(
    repo,
    {
      name,
      headSha,
      ...checkRunFields(req.body),
      ...(typeof req.body.started_at === "string" ? { startedAt: req.body.started_at } : {}),
    },
    sender,
  );
  return ok(renderCheckRun(state, run), 201);
});

route("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}", (req, state) => {
  const repo = readableRepo(req, state);
  const run = state.checkRuns.get(Number(req.params.check_run_id));
  if (!run || run.repoId !== repo.id) throw notFound();
  return ok(renderCheckRun(state, run));
});

route("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", (req, state) => {
  const repo = readableRepo(req, state);
  const sender = requireInstallation(req);
  const run = state.checkRuns.get(Number(req.params.check_run_id));
  if (!run || run.repoId !== repo.id) throw notFound();
  state.updateCheckRun(
    run,
    { ...(typeof req.body.name === "string" ? { name: req.body.name } : {}), ...checkRunFields(req.body) },
    sender,
  );
  return ok(renderCheckRun(state, run));
});

export function errorBody(error: HttpError) {
  return { message: error.message, ...error.extra, documentation_url: docs, status: String(error.status) };
}
