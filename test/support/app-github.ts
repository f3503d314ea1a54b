// GitHub as the in-process App sees it, faked with nock: installation auth, identity calls, subject reads and writes.
import nock from "nock";
import { type ClaimMarker, sealClaimComment } from "../../src/lease/claim-comment.js";
import { SUBJECT_STATUS_QUERY } from "../../src/providers/github/graphql/index.js";
import { testSeal } from "./app-harness.js";
import { githubApiUrl, installationToken } from "./github-nock.js";

export const installationId = 42;
export const agentToken = "ghp_agenttoken000000000000000000000001";
export const otherAgentToken = "ghp_agenttoken000000000000000000000002";
export const agent = { login: "fleet-bot", id: 501, node_id: "U_fleet" };
export const otherAgent = { login: "other-bot", id: 502, node_id: "U_other" };

/** Counts every request that reaches the fake GitHub, by kind, so tests can pin request budgets exactly. */
export class GitHubRequestLog {
  readonly entries: { method: string; path: string; body: unknown }[] = [];
  count(): number {
    return this.entries.length;
  }
  since(mark: number) {
    return this.entries.slice(mark);
  }
  record(method: string, path: string, body: unknown) {
    this.entries.push({ method, path, body });
  }
}

function api(log: GitHubRequestLog) {
  const scope = nock(githubApiUrl);
  scope.on("request", (_req: unknown, interceptor: { method: string; path: string }, body: string) => {
    let parsed: unknown = body;
    try {
      parsed = body ? JSON.parse(body) : undefined;
    } catch {}
    log.record(interceptor.method, interceptor.path, parsed);
  });
  return scope;
}

export function mockCreateInstallationToken(log: GitHubRequestLog, id = installationId) {
  return api(log)
    .post(`/app/installations/${id}/access_tokens`)
    .reply(201, { token: installationToken, expires_at: "2099-01-01T00:00:00Z", permissions: {} });
}

export function mockGetUser(log: GitHubRequestLog, token: string, user: typeof agent | null) {
  const scope = api(log).matchHeader("authorization", `token ${token}`).get("/user");
  return user ? scope.reply(200, user) : scope.reply(401, { message: "Bad credentials" });
}

export function mockGetRepoInstallation(
  log: GitHubRequestLog,
  repo: string,
  id: number | null = installationId,
) {
  const scope = api(log)
    .matchHeader("authorization", /^bearer /i)
    .get(`/repos/${repo}/installation`);
  return id === null ? scope.reply(404, { message: "Not Found" }) : scope.reply(200, { id });
}

export function mockGetCollaboratorPermission(
  log: GitHubRequestLog,
  repo: string,
  login: string,
  permission: string,
) {
  return api(log)
    .matchHeader("authorization", `token ${installationToken}`)
    .get(`/repos/${repo}/collaborators/${login}/permission`)
    .reply(200, { permission, role_name: permission, user: { login } });
}

/** No `.github/claim-hold.yml` in the repository nor in the org's `.github` repository. */
export function mockNoConfigFile(log: GitHubRequestLog, repo: string) {
  const owner = repo.split("/")[0];
  api(log).get(`/repos/${repo}/contents/.github/claim-hold.yml`).reply(404, { message: "Not Found" });
  return api(log)
    .get(`/repos/${owner}/.github/contents/.github/claim-hold.yml`)
    .reply(404, { message: "Not Found" });
}

export function mockConfigFile(log: GitHubRequestLog, repo: string, yaml: string) {
  return api(log)
    .get(`/repos/${repo}/contents/.github/claim-hold.yml`)
    .reply(200, yaml, { "content-type": "application/vnd.github.raw; charset=utf-8" });
}

export interface IssueState {
  repo: string;
  repoId: number;
  number: number;
  title?: string;
  state?: "OPEN" | "CLOSED";
  pullRequest?: boolean;
  assignees?: { login: string; id: string }[];
  labels?: string[];
  comments?: { id: string; databaseId: number; body: string; viewerDidAuthor: boolean }[];
  pullRequests?: { number: number; headRefName: string; author: { login: string } }[];
}

export const labelIds: Record<string, string> = { "agent:claimed": "LA_claimed", "agent:stale": "LA_stale" };

export function issueNodeId(issue: IssueState) {
  return `I_${issue.repoId}_${issue.number}`;
}

