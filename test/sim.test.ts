// The GitHub simulator answers the App's own documents and REST calls like GitHub, signs its webhooks, injects faults, and runs the real App.
import { generateKeyPairSync } from "node:crypto";
import { Webhooks } from "@octokit/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  buildTransitionMutation,
  OPEN_ISSUES_QUERY,
  type OpenIssuesResponse,
  type OpenIssuesVariables,
  PULL_REQUEST_CHECK_QUERY,
  type PullRequestCheckResponse,
  type PullRequestCheckVariables,
  SUBJECT_STATUS_QUERY,
  type SubjectStatusResponse,
  type SubjectStatusVariables,
  type TransitionResponse,
} from "../src/providers/github/graphql/index.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { type GitHubSimulator, startGitHubSimulator } from "../tools/github-sim/index.js";
import { startApp, testAppPrivateKey, testWebhookSecret } from "./support/app-harness.js";
import { createInstallationToken, simGraphql, startWebhookReceiver } from "./support/sim-helpers.js";

const appKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;
const repo = "octo/widgets";
const agent = { login: "fleet-bot", id: 501, tokens: ["ghp_fleetbot000000000000000000000000001"] };
const agentToken = agent.tokens[0]!;
const installationId = 42;
const statusVariables: SubjectStatusVariables = {
  owner: "octo",
  name: "widgets",
  number: 12,
  claimedLabel: "agent:claimed",
  staleLabel: "agent:stale",
  branch: "",
  qualifiedBranch: "",
  withBranch: false,
};

let sim: GitHubSimulator;

/** octo/widgets with #12 (a human's comment on it) and #13 a pull request, installed as 42. */
function seedWidgets() {
  sim.seed({
    users: [agent, { login: "alice", id: 601, tokens: ["ghp_alice"] }],
    repos: [
      {
        fullName: repo,
        id: 1296269,
        labels: ["agent:claimed", "bug"],
        collaborators: { "fleet-bot": "write", alice: "maintain" },
        issues: [
          {
            number: 12,
            title: "Fix the parser",
            author: "alice",
            labels: ["bug"],
            comments: [{ author: "alice", body: "please fix" }],
          },
        ],
      },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repo] }],
  });
}

