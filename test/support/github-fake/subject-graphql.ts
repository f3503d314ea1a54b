// The App's GraphQL calls on one subject faked with nock: SubjectStatus, ApplyTransition, ResolveLabels, OpenIssues.
import type nock from "nock";
import { type ClaimMarker, sealClaimComment } from "../../../src/domain/claim-marker.js";
import {
  RESOLVE_LABELS_QUERY,
  resolveLabelsVariables,
  SUBJECT_STATUS_QUERY,
  type SubjectStatusVariables,
  type TransitionMutation,
} from "../../../src/providers/github/graphql/index.js";
import { testSeal } from "../app-harness.js";
import { exactBody, type GitHubRequestLog, githubScope, installationToken, isLog } from "./github-scope.js";

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

type GraphqlReply = { data?: unknown; errors?: unknown[] };
type GraphqlBody = { query?: string; variables?: Record<string, unknown> };

export const labelIds: Record<string, string> = { "agent:claimed": "LA_claimed", "agent:stale": "LA_stale" };

export function issueNodeId(issue: IssueState) {
  return `I_${issue.repoId}_${issue.number}`;
}

function issueFields(issue: IssueState) {
  return {
    title: issue.title ?? "Fix the parser",
    state: issue.state ?? "OPEN",
    updatedAt: "2026-11-29T09:00:00Z",
    closedByPullRequestsReferences: { nodes: issue.pullRequests ?? [] },
    assignees: { nodes: issue.assignees ?? [] },
    labels: { nodes: (issue.labels ?? []).map((l) => ({ id: labelIds[l] ?? `LA_${l}`, name: l })) },
    comments: { nodes: issue.comments ?? [] },
  };
}