/** The one GraphQL read of a subject; `beforeReply` runs while GitHub "thinks" (races in tests). */
export function mockGraphqlSubjectStatus(
  log: GitHubRequestLog,
  issue: IssueState,
  beforeReply?: () => Promise<unknown>,
) {
  const [owner, name] = issue.repo.split("/");
  return api(log)
    .post("/graphql", (body: { query?: string; variables?: Record<string, unknown> }) => {
      return (
        body.query === SUBJECT_STATUS_QUERY &&
        body.variables?.owner === owner &&
        body.variables?.name === name &&
        body.variables?.number === issue.number
      );
    })
    .reply(async () => {
      await beforeReply?.();
      const node = issue.pullRequest
        ? { __typename: "PullRequest" }
        : {
            __typename: "Issue",
            id: issueNodeId(issue),
            title: issue.title ?? "Fix the parser",
            state: issue.state ?? "OPEN",
            updatedAt: "2026-11-29T09:00:00Z",
            closedByPullRequestsReferences: { nodes: issue.pullRequests ?? [] },
            assignees: { nodes: issue.assignees ?? [] },
            labels: { nodes: (issue.labels ?? []).map((l) => ({ id: labelIds[l] ?? `LA_${l}`, name: l })) },
            comments: { nodes: issue.comments ?? [] },
          };
      const data = {
        data: {
          repository: {
            databaseId: issue.repoId,
            nameWithOwner: issue.repo,
            claimedLabel: { id: labelIds["agent:claimed"], name: "agent:claimed" },
            staleLabel: { id: labelIds["agent:stale"], name: "agent:stale" },
            issueOrPullRequest: node,
          },
        },
      };
      return [200, data];
    });
}

/** The one batched mutation of a transition; the sent variables are captured for exact assertions. */
export function mockGraphqlApplyTransition(
  log: GitHubRequestLog,
  reply: { claimComment?: { id: string; databaseId: number }; fail?: number } = {},
) {
  const captured: { document?: string; variables?: Record<string, unknown> } = {};
  const scope = api(log).post("/graphql", (body: { query?: string; variables?: Record<string, unknown> }) => {
    if (!body.query?.startsWith("mutation ApplyTransition")) return false;
    captured.document = body.query;
    captured.variables = body.variables ?? {};
    return true;
  });
  if (reply.fail) scope.reply(reply.fail, { message: "Server Error" });
  else
    scope.reply(200, {
      data: reply.claimComment ? { claimComment: { commentEdge: { node: reply.claimComment } } } : {},
    });
  return captured;
}

export function claimCommentOf(id: string, databaseId: number, body: string) {
  return { id, databaseId, body, viewerDidAuthor: true };
}

export function markerComment(marker: ClaimMarker, id = "IC_1", databaseId = 1) {
  return claimCommentOf(
    id,
    databaseId,
    sealClaimComment(`🤖 claim\n\n<!-- claim-hold:v1 ${JSON.stringify(marker)} -->`, testSeal),
  );
}

/** The label-id lookup a fresh App makes before its first write to a repository. */
export function mockGraphqlResolveLabels(log: GitHubRequestLog, repo: string) {
  const [owner, name] = repo.split("/");
  let asked: Record<string, string> = {};
  return api(log)
    .post("/graphql", (body: { query?: string; variables?: Record<string, string> }) => {
      const match =
        body.query?.includes("query ResolveLabels") === true &&
        body.variables?.owner === owner &&
        body.variables?.name === name;
      if (match) asked = body.variables ?? {};
      return match;
    })
    .reply(200, () => {
      const repository: Record<string, unknown> = {};
      for (let slot = 0; slot < 4; slot++) {
        const label = asked[`label${slot}`]!;
        repository[`label${slot}`] = { id: labelIds[label] ?? `LA_${label}`, name: label };
      }
      return { data: { repository } };
    });
}

/** A page of open issues (inventory, reconcile). */
export function mockGraphqlOpenIssues(
  log: GitHubRequestLog,
  repo: string,
  repoId: number,
  issues: IssueState[],
) {
  const [owner, name] = repo.split("/");
  return api(log)
    .post("/graphql", (body: { query?: string; variables?: Record<string, unknown> }) => {
      return (
        body.query?.includes("query OpenIssues") === true &&
        body.variables?.owner === owner &&
        body.variables?.name === name
      );
    })
    .reply(200, {
      data: {
        repository: {
          databaseId: repoId,
          nameWithOwner: repo,
          issues: {
            pageInfo: { hasNextPage: false, endCursor: null },
            nodes: issues.map((issue) => ({
              id: issueNodeId(issue),
              number: issue.number,
              title: issue.title ?? "Fix the parser",
              state: issue.state ?? "OPEN",
              updatedAt: "2026-11-29T09:00:00Z",
              closedByPullRequestsReferences: { nodes: issue.pullRequests ?? [] },
              assignees: { nodes: issue.assignees ?? [] },
              labels: { nodes: (issue.labels ?? []).map((l) => ({ id: labelIds[l] ?? `LA_${l}`, name: l })) },
              comments: { nodes: issue.comments ?? [] },
            })),
          },
        },
      },
    });
}

export function mockListInstallationRepositories(log: GitHubRequestLog, repos: string[]) {
  return api(log)
    .get("/installation/repositories")
    .query(true)
    .reply(200, { total_count: repos.length, repositories: repos.map((full_name) => ({ full_name })) });
}

export function mockListAppInstallations(log: GitHubRequestLog, ids: number[]) {
  return api(log)
    .matchHeader("authorization", /^bearer /i)
    .get("/app/installations")
    .query(true)
    .reply(
      200,
      ids.map((id) => ({ id })),
    );
}

export function mockGetRepository(log: GitHubRequestLog, repoId: number, fullName: string) {
  return api(log).get(`/repositories/${repoId}`).reply(200, { id: repoId, full_name: fullName });
}
