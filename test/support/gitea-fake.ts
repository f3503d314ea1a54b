// Gitea's REST v1 faked with nock: one helper per call the Gitea provider makes, bodies matched exactly, every request logged.
import { isDeepStrictEqual } from "node:util";
import nock from "nock";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";

// test/support/setup.ts leaves interception off until a fake is loaded (as github-fake/ does).
if (!nock.isActive()) nock.activate();

export const giteaUrl = "https://gitea.test";
export const giteaBotToken = "gitea-bot-token-00000000000000000001";
export const giteaAgentToken = "gitea-agent-token-000000000000000001";
export const owner = "octo";
export const repo = "widgets";
const repoPath = `/api/v1/repos/${owner}/${repo}`;
/** octo/widgets' id (`RepositoryMeta.id` in the issues the fake answers). */
export const fakeRepoId = 77;

/** `METHOD path` of every request the fake answered, in order. */
export type GiteaRequestLog = string[];

export function giteaClient(log?: string[]): GiteaClient {
  return new GiteaClient({
    baseUrl: giteaUrl,
    token: giteaBotToken,
    ...(log ? { onRequest: (kind) => log.push(kind) } : {}),
  });
}

function scope(log: GiteaRequestLog, token = giteaBotToken): nock.Scope {
  return nock(giteaUrl, { reqheaders: { authorization: `token ${token}` } }).on(
    "request",
    (_req: unknown, interceptor: { method: string; path: string }) => {
      log.push(`${interceptor.method} ${interceptor.path}`);
    },
  );
}

const exactBody = (expected: unknown) => (body: unknown) => isDeepStrictEqual(body, expected);

export const giteaUser = (login: string, id: number) => ({
  id,
  login,
  login_name: "",
  full_name: "",
  email: `${login}@noreply.gitea.test`,
  avatar_url: "",
  is_admin: false,
});

/** `GET /api/v1/user` with `token`: its user, or Gitea's 401 for a token it does not know. */
export function nockGetUser(log: GiteaRequestLog, token: string, user: { login: string; id: number } | null) {
  const reply = scope(log, token).get("/api/v1/user");
  return user
    ? reply.reply(200, giteaUser(user.login, user.id))
    : reply.reply(401, { message: "token is required" });
}

/** `GET …/collaborators/{collaborator}/permission`: Gitea's permission, or an exact status. */
export function nockGetPermission(log: GiteaRequestLog, login: string, answer: string | { status: number }) {
  const reply = scope(log).get(`${repoPath}/collaborators/${login}/permission`);
  if (typeof answer === "string") {
    return reply.reply(200, { permission: answer, role_name: answer, user: giteaUser(login, 900) });
  }
  return reply.reply(answer.status, { message: "permission lookup refused", url: giteaUrl });
}

/** `GET /api/v1/repos/{owner}/{repo}`: the repository the bot can see, or 404. */
export function nockGetRepository(log: GiteaRequestLog, visible: boolean) {
  const reply = scope(log).get(repoPath);
  return visible
    ? reply.reply(200, { id: 77, name: repo, full_name: `${owner}/${repo}`, owner: giteaUser(owner, 2) })
    : reply.reply(404, { message: "The target couldn't be found." });
}

/** `GET …/raw/{filepath}`: the file's text, or 404. */
export function nockGetRawFile(log: GiteaRequestLog, filepath: string, text: string | null) {
  const reply = scope(log).get(`${repoPath}/raw/${filepath}`);
  return text === null ? reply.reply(404, { message: "object does not exist" }) : reply.reply(200, text);
}

/** `GET …/issues/{index}`: the issue with its assignees and labels. */
export function nockGetIssue(
  log: GiteaRequestLog,
  index: number,
  state: { assignees: string[]; labels: { id: number; name: string }[] },
) {
  return scope(log)
    .get(`${repoPath}/issues/${index}`)
    .reply(200, {
      id: 5000 + index,
      number: index,
      title: "Fix the widget",
      state: "open",
      user: giteaUser("octocat", 1),
      assignees: state.assignees.length ? state.assignees.map((login, i) => giteaUser(login, 100 + i)) : null,
      labels: state.labels.map((label) => ({ ...label, color: "ededed", description: "", exclusive: false })),
      repository: { id: fakeRepoId, name: repo, owner, full_name: `${owner}/${repo}` },
    });
}