describe("the simulator's GraphQL", () => {
  beforeEach(async () => {
    sim = await startGitHubSimulator({ appKey });
    seedWidgets();
  });
  afterEach(() => sim.close());

  it("answers SubjectStatus and applies an ApplyTransition mutation, as the App's own documents", async () => {
    const token = await createInstallationToken(sim, appKey, installationId);
    const github = simGraphql(sim, token);
    const before = await github<SubjectStatusResponse>(SUBJECT_STATUS_QUERY, { ...statusVariables });
    const issueNodeId = sim.issue(repo, 12).nodeId;
    const claimed = sim.state.findLabel(sim.state.requireRepo(repo), "agent:claimed")!;
    expect(before.repository).toEqual({
      databaseId: 1296269,
      nameWithOwner: repo,
      claimedLabel: { id: claimed.nodeId, name: "agent:claimed" },
      staleLabel: null,
      issueOrPullRequest: {
        __typename: "Issue",
        id: issueNodeId,
        number: 12,
        title: "Fix the parser",
        state: "OPEN",
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        closedByPullRequestsReferences: { nodes: [] },
        assignees: { nodes: [] },
        labels: { nodes: [{ id: expect.stringMatching(/^LA_/), name: "bug" }] },
        comments: {
          // The whole thread fits in the page read: recovery has nothing earlier to page back to.
          pageInfo: { hasPreviousPage: false, startCursor: expect.any(String) },
          nodes: [
            {
              id: expect.stringMatching(/^IC_/),
              databaseId: expect.any(Number),
              body: "please fix",
              viewerDidAuthor: false,
            },
          ],
        },
      },
    });

    const mutation = buildTransitionMutation({
      subjectNodeId: issueNodeId,
      assigneeIds: [sim.state.userByLogin("fleet-bot")!.nodeId],
      unassigneeIds: [],
      addLabelIds: [claimed.nodeId],
      removeLabelIds: [],
      editComments: [],
      claimComment: "🤖 claimed <!-- claim-hold:v1 {} -->",
      addComments: [],
    })!;
    const mark = sim.requests.mark();
    const written = await github<TransitionResponse>(mutation.document, mutation.variables);
    const node = written.claimComment!.commentEdge!.node!;
    const snapshot = sim.issue(repo, 12);
    expect(snapshot.assignees).toEqual(["fleet-bot"]);
    expect(snapshot.labels).toEqual(["bug", "agent:claimed"]);
    expect(snapshot.comments.at(-1)).toMatchObject({
      id: node.databaseId,
      nodeId: node.id,
      author: "claim-hold[bot]",
      body: "🤖 claimed <!-- claim-hold:v1 {} -->",
    });
    expect(sim.requests.since(mark)).toEqual([
      expect.objectContaining({
        route: "POST /graphql",
        operationName: "ApplyTransition",
        mutationFields: ["addAssigneesToAssignable", "addLabelsToLabelable", "addComment"],
        caller: "installation",
        status: 200,
      }),
    ]);

    const after = await github<SubjectStatusResponse>(SUBJECT_STATUS_QUERY, { ...statusVariables });
    const issue = after.repository!.issueOrPullRequest as {
      comments: { nodes: { viewerDidAuthor: boolean }[] };
    };
    expect(issue.comments.nodes.map((c) => c.viewerDidAuthor)).toEqual([false, true]);
  });

  it("rejects what GitHub rejects, with GitHub-shaped errors", async () => {
    const token = await createInstallationToken(sim, appKey, installationId);
    const post = async (query: string, variables: Record<string, unknown> = {}) => {
      const response = await fetch(`${sim.url}/api/graphql`, {
        method: "POST",
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await post('query { repository(owner: "octo", name: "widgets") { nope } }')).toEqual({
      status: 200,
      body: {
        errors: [
          {
            message: "Field 'nope' doesn't exist on type 'Repository'",
            locations: [{ line: 1, column: 54 }],
            extensions: { code: "undefinedField", typeName: "Repository", fieldName: "nope" },
          },
        ],
      },
    });
    const unpaged = await post(
      'query { repository(owner: "octo", name: "widgets") { labels { nodes { name } } } }',
    );
    expect(unpaged.body.errors).toEqual([expect.objectContaining({ type: "MISSING_PAGINATION_BOUNDARIES" })]);
    const tooMany = await post(
      'query { repository(owner: "octo", name: "widgets") { labels(first: 101) { totalCount } } }',
    );
    expect(tooMany.body.errors).toEqual([
      expect.objectContaining({
        type: "EXCESSIVE_PAGINATION",
        message:
          "Requesting 101 records on the `labels` connection exceeds the `first` limit of 100 records.",
      }),
    ]);
    const missing = await post(SUBJECT_STATUS_QUERY, { ...statusVariables, name: "nowhere" });
    expect(missing.body).toEqual({
      data: { repository: null },
      errors: [
        {
          type: "NOT_FOUND",
          path: ["repository"],
          locations: [expect.objectContaining({ line: expect.any(Number) })],
          message: "Could not resolve to a Repository with the name 'octo/nowhere'.",
        },
      ],
    });
    const noNumber = await post(SUBJECT_STATUS_QUERY, { ...statusVariables, number: 99 });
    expect(noNumber.body.errors).toEqual([
      expect.objectContaining({
        type: "NOT_FOUND",
        path: ["repository", "issueOrPullRequest"],
        message: "Could not resolve to an issue or pull request with the number of 99.",
      }),
    ]);
    const anonymous = await fetch(`${sim.url}/api/graphql`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
  });

  it("reads a claim branch's open PRs and last commit, and the closing PRs of the issue", async () => {
    const branch = "agent/sessA/12-fix-the-parser";
    const pull = sim.openPull({ repo, author: "fleet-bot", head: branch, title: "Fix", body: "Fixes #12" });
    const { sha } = sim.push({ repo, branch, login: "fleet-bot", message: "parser" });
    const github = simGraphql(sim, await createInstallationToken(sim, appKey, installationId));
    const data = await github<SubjectStatusResponse>(SUBJECT_STATUS_QUERY, {
      ...statusVariables,
      branch,
      qualifiedBranch: `refs/heads/${branch}`,
      withBranch: true,
    });
    const pullNode = {
      number: pull.number,
      headRefName: branch,
      isCrossRepository: false,
      authorAssociation: "COLLABORATOR",
      author: { __typename: "User", login: "fleet-bot" },
    };
    expect(data.repository?.branchPullRequests).toEqual({ nodes: [pullNode] });
    expect(data.repository?.branchRef).toEqual({ target: { committedDate: expect.any(String) } });
    const issue = data.repository?.issueOrPullRequest as { closedByPullRequestsReferences: unknown };
    expect(issue.closedByPullRequestsReferences).toEqual({ nodes: [pullNode] });
    expect(sim.state.requireRepo(repo).branches.get(branch)).toBe(sha);
    const missing = await github<SubjectStatusResponse>(SUBJECT_STATUS_QUERY, {
      ...statusVariables,
      branch: "nope",
      qualifiedBranch: "refs/heads/nope",
      withBranch: true,
    });
    expect(missing.repository?.branchRef).toBeNull();
  });

  it("answers PullRequestCheck: closing references as GitHub links them (keywords, URLs, manual links) and the App's latest run on the head", async () => {
    sim.addIssue(repo, { title: "second" }); // #13
    sim.addIssue(repo, { title: "third" }); // #14
    const pull = sim.openPull({
      repo,
      author: "fleet-bot",
      head: "feature/parser",
      title: "Parser",
      body: "Fixes #12, and RESOLVES: https://github.com/octo/widgets/issues/13\n\n`closes #14` fixes #15",
    });
    const sha = sim.state.requireRepo(repo).branches.get("feature/parser")!;
    const token = await createInstallationToken(sim, appKey, installationId);
    const github = simGraphql(sim, token);
    const variables: PullRequestCheckVariables = {
      owner: "octo",
      name: "widgets",
      number: pull.number,
      headSha: sha,
      checkName: "claim-hold",
      appId: sim.state.app.id,
    };
    const read = () => github<PullRequestCheckResponse>(PULL_REQUEST_CHECK_QUERY, { ...variables });
    const closing = async () =>
      (await read()).repository?.pullRequest?.closingIssuesReferences?.nodes?.map((n) => n!.number);
    // #14 only in a code span, #15 is the pull request itself: neither is a closing reference.
    expect(await closing()).toEqual([12, 13]);
    sim.linkIssue(repo, pull.number, 14);
    expect(await closing()).toEqual([12, 13, 14]);
    sim.linkIssue(repo, pull.number, 14, false);
    expect(await closing()).toEqual([12, 13]);
    expect((await read()).repository?.object).toEqual({ __typename: "Commit", checkSuites: { nodes: [] } });

    for (const conclusion of ["failure", "success"]) {
      const created = await fetch(`${sim.baseUrl}/repos/${repo}/check-runs`, {
        method: "POST",
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: "claim-hold",
          head_sha: sha,
          status: "completed",
          conclusion,
          output: { title: conclusion, summary: "s", text: "t" },
        }),
      });
      expect(created.status).toBe(201);
    }
    const latest = [...sim.state.checkRuns.values()].at(-1)!;
    expect((await read()).repository?.object).toEqual({
      __typename: "Commit",
      checkSuites: {
        nodes: [
          {
            app: { databaseId: sim.state.app.id },
            checkRuns: {
              nodes: [
                {
                  databaseId: latest.id,
                  name: "claim-hold",
                  conclusion: "SUCCESS",
                  title: "success",
                  summary: "s",
                  text: "t",
                },
              ],
            },
          },
        ],
      },
    });
    const otherApp = await github<PullRequestCheckResponse>(PULL_REQUEST_CHECK_QUERY, {
      ...variables,
      appId: sim.state.app.id + 1,
    });
    expect(otherApp.repository?.object?.checkSuites?.nodes).toEqual([]);
    const unknown = await github<PullRequestCheckResponse>(PULL_REQUEST_CHECK_QUERY, {
      ...variables,
      headSha: "f".repeat(40),
    });
    expect(unknown.repository?.object).toBeNull();
  });

  it("pages a repository's open issues with the managed labels for the janitor's reconcile (OpenIssues)", async () => {
    for (let n = 0; n < 3; n++) sim.addIssue(repo, { title: `more ${n}`, labels: ["agent:claimed"] });
    sim.closeIssue({ repo, issue: 14, login: "alice" });
    const github = simGraphql(sim, await createInstallationToken(sim, appKey, installationId));
    const variables: OpenIssuesVariables = {
      owner: "octo",
      name: "widgets",
      first: 1,
      after: null,
      labels: ["agent:claimed"],
    };
    const numbers: number[] = [];
    for (let page = 0; page < 5; page++) {
      const data = await github<OpenIssuesResponse>(OPEN_ISSUES_QUERY, { ...variables });
      numbers.push(...(data.repository?.issues.nodes ?? []).map((i) => i!.number));
      if (!data.repository?.issues.pageInfo.hasNextPage) break;
      variables.after = data.repository.issues.pageInfo.endCursor;
    }
    // UPDATED_AT DESC: the issues were created in one second, so the number breaks the tie (newest first).
    expect(numbers).toEqual([15, 13]);
    expect(sim.requests.count({ operation: "OpenIssues" })).toBe(2);
  });
});

describe("the simulator's REST, faults and request log", () => {
  beforeEach(async () => {
    sim = await startGitHubSimulator({ appKey });
    seedWidgets();
  });
  afterEach(() => sim.close());

  it("resolves tokens like GitHub: users by GET /user, 401 for unknown tokens, JWTs only when signed with the App's key", async () => {
    const user = await fetch(`${sim.baseUrl}/user`, { headers: { authorization: `token ${agentToken}` } });
    expect(user.status).toBe(200);
    expect(await user.json()).toMatchObject({
      login: "fleet-bot",
      id: 501,
      node_id: expect.stringMatching(/^U_/),
      type: "User",
    });
    const unknown = await fetch(`${sim.baseUrl}/user`, { headers: { authorization: "token ghp_nobody" } });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ message: "Bad credentials" });
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs1",
      format: "pem",
    }) as string;
    await expect(createInstallationToken(sim, otherKey, installationId)).rejects.toThrow(
      "access_tokens answered 401",
    );
  });

  it("fails the next N matching calls with the injected status, then answers again, and counts every call", async () => {
    const token = await createInstallationToken(sim, appKey, installationId);
    const github = simGraphql(sim, token);
    sim.fail({ operation: "SubjectStatus", status: 502, times: 2 });
    sim.fail({ path: "GET /repos/{owner}/{repo}/labels/{name}", status: 500 });
    const mark = sim.requests.mark();
    await expect(github(SUBJECT_STATUS_QUERY, { ...statusVariables })).rejects.toMatchObject({ status: 502 });
    await expect(github(SUBJECT_STATUS_QUERY, { ...statusVariables })).rejects.toMatchObject({ status: 502 });
    await expect(github(SUBJECT_STATUS_QUERY, { ...statusVariables })).resolves.toMatchObject({
      repository: { databaseId: 1296269 },
    });
    const label = () =>
      fetch(`${sim.baseUrl}/repos/${repo}/labels/bug`, { headers: { authorization: `token ${token}` } }).then(
        (r) => r.status,
      );
    expect([await label(), await label()]).toEqual([500, 200]);
    expect(sim.requests.counts(mark)).toEqual({
      "graphql:SubjectStatus": 3,
      "GET /repos/{owner}/{repo}/labels/{name}": 2,
    });
    expect(sim.requests.count({ operation: "SubjectStatus" }, mark)).toBe(3);
    expect(
      sim.requests
        .since(mark)
        .filter((r) => r.fault)
        .map((r) => r.status),
    ).toEqual([502, 502, 500]);
  });

  it("answers after an injected delay", async () => {
    sim.delay({ path: "/user" }, 150);
    const started = Date.now();
    const response = await fetch(`${sim.baseUrl}/user`, {
      headers: { authorization: `token ${agentToken}` },
    });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("keeps a request's arrival order: one sent before a mark and answered after it did not arrive since", async () => {
    sim.delay({ path: "/user" }, 150);
    const get = () => fetch(`${sim.baseUrl}/user`, { headers: { authorization: `token ${agentToken}` } });
    const late = get();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const mark = sim.requests.mark();
    const arrivals = sim.requests.arrivalMark();
    expect((await get()).status).toBe(200);
    expect((await late).status).toBe(200);
    // Both were answered after the mark; only the second reached the simulator after it.
    expect(sim.requests.since(mark)).toHaveLength(2);
    expect(sim.requests.arrivedSince(arrivals)).toHaveLength(1);
    expect(sim.requests.arrivedSince(arrivals)[0]!.seq).toBe(mark + 1);
  });

  it("serves the config file raw or as base64 JSON, and check runs, reactions and pull requests in GitHub's shapes", async () => {
    sim.setFile(repo, ".github/claim-hold.yml", "labels:\n  claimed: taken\n");
    const token = await createInstallationToken(sim, appKey, installationId);
    const get = (path: string, accept = "application/vnd.github+json") =>
      fetch(`${sim.baseUrl}${path}`, { headers: { authorization: `token ${token}`, accept } });
    const raw = await get(
      `/repos/${repo}/contents/.github/claim-hold.yml`,
      "application/vnd.github.raw+json",
    );
    expect(await raw.text()).toBe("labels:\n  claimed: taken\n");
    const json = (await (await get(`/repos/${repo}/contents/.github/claim-hold.yml`)).json()) as {
      content: string;
    };
    expect(Buffer.from(json.content, "base64").toString()).toBe("labels:\n  claimed: taken\n");
    expect((await get(`/repos/octo/.github/contents/.github/claim-hold.yml`)).status).toBe(404);

    const pull = sim.openPull({
      repo,
      author: "fleet-bot",
      head: "agent/s1/12-fix",
      title: "Fix",
      body: "Closes #12",
    });
    const pulls = (await (await get(`/repos/${repo}/pulls?head=octo:agent/s1/12-fix`)).json()) as {
      number: number;
      head: { sha: string };
    }[];
    expect(pulls.map((p) => p.number)).toEqual([pull.number]);
    const sha = pulls[0]!.head.sha;
    const created = await fetch(`${sim.baseUrl}/repos/${repo}/check-runs`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "claim-hold",
        head_sha: sha,
        status: "completed",
        conclusion: "success",
        output: { title: "ok", summary: "fine" },
      }),
    });
    expect(created.status).toBe(201);
    const runs = (await (
      await get(`/repos/${repo}/commits/${sha}/check-runs?check_name=claim-hold`)
    ).json()) as {
      total_count: number;
      check_runs: { conclusion: string; pull_requests: { number: number }[] }[];
    };
    expect(runs.total_count).toBe(1);
    expect(runs.check_runs[0]).toMatchObject({
      conclusion: "success",
      pull_requests: [{ number: pull.number }],
    });

    const comment = sim.comment({ repo, issue: 12, login: "alice", body: "/reclaim" });
    const react = () =>
      fetch(`${sim.baseUrl}/repos/${repo}/issues/comments/${comment.id}/reactions`, {
        method: "POST",
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ content: "eyes" }),
      }).then((r) => r.status);
    expect([await react(), await react()]).toEqual([201, 200]);
    expect(sim.issue(repo, 12).comments.at(-1)!.reactions).toEqual(["eyes"]);
  });
});

