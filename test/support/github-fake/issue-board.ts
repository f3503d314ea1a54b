// A stateful fake of one repository's issues on GitHub, with nock at the HTTP layer: reads answer what earlier writes did.
import nock from "nock";
import { SUBJECT_STATUS_QUERY } from "../../../src/providers/github/graphql/index.js";
import { githubApiUrl, installationToken } from "./github-scope.js";

export interface BoardUser {
  login: string;
  id: number;
  node_id: string;
}

export interface BoardComment {
  id: string;
  databaseId: number;
  body: string;
  viewerDidAuthor: boolean;
}

export interface BoardIssue {
  number: number;
  title: string;
  state: "OPEN" | "CLOSED";
  assignees: { login: string; id: string }[];
  labels: string[];
  comments: BoardComment[];
}

const labelIds: Record<string, string> = { "agent:claimed": "LA_claimed", "agent:stale": "LA_stale" };
const labelNames = Object.fromEntries(Object.entries(labelIds).map(([name, id]) => [id, name]));

/**
 * GitHub as the App sees one installed repository: identity lookups, the repository config, the
 * SubjectStatus read and the ApplyTransition mutation, each answered from (or applied to) `issues`.
 * Reply functions get nock 15's `Request` (one parameter: two would mean a callback). Every interceptor persists (the App's caches run on its fake clock and expire between steps);
 * `unused()` names those never called, so a test can prove each one was needed.
 */
export class IssueBoard {
  readonly issues = new Map<number, BoardIssue>();
  /** Operation names of the GraphQL calls, and `METHOD path` of the REST calls, in order. */
  readonly calls: string[] = [];
  readonly #scopes: nock.Scope[] = [];
  readonly #users = new Map<string, BoardUser>();
  #nextComment = 9000;

  constructor(
    readonly repo: string,
    readonly repoId: number,
    readonly installationId: number,
  ) {}

  addIssue(number: number, title: string): BoardIssue {
    const issue: BoardIssue = { number, title, state: "OPEN", assignees: [], labels: [], comments: [] };
    this.issues.set(number, issue);
    return issue;
  }

  issue(number: number): BoardIssue {
    const issue = this.issues.get(number);
    if (!issue) throw new Error(`no issue #${number} on the board`);
    return issue;
  }

  /** A GitHub account whose token the App resolves with `GET /user`, with `write` on the repository. */
  addUser(token: string, user: BoardUser): void {
    this.#users.set(user.login, user);
    this.#scope()
      .matchHeader("authorization", `token ${token}`)
      .get("/user")
      .reply(200, () => {
        this.calls.push("GET /user");
        return user;
      });
    this.#scope()
      .matchHeader("authorization", `token ${installationToken}`)
      .get(`/repos/${this.repo}/collaborators/${user.login}/permission`)
      .reply(200, () => {
        this.calls.push("GET permission");
        return { permission: "write", role_name: "write", user: { login: user.login } };
      });
  }

  /** The installation, its token and `.github/claim-hold.yml` (absent in the org's `.github`). */
  install(configYaml: string): void {
    const owner = this.repo.split("/")[0];
    this.#scope()
      .post(`/app/installations/${this.installationId}/access_tokens`)
      .reply(201, () => {
        this.calls.push("POST access_tokens");
        return { token: installationToken, expires_at: "2099-01-01T00:00:00Z", permissions: {} };
      });
    this.#scope()
      .get(`/repos/${this.repo}/installation`)
      .reply(200, () => {
        this.calls.push("GET installation");
        return { id: this.installationId };
      });
    this.#scope()
      .get(`/repos/${this.repo}/contents/.github/claim-hold.yml`)
      .reply(
        200,
        () => {
          this.calls.push("GET claim-hold.yml");
          return configYaml;
        },
        { "content-type": "application/vnd.github.raw; charset=utf-8" },
      );
    this.#scope()
      .get(`/repos/${owner}/.github/contents/.github/claim-hold.yml`)
      .optionally()
      .reply(404, { message: "Not Found" });
    this.#mockSubjectStatus();
    this.#mockApplyTransition();
  }

  /** Persisted interceptors that no request reached. */
  unused(): string[] {
    return this.#scopes.flatMap((scope) => scope.pendingMocks());
  }

  /** Removes every interceptor of this board. */
  clear(): void {
    for (const scope of this.#scopes) scope.persist(false);
    nock.cleanAll();
  }

  #scope(): nock.Scope {
    const scope = nock(githubApiUrl).persist();
    this.#scopes.push(scope);
    return scope;
  }

