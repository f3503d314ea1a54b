// GitHub's identity and installation calls faked with nock: the installation token, the caller's login, permissions, installations.
import type nock from "nock";
import { appJwt, type GitHubRequestLog, githubScope, installationToken, isLog } from "./github-scope.js";

export const installationId = 42;
export const agentToken = "ghp_agenttoken000000000000000000000001";
export const otherAgentToken = "ghp_agenttoken000000000000000000000002";
export const agent = { login: "fleet-bot", id: 501, node_id: "U_fleet" };
export const otherAgent = { login: "other-bot", id: 502, node_id: "U_other" };

/** `POST /app/installations/{id}/access_tokens`: the installation token the App then uses. */
export function nockCreateInstallationToken(log: GitHubRequestLog, id = installationId) {
  return githubScope({ log })
    .post(`/app/installations/${id}/access_tokens`)
    .reply(201, { token: installationToken, expires_at: "2099-01-01T00:00:00Z", permissions: {} });
}

/** `GET /user` with `token`: the login it stands for (`null`: 401 Bad credentials), or an exact status and body. */
export function nockGetUser(log: GitHubRequestLog, token: string, user: typeof agent | null): nock.Scope;
export function nockGetUser(token: string, status: number, body: unknown): nock.Scope;
export function nockGetUser(first: GitHubRequestLog | string, second: unknown, third: unknown): nock.Scope {
  if (isLog(first)) {
    const user = third as typeof agent | null;
    const scope = githubScope({ log: first, token: second as string }).get("/user");
    return user ? scope.reply(200, user) : scope.reply(401, { message: "Bad credentials" });
  }
  return githubScope({ token: first })
    .get("/user")
    .reply(second as number, third as nock.Body);
}

/** `GET /repos/{repo}/installation` with an App JWT: the installation id (`null`: 404), or an exact status and body. */
export function nockGetRepoInstallation(log: GitHubRequestLog, repo: string, id?: number | null): nock.Scope;
export function nockGetRepoInstallation(repo: string, status: number, body: unknown): nock.Scope;
export function nockGetRepoInstallation(
  first: GitHubRequestLog | string,
  second: unknown,
  third?: unknown,
): nock.Scope {
  if (isLog(first)) {
    const id = third === undefined ? installationId : (third as number | null);
    const scope = githubScope({ log: first })
      .matchHeader("authorization", /^bearer /i)
      .get(`/repos/${second as string}/installation`);
    return id === null ? scope.reply(404, { message: "Not Found" }) : scope.reply(200, { id });
  }
  return githubScope({ token: appJwt })
    .get(`/repos/${first}/installation`)
    .reply(second as number, third as nock.Body);
}

/** `GET /repos/{repo}/collaborators/{login}/permission`: `permission` as GitHub answers it, or an exact status and body. */
export function nockGetCollaboratorPermission(
  log: GitHubRequestLog,
  repo: string,
  login: string,
  permission: string,
): nock.Scope;
export function nockGetCollaboratorPermission(
  repo: string,
  login: string,
  status: number,
  body: unknown,
): nock.Scope;
export function nockGetCollaboratorPermission(
  first: GitHubRequestLog | string,
  second: string,
  third: unknown,
  fourth?: unknown,
): nock.Scope {
  if (isLog(first)) {
    const [repo, login, permission] = [second, third as string, fourth as string];
    return githubScope({ log: first, token: installationToken })
      .get(`/repos/${repo}/collaborators/${login}/permission`)
      .reply(200, { permission, role_name: permission, user: { login } });
  }
  return githubScope({ token: installationToken })
    .get(`/repos/${first}/collaborators/${second}/permission`)
    .reply(third as number, fourth as nock.Body);
}

/** `GET /installation/repositories`: the installation's repositories, one page. */
export function nockListInstallationRepositories(log: GitHubRequestLog, repos: string[]) {
  return githubScope({ log })
    .get("/installation/repositories")
    .query(true)
    .reply(200, { total_count: repos.length, repositories: repos.map((full_name) => ({ full_name })) });
}

/** `GET /app/installations` with an App JWT: one page of ids. */
export function nockListAppInstallations(log: GitHubRequestLog, ids: number[]) {
  return githubScope({ log })
    .matchHeader("authorization", /^bearer /i)
    .get("/app/installations")
    .query(true)
    .reply(
      200,
      ids.map((id) => ({ id })),
    );
}

/** `GET /app/installations/{id}` with an App JWT: the installation and the account it is on. */
export function nockGetAppInstallation(log: GitHubRequestLog, id: number, accountLogin: string) {
  return githubScope({ log })
    .matchHeader("authorization", /^bearer /i)
    .get(`/app/installations/${id}`)
    .reply(200, {
      id,
      account: { login: accountLogin, id: 9000 + id, type: "Organization" },
      repository_selection: "selected",
      app_id: 1,
      target_type: "Organization",
    });
}

/** `GET /repositories/{id}`: the repository's current full name (renames). */
export function nockGetRepository(log: GitHubRequestLog, repoId: number, fullName: string) {
  return githubScope({ log }).get(`/repositories/${repoId}`).reply(200, { id: repoId, full_name: fullName });
}