describe("the simulator's /_sim control routes", () => {
  beforeEach(async () => {
    sim = await startGitHubSimulator({ appKey });
  });
  afterEach(() => sim.close());

  it("seeds, acts as a person, injects a fault and reports requests over HTTP", async () => {
    const control = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${sim.url}/_sim/${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const seeded = await control("POST", "seed", {
      users: [{ login: "alice", tokens: ["ghp_alice"] }],
      repos: [{ fullName: repo, issues: [{ title: "One" }] }],
      installations: [{ repos: [repo] }],
    });
    expect(seeded.body.repos[0].issues[0]).toMatchObject({ number: 1, title: "One", state: "open" });
    expect(
      (await control("POST", "comments", { repo, issue: 1, login: "alice", body: "/reclaim" })).status,
    ).toBe(200);
    expect((await control("POST", "issues/close", { repo, issue: 1, login: "alice" })).body.state).toBe(
      "closed",
    );
    expect((await control("POST", "seed", { repos: [{ fullName: "not a repo" }] })).status).toBe(400);
    const pull = await control("POST", "pulls", { repo, author: "alice", head: "feature/x", body: "" });
    expect((await control("POST", "pulls/link", { repo, number: pull.body.number, issue: 1 })).status).toBe(
      200,
    );
    expect(sim.state.findIssue(sim.state.requireRepo(repo), pull.body.number)?.pull?.linkedIssueIds).toEqual([
      sim.state.findIssue(sim.state.requireRepo(repo), 1)!.id,
    ]);
    expect((await control("POST", "pulls/link", { repo, number: 1, issue: pull.body.number })).status).toBe(
      400,
    );
    await control("POST", "faults", { path: "/user", status: 503 });
    expect(
      (await fetch(`${sim.baseUrl}/user`, { headers: { authorization: "token ghp_alice" } })).status,
    ).toBe(503);
    const log = await control("GET", "requests");
    expect(log.body.counts).toEqual({ "GET /user": 1 });
    // A manual link sends no webhook (the check picks it up at its next evaluation).
    expect(sim.deliveries().map((d) => `${d.event}.${d.action}`)).toEqual([
      "installation.created",
      "issue_comment.created",
      "issues.closed",
      "pull_request.opened",
    ]);
  });
});

describe("the simulator's webhooks", () => {
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    sim = await startGitHubSimulator({ appKey, webhookUrl: receiver.url, webhookSecret: "s3cret" });
  });
  afterEach(async () => {
    await sim.close();
    await receiver.close();
  });

  it("signs every delivery with X-Hub-Signature-256 and sends them in order", async () => {
    seedWidgets();
    sim.comment({ repo, issue: 12, login: "alice", body: "/reclaim" });
    await sim.flush();
    const verifier = new Webhooks({ secret: "s3cret" });
    expect(
      receiver.received.map((r) => `${r.headers["x-github-event"]}.${JSON.parse(r.body).action}`),
    ).toEqual(["installation.created", "issue_comment.created"]);
    for (const delivery of receiver.received) {
      expect(await verifier.verify(delivery.body, String(delivery.headers["x-hub-signature-256"]))).toBe(
        true,
      );
      expect(delivery.headers["x-github-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
    }
    const payload = JSON.parse(receiver.received[1]!.body);
    expect(payload).toMatchObject({
      action: "created",
      installation: { id: installationId },
      repository: { id: 1296269, name: "widgets", full_name: repo, owner: { login: "octo" } },
      sender: { login: "alice", id: 601, type: "User" },
      issue: { number: 12, title: "Fix the parser", labels: [{ name: "bug" }] },
      comment: { body: "/reclaim", user: { login: "alice" } },
    });
    expect(
      await new Webhooks({ secret: "wrong" }).verify(
        receiver.received[1]!.body,
        String(receiver.received[1]!.headers["x-hub-signature-256"]),
      ),
    ).toBe(false);
  });

  it("sends push and pull_request.synchronize when a branch moves, and can hold, drop, reorder and redeliver", async () => {
    seedWidgets();
    await sim.flush();
    const pull = sim.openPull({ repo, author: "fleet-bot", head: "agent/s1/12-fix", title: "Fix" });
    await sim.flush();
    receiver.received.length = 0;

    sim.webhooks.hold();
    const { sha } = sim.push({ repo, branch: "agent/s1/12-fix", login: "fleet-bot", message: "more" });
    sim.comment({ repo, issue: 12, login: "alice", body: "hello" });
    await sim.flush();
    expect(receiver.received).toEqual([]);
    const [push, synchronize, comment] = sim.webhooks.pending();
    expect([push, synchronize, comment].map((d) => `${d!.event}.${d!.action ?? ""}`)).toEqual([
      "push.",
      "pull_request.synchronize",
      "issue_comment.created",
    ]);
    expect(synchronize!.payload).toMatchObject({
      number: pull.number,
      after: sha,
      pull_request: { head: { sha } },
    });
    sim.webhooks.drop({ event: "issue_comment" });
    sim.webhooks.reorder([synchronize!.seq]);
    sim.webhooks.release();
    await sim.flush();
    expect(receiver.received.map((r) => r.headers["x-github-event"])).toEqual(["pull_request", "push"]);

    sim.webhooks.redeliver(push!.seq);
    sim.webhooks.dropNext(1, { event: "issue_comment" });
    sim.comment({ repo, issue: 12, login: "alice", body: "dropped" });
    await sim.flush();
    expect(receiver.received.map((r) => r.headers["x-github-event"])).toEqual([
      "pull_request",
      "push",
      "push",
    ]);
    expect(receiver.received[2]!.headers["x-github-delivery"]).toBe(push!.guid);
    expect(sim.deliveries({ event: "issue_comment" }).map((d) => d.status)).toEqual(["dropped", "dropped"]);
  });
});

describe("the real App against the simulator", () => {
  it("claims through the App's HTTP API: assignee, label and claim comment land on the simulated GitHub, and its webhooks reach the App", async () => {
    sim = await startGitHubSimulator({
      appKey: testAppPrivateKey(),
      webhookSecret: testWebhookSecret,
      appId: 1,
    });
    const app = await startApp({
      stores: createMemoryStores(),
      githubBaseUrl: sim.baseUrl,
      now: Date.now(),
    });
    try {
      sim.configureWebhooks({ url: `${app.url}/api/github/webhooks` });
      sim.seed({
        users: [agent],
        repos: [
          {
            fullName: repo,
            id: 1296269,
            collaborators: { "fleet-bot": "write" },
            issues: [{ number: 12, title: "Fix the parser" }],
          },
        ],
        installations: [{ id: installationId, account: "octo", repos: [repo] }],
      });
      // installation.created: the App creates its managed labels.
      await sim.flush();
      expect(sim.labels(repo).sort()).toEqual([
        "agent:claimed",
        "agent:needs-human",
        "agent:over-budget",
        "agent:stale",
      ]);

      const mark = sim.requests.mark();
      const response = await fetch(`${app.url}/api/v1/claims`, {
        method: "POST",
        headers: { authorization: `Bearer ${agentToken}`, "content-type": "application/json" },
        body: JSON.stringify({
          repo,
          issue: 12,
          actor: { runtime: "claude-code", sessionId: "sessA", host: "build-7" },
          taskClass: "author",
        }),
      });
      expect(response.status).toBe(201);
      const { lease } = (await response.json()) as { lease: { generation: number; subject: string } };
      expect(lease).toMatchObject({ generation: 1, subject: "octo/widgets#12" });
      await sim.flush();

      const issue = sim.issue(repo, 12);
      expect(issue.assignees).toEqual(["fleet-bot"]);
      expect(issue.labels).toEqual(["agent:claimed"]);
      expect(issue.comments).toHaveLength(1);
      expect(issue.comments[0]).toMatchObject({ author: "claim-hold[bot]" });
      expect(issue.comments[0]!.body).toMatch(
        /<!-- claim-hold:v1 \{.*"subject":"octo\/widgets#12".*"generation":1.*\} -->/,
      );

      const counts = sim.requests.counts(mark);
      expect(counts["graphql:SubjectStatus"]).toBe(1);
      expect(counts["graphql:ApplyTransition"]).toBe(1);
      expect(counts["GET /user"]).toBe(1);

      const deliveries = sim
        .deliveries()
        .map((d) => `${d.event}.${d.action}:${d.status}:${d.responseStatus}`);
      expect(deliveries).toEqual([
        "installation.created:delivered:200",
        "issues.assigned:delivered:200",
        "issues.labeled:delivered:200",
        "issue_comment.created:delivered:200",
      ]);
      const assigned = sim.deliveries({ event: "issues", action: "assigned" })[0]!;
      expect(assigned.payload).toMatchObject({
        sender: { login: "claim-hold[bot]", type: "Bot" },
        assignee: { login: "fleet-bot" },
        installation: { id: installationId },
      });
    } finally {
      await app.close();
      await sim.close();
    }
  });
});
