// Shared nock helpers for GitHub calls, each named after the call it mocks, plus a real Probot client.
import { isDeepStrictEqual } from "node:util";
import nock from "nock";
import { ProbotOctokit } from "probot";
import {
  RESOLVE_LABELS_QUERY,
  resolveLabelsVariables,
  SUBJECT_STATUS_QUERY,
  type SubjectStatusVariables,
  type TransitionMutation,
} from "../../src/providers/github/graphql/index.js";

export const githubApiUrl = "https://api.github.com";
export const installationToken = "ghs_installationtoken0123456789";
export const appJwt = "ghs_appclienttoken0123456789abcdef";

/** A real Probot client (plugins and all) with retries and throttling off, so each call is one request. */
export function testOctokit(token = installationToken): InstanceType<typeof ProbotOctokit> {
  return new ProbotOctokit({
    auth: { token },
    baseUrl: githubApiUrl,
    retry: { enabled: false },
    throttle: { enabled: false },
  });
}

function github(token?: string): nock.Scope {
  const scope = nock(githubApiUrl);
  return token ? scope.matchHeader("authorization", `token ${token}`) : scope;
}

/** Matches a JSON request body exactly: no missing, extra or different field. */
export function exactBody(expected: unknown): (body: unknown) => boolean {
  return (body) => isDeepStrictEqual(body, expected);
}

type GraphqlReply = { data?: unknown; errors?: unknown[] };

export function mockGraphqlSubjectStatus(variables: SubjectStatusVariables, reply: GraphqlReply): nock.Scope {
  return github(installationToken)
    .post("/graphql", exactBody({ query: SUBJECT_STATUS_QUERY, variables }))
    .reply(200, reply);
}

/** `found` maps a requested name to its label (or null); unused slots repeat the first name. */
export function mockGraphqlResolveLabels(
  repo: string,
  names: string[],
  found: Record<string, { id: string; name: string } | null>,
): nock.Scope {
  const [owner, name] = repo.split("/") as [string, string];
  const variables = resolveLabelsVariables(owner, name, names);
  const repository: Record<string, unknown> = {};
  for (let slot = 0; slot < 4; slot++) repository[`label${slot}`] = found[variables[`label${slot}`]!] ?? null;
  return github(installationToken)
    .post("/graphql", exactBody({ query: RESOLVE_LABELS_QUERY, variables }))
    .reply(200, { data: { repository } });
}

export function mockGraphqlApplyTransition(
  mutation: TransitionMutation,
  reply: GraphqlReply | { status: number; body: unknown },
): nock.Scope {
  const scope = github(installationToken).post(
    "/graphql",
    exactBody({ query: mutation.document, variables: mutation.variables }),
  );
  return "status" in reply ? scope.reply(reply.status, reply.body as nock.Body) : scope.reply(200, reply);
}

export function mockGetLabel(repo: string, name: string, status: number, body: unknown = {}): nock.Scope {
  return github(installationToken)
    .get(`/repos/${repo}/labels/${encodeURIComponent(name)}`)
    .reply(status, body as nock.Body);
}

export function mockCreateLabel(
  repo: string,
  label: { name: string; color: string; description: string },
  status: number,
  body: unknown,
): nock.Scope {
  return github(installationToken)
    .post(`/repos/${repo}/labels`, exactBody(label))
    .reply(status, body as nock.Body);
}

export function mockGetUser(token: string, status: number, body: unknown): nock.Scope {
  return github(token)
    .get("/user")
    .reply(status, body as nock.Body);
}

export function mockGetRepoInstallation(repo: string, status: number, body: unknown): nock.Scope {
  return github(appJwt)
    .get(`/repos/${repo}/installation`)
    .reply(status, body as nock.Body);
}

export function mockGetCollaboratorPermission(
  repo: string,
  login: string,
  status: number,
  body: unknown,
): nock.Scope {
  return github(installationToken)
    .get(`/repos/${repo}/collaborators/${login}/permission`)
    .reply(status, body as nock.Body);
}

/** Answers with the raw media type, as GitHub does for `accept: application/vnd.github.raw+json`. */
export function mockGetConfigFile(repo: string, status: number, text?: string): nock.Scope {
  const scope = github(installationToken)
    .matchHeader("accept", "application/vnd.github.raw+json")
    .get(`/repos/${repo}/contents/.github/claim-hold.yml`);
  return status === 200
    ? scope.reply(200, text ?? "", { "content-type": "application/vnd.github.raw; charset=utf-8" })
    : scope.reply(status, { message: "Not Found" });
}