  #mockSubjectStatus(): void {
    const [owner, name] = this.repo.split("/");
    this.#scope()
      .post("/graphql", (body: { query?: string; variables?: Record<string, unknown> }) => {
        return (
          body.query === SUBJECT_STATUS_QUERY &&
          body.variables?.owner === owner &&
          body.variables?.name === name
        );
      })
      .reply(200, async (request: Request) => {
        this.calls.push("SubjectStatus");
        const { variables } = (await request.json()) as {
          variables: { number: number; withBranch: boolean };
        };
        const issue = this.issues.get(variables.number);
        return {
          data: {
            repository: {
              databaseId: this.repoId,
              nameWithOwner: this.repo,
              ...(variables.withBranch ? { branchPullRequests: { nodes: [] }, branchRef: null } : {}),
              claimedLabel: { id: labelIds["agent:claimed"], name: "agent:claimed" },
              staleLabel: { id: labelIds["agent:stale"], name: "agent:stale" },
              issueOrPullRequest: issue ? this.#issueNode(issue) : null,
            },
          },
        };
      });
  }

  #issueNode(issue: BoardIssue) {
    return {
      __typename: "Issue",
      id: this.#nodeId(issue),
      number: issue.number,
      title: issue.title,
      state: issue.state,
      updatedAt: "2026-11-29T09:00:00Z",
      closedByPullRequestsReferences: { nodes: [] },
      assignees: { nodes: issue.assignees },
      labels: { nodes: issue.labels.map((l) => ({ id: labelIds[l] ?? `LA_${l}`, name: l })) },
      comments: { nodes: issue.comments },
    };
  }

  #nodeId(issue: BoardIssue): string {
    return `I_${this.repoId}_${issue.number}`;
  }

  #byNodeId(nodeId: string): BoardIssue {
    const issue = [...this.issues.values()].find((i) => this.#nodeId(i) === nodeId);
    if (!issue) throw new Error(`no issue with node id ${nodeId}`);
    return issue;
  }

  /** Applies the transition's fields in document order, as GitHub runs top-level mutation fields. */
  #mockApplyTransition(): void {
    this.#scope()
      .post(
        "/graphql",
        (body: { query?: string }) => body.query?.startsWith("mutation ApplyTransition") === true,
      )
      .reply(200, async (request: Request) => {
        this.calls.push("ApplyTransition");
        const { variables } = (await request.json()) as {
          variables: Record<string, Record<string, unknown>>;
        };
        const data: Record<string, unknown> = {};
        for (const [alias, input] of Object.entries(variables)) {
          if (alias === "unassign") {
            const issue = this.#byNodeId(input.assignableId as string);
            const ids = input.assigneeIds as string[];
            issue.assignees = issue.assignees.filter((a) => !ids.includes(a.id));
          } else if (alias === "assign") {
            const issue = this.#byNodeId(input.assignableId as string);
            for (const id of input.assigneeIds as string[]) {
              const user = [...this.#users.values()].find((u) => u.node_id === id);
              if (user && !issue.assignees.some((a) => a.id === id))
                issue.assignees.push({ login: user.login, id });
            }
          } else if (alias === "removeLabels") {
            const issue = this.#byNodeId(input.labelableId as string);
            const names = (input.labelIds as string[]).map((id) => labelNames[id]);
            issue.labels = issue.labels.filter((l) => !names.includes(l));
          } else if (alias === "addLabels") {
            const issue = this.#byNodeId(input.labelableId as string);
            for (const id of input.labelIds as string[]) {
              const label = labelNames[id] ?? id;
              if (!issue.labels.includes(label)) issue.labels.push(label);
            }
          } else if (alias.startsWith("edit")) {
            const comment = [...this.issues.values()]
              .flatMap((i) => i.comments)
              .find((c) => c.id === input.id);
            if (!comment) throw new Error(`no comment ${String(input.id)} to edit`);
            comment.body = input.body as string;
          } else {
            // claimComment and comment0…3: addComment.
            const issue = this.#byNodeId(input.subjectId as string);
            const databaseId = ++this.#nextComment;
            const comment = {
              id: `IC_${databaseId}`,
              databaseId,
              body: input.body as string,
              viewerDidAuthor: true,
            };
            issue.comments.push(comment);
            if (alias === "claimComment")
              data.claimComment = { commentEdge: { node: { id: comment.id, databaseId } } };
          }
        }
        return { data };
      });
  }
}