function subjectStatusOf(issue: IssueState) {
  const node = issue.pullRequest
    ? { __typename: "PullRequest" }
    : { __typename: "Issue", id: issueNodeId(issue), ...issueFields(issue) };
  return {
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
}

/**
 * The one GraphQL read of a subject (`SubjectStatus`). App-level: answered from `issue`, with
 * `beforeReply` run while GitHub "thinks" (races in tests). Otherwise: exact `variables`, `reply` as given.
 */
export function nockSubjectStatus(
  log: GitHubRequestLog,
  issue: IssueState,
  beforeReply?: () => Promise<unknown>,
): nock.Scope;
export function nockSubjectStatus(variables: SubjectStatusVariables, reply: GraphqlReply): nock.Scope;
export function nockSubjectStatus(
  first: GitHubRequestLog | SubjectStatusVariables,
  second: IssueState | GraphqlReply,
  beforeReply?: () => Promise<unknown>,
): nock.Scope {
  if (!isLog(first))
    return githubScope({ token: installationToken })
      .post("/graphql", exactBody({ query: SUBJECT_STATUS_QUERY, variables: first }))
      .reply(200, second as GraphqlReply);
  const issue = second as IssueState;
  const [owner, name] = issue.repo.split("/");
  return githubScope({ log: first })
    .post(
      "/graphql",
      (body: GraphqlBody) =>
        body.query === SUBJECT_STATUS_QUERY &&
        body.variables?.owner === owner &&
        body.variables?.name === name &&
        body.variables?.number === issue.number,
    )
    .reply(async () => {
      await beforeReply?.();
      return [200, subjectStatusOf(issue)];
    });
}

/** What an App-level `nockApplyTransition` saw: the mutation's document and variables, for exact assertions. */
export interface CapturedTransition {
  document?: string;
  variables?: Record<string, unknown>;
}

/**
 * The one batched mutation of a transition (`ApplyTransition`). App-level: any transition, captured,
 * answered with `claimComment` (or `fail` as the status). Otherwise: exactly `mutation`, `reply` as given.
 */
export function nockApplyTransition(
  log: GitHubRequestLog,
  reply?: { claimComment?: { id: string; databaseId: number }; fail?: number },
): CapturedTransition;
export function nockApplyTransition(
  mutation: TransitionMutation,
  reply: GraphqlReply | { status: number; body: unknown },
): nock.Scope;
export function nockApplyTransition(
  first: GitHubRequestLog | TransitionMutation,
  reply: Record<string, unknown> = {},
): CapturedTransition | nock.Scope {
  if (!isLog(first)) {
    const scope = githubScope({ token: installationToken }).post(
      "/graphql",
      exactBody({ query: first.document, variables: first.variables }),
    );
    return "status" in reply
      ? scope.reply(reply.status as number, reply.body as nock.Body)
      : scope.reply(200, reply);
  }
  const { claimComment, fail } = reply as {
    claimComment?: { id: string; databaseId: number };
    fail?: number;
  };
  const captured: CapturedTransition = {};
  const scope = githubScope({ log: first }).post("/graphql", (body: GraphqlBody) => {
    if (!body.query?.startsWith("mutation ApplyTransition")) return false;
    captured.document = body.query;
    captured.variables = body.variables ?? {};
    return true;
  });
  if (fail) scope.reply(fail, { message: "Server Error" });
  else
    scope.reply(200, { data: claimComment ? { claimComment: { commentEdge: { node: claimComment } } } : {} });
  return captured;
}

/**
 * The label-id lookup a fresh App makes before its first write to a repository (`ResolveLabels`).
 * App-level: every asked label exists. Otherwise: exactly these `names`, `found` maps each to its label or null.
 */
export function nockResolveLabels(log: GitHubRequestLog, repo: string): nock.Scope;
export function nockResolveLabels(
  repo: string,
  names: string[],
  found: Record<string, { id: string; name: string } | null>,
): nock.Scope;
export function nockResolveLabels(
  first: GitHubRequestLog | string,
  second: string | string[],
  found?: Record<string, { id: string; name: string } | null>,
): nock.Scope {
  if (!isLog(first)) {
    const [owner, name] = first.split("/") as [string, string];
    const variables = resolveLabelsVariables(owner, name, second as string[]);
    const repository: Record<string, unknown> = {};
    for (let slot = 0; slot < 4; slot++)
      repository[`label${slot}`] = found?.[variables[`label${slot}`]!] ?? null;
    return githubScope({ token: installationToken })
      .post("/graphql", exactBody({ query: RESOLVE_LABELS_QUERY, variables }))
      .reply(200, { data: { repository } });
  }
  const [owner, name] = (second as string).split("/");
  let asked: Record<string, unknown> = {};
  return githubScope({ log: first })
    .post("/graphql", (body: GraphqlBody) => {
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
        const label = asked[`label${slot}`] as string;
        repository[`label${slot}`] = { id: labelIds[label] ?? `LA_${label}`, name: label };
      }
      return { data: { repository } };
    });
}

/** A page of open issues (`OpenIssues`: inventory, reconcile). */
export function nockOpenIssues(log: GitHubRequestLog, repo: string, repoId: number, issues: IssueState[]) {
  const [owner, name] = repo.split("/");
  return githubScope({ log })
    .post(
      "/graphql",
      (body: GraphqlBody) =>
        body.query?.includes("query OpenIssues") === true &&
        body.variables?.owner === owner &&
        body.variables?.name === name,
    )
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
              ...issueFields(issue),
            })),
          },
        },
      },
    });
}

export function claimCommentOf(id: string, databaseId: number, body: string) {
  return { id, databaseId, body, viewerDidAuthor: true };
}

/** A claim comment of the App carrying `marker`, signed like the test App signs it. */
export function markerComment(marker: ClaimMarker, id = "IC_1", databaseId = 1) {
  return claimCommentOf(
    id,
    databaseId,
    sealClaimComment(`🤖 claim\n\n<!-- claim-hold:v1 ${JSON.stringify(marker)} -->`, testSeal),
  );
}