/** `PATCH …/issues/{index}` with exactly `{ assignees }`. */
export function nockSetAssignees(log: GiteaRequestLog, index: number, assignees: string[]) {
  return scope(log)
    .patch(`${repoPath}/issues/${index}`, exactBody({ assignees }))
    .reply(201, { number: index, state: "open" });
}

/** `GET …/labels?page=&limit=50`: one page of the repository's labels. */
export function nockListLabels(log: GiteaRequestLog, labels: { id: number; name: string }[], page = 1) {
  return scope(log)
    .get(`${repoPath}/labels`)
    .query({ page: String(page), limit: "50" })
    .reply(
      200,
      labels.map((label) => ({ ...label, color: "ededed", description: "", exclusive: false })),
    );
}

/** `POST …/labels` with exactly the label's name, `#colour` and description. */
export function nockCreateLabel(
  log: GiteaRequestLog,
  label: { name: string; color: string; description: string },
  id: number,
) {
  return scope(log)
    .post(`${repoPath}/labels`, exactBody(label))
    .reply(201, { id, name: label.name, color: label.color, description: label.description });
}

/** `POST …/issues/{index}/labels` with exactly `{ labels: ids }`. */
export function nockAddIssueLabels(log: GiteaRequestLog, index: number, ids: number[]) {
  return scope(log)
    .post(`${repoPath}/issues/${index}/labels`, exactBody({ labels: ids }))
    .reply(200, []);
}

/** `DELETE …/issues/{index}/labels/{id}`. */
export function nockRemoveIssueLabel(log: GiteaRequestLog, index: number, id: number) {
  return scope(log).delete(`${repoPath}/issues/${index}/labels/${id}`).reply(204);
}

/** `POST …/issues/{index}/comments`; `body` checks the comment text. */
export function nockCreateComment(
  log: GiteaRequestLog,
  index: number,
  id: number,
  body: (text: string) => boolean,
) {
  return scope(log)
    .post(`${repoPath}/issues/${index}/comments`, (sent: { body?: unknown }) => {
      return Object.keys(sent).length === 1 && typeof sent.body === "string" && body(sent.body);
    })
    .reply(201, { id, body: "", user: giteaUser("claim-hold-bot", 3) });
}

/** `PATCH …/issues/comments/{id}`; `body` checks the new text. */
export function nockEditComment(log: GiteaRequestLog, id: number, body: (text: string) => boolean) {
  return scope(log)
    .patch(`${repoPath}/issues/comments/${id}`, (sent: { body?: unknown }) => {
      return Object.keys(sent).length === 1 && typeof sent.body === "string" && body(sent.body);
    })
    .reply(200, { id, body: "" });
}

/** `GET …/statuses/{sha}?sort=leastindex&limit=50`: the commit's statuses, highest index first. */
export function nockListStatuses(
  log: GiteaRequestLog,
  sha: string,
  statuses: { id: number; context: string; status: string; description: string; target_url?: string }[],
) {
  return scope(log)
    .get(`${repoPath}/statuses/${sha}`)
    .query({ sort: "leastindex", limit: "50" })
    .reply(200, statuses);
}

/** `POST …/statuses/{sha}` with exactly the status. */
export function nockCreateStatus(log: GiteaRequestLog, sha: string, status: Record<string, string>) {
  return scope(log)
    .post(`${repoPath}/statuses/${sha}`, exactBody(status))
    .reply(201, { id: 1, context: status.context, status: status.state, description: status.description });
}

/** Any Gitea call refused with `status`. */
export function nockRefuse(
  log: GiteaRequestLog,
  method: "get" | "post" | "patch" | "delete",
  path: string,
  status: number,
) {
  return scope(log)[method](`${repoPath}${path}`).reply(status, { message: "refused by Gitea" });
}
