// The GitHub providers against nock: exact requests, exact request counts, caches on an injected clock.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import type { ClaimRecord } from "../src/domain/claim.js";
import { GitHubWriteError, type SubjectRef } from "../src/providers/assignment-provider.js";
import { GitHubAssignmentProvider } from "../src/providers/github/github-assignment-provider.js";
import { ConfigFileError, GitHubIdentityProvider } from "../src/providers/github/github-identity-provider.js";
import { buildTransitionMutation } from "../src/providers/github/graphql/index.js";
import { signedClaimComment, testSeal } from "./support/app-harness.js";
import {
  appJwt,
  installationToken,
  nockApplyTransition,
  nockCreateLabel,
  nockGetCollaboratorPermission,
  nockGetConfigFile,
  nockGetLabel,
  nockGetRepoInstallation,
  nockGetUser,
  nockResolveLabels,
  nockSubjectStatus,
  testOctokit,
} from "./support/github-fake/index.js";

afterEach(() => {
  // Every test proves it used each mock it set up.
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

/** The error a promise rejects with; fails the test when it resolves. */
async function rejectionOf<E>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error("expected the promise to reject");
}

const ref: SubjectRef = { installationId: 7, repo: "octo/widgets", issue: 12 };
const statusVariables = {
  owner: "octo",
  name: "widgets",
  number: 12,
  claimedLabel: "agent:claimed",
  staleLabel: "agent:stale",
  branch: "",
  qualifiedBranch: "",
  withBranch: false,
};

const record: ClaimRecord = {
  installationId: 7,
  repoId: 4242,
  issue: 12,
  repo: "octo/widgets",
  generation: 3,
  state: "active",
  actor: { kind: "agent", login: "octo-bot", runtime: "claude-code", sessionId: "5f0c1234abcd" },
  taskClass: "author",
  branch: "agent/5f0c1234abcd/12-fix-widgets",
  durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
  claimedAt: Date.parse("2025-03-01T10:00:00Z"),
  lastHeartbeatAt: Date.parse("2025-03-01T10:00:00Z"),
  tokenDigest: "a".repeat(64),
  appAssigned: true,
  sync: "done",
};
const validClaimBody = signedClaimComment(record, "active");
const tamperedClaimBody = validClaimBody.replace('"generation":3', '"generation":"three"');

function issueStatusData(
  comments: { id: string; databaseId: number; body: string; viewerDidAuthor: boolean }[],
) {
  return {
    repository: {
      databaseId: 4242,
      nameWithOwner: "Octo/Widgets",
      claimedLabel: { id: "LA_claimed", name: "agent:claimed" },
      staleLabel: { id: "LA_stale", name: "agent:stale" },
      issueOrPullRequest: {
        __typename: "Issue",
        id: "I_12",
        title: "Widgets wobble",
        state: "OPEN",
        updatedAt: "2025-03-01T10:00:00Z",
        closedByPullRequestsReferences: { nodes: [] },
        assignees: { nodes: [{ login: "octo-bot", id: "U_bot" }] },
        labels: { nodes: [{ id: "LA_bug", name: "bug" }] },
        comments: { nodes: comments },
      },
    },
  };
}

function assignmentProvider() {
  const kinds: string[] = [];
  const provider = new GitHubAssignmentProvider({
    octokitFor: async () => testOctokit(),
    onRequest: (kind) => kinds.push(kind),
    seal: testSeal,
  });
  return { provider, kinds };
}

describe("GitHubAssignmentProvider.status", () => {
  it("parses only the App's own claim comments and counts its tampered markers", async () => {
    const { provider, kinds } = assignmentProvider();
    nockSubjectStatus(statusVariables, {
      data: issueStatusData([
        { id: "IC_valid", databaseId: 101, body: validClaimBody, viewerDidAuthor: true },
        { id: "IC_tampered", databaseId: 102, body: tamperedClaimBody, viewerDidAuthor: true },
        { id: "IC_foreign", databaseId: 103, body: validClaimBody, viewerDidAuthor: false },
        { id: "IC_plain", databaseId: 104, body: "LGTM", viewerDidAuthor: true },
      ]),
    });

    const snapshot = await provider.status(ref);

    expect(snapshot).toEqual({
      repoId: 4242,
      repo: "Octo/Widgets",
      issue: 12,
      nodeId: "I_12",
      title: "Widgets wobble",
      state: "open",
      assignees: [{ login: "octo-bot", nodeId: "U_bot" }],
      labels: ["bug"],
      claimComments: [
        {
          nodeId: "IC_valid",
          databaseId: 101,
          marker: {
            // Read under the repository's current name (it may have been renamed since it was written).
            subject: "Octo/Widgets#12",
            generation: 3,
            state: "active",
            actor: record.actor,
            taskClass: "author",
            branch: record.branch,
            claimedAt: "2025-03-01T10:00:00.000Z",
            ttlSeconds: 1800,
            reclaimAfterSeconds: 3600,
            heartbeatSeconds: 300,
            tokenDigest: "a".repeat(64),
            appAssigned: true,
            mac: expect.stringMatching(/^[0-9a-f]{64}$/),
          },
        },
      ],
      rejectedMarkers: 1,
      // The tampered marker comes after the valid claim comment: the latest claim cannot be vouched for.
      rejectedAfterTrusted: 1,
      auditComments: 0,
      failureSummaries: [],
      markerSearch: "complete",
      openPullRequests: [],
      branchCommittedAt: null,
      updatedAt: Date.parse("2025-03-01T10:00:00Z"),
    });
    expect(kinds).toEqual(["subject-status"]);
  });

  it("returns null for a pull request number", async () => {
    const { provider } = assignmentProvider();
    nockSubjectStatus(statusVariables, {
      data: {
        repository: {
          databaseId: 4242,
          nameWithOwner: "octo/widgets",
          claimedLabel: null,
          staleLabel: null,
          issueOrPullRequest: { __typename: "PullRequest" },
        },
      },
    });
    expect(await provider.status(ref)).toBeNull();
    expect(provider.requests).toBe(1);
  });

  it("returns null for a number with no issue (GitHub answers NOT_FOUND)", async () => {
    const { provider } = assignmentProvider();
    nockSubjectStatus(statusVariables, {
      data: {
        repository: {
          databaseId: 4242,
          nameWithOwner: "octo/widgets",
          claimedLabel: null,
          staleLabel: null,
          issueOrPullRequest: null,
        },
      },
      errors: [
        {
          type: "NOT_FOUND",
          path: ["repository", "issueOrPullRequest"],
          message: "Could not resolve to an issue or pull request with the number of 12.",
        },
      ],
    });
    expect(await provider.status(ref)).toBeNull();
  });

  it("rethrows errors other than NOT_FOUND", async () => {
    const { provider } = assignmentProvider();
    nockSubjectStatus(statusVariables, {
      data: null,
      errors: [{ type: "FORBIDDEN", message: "Resource not accessible by integration" }],
    });
    await expect(provider.status(ref)).rejects.toThrow(/Resource not accessible by integration/);
  });

  it("asks for the label names it is configured with, per repository", async () => {
    const provider = new GitHubAssignmentProvider({
      octokitFor: async () => testOctokit(),
      seal: testSeal,
      labels: async (repo) => ({ claimed: `${repo.repo}:held`, stale: "zzz" }),
    });
    nockSubjectStatus(
      { ...statusVariables, claimedLabel: "octo/widgets:held", staleLabel: "zzz" },
      { data: issueStatusData([]) },
    );
    expect(await provider.status(ref)).not.toBeNull();
  });
});

describe("GitHubAssignmentProvider.apply", () => {
  const claimWrite = {
    subjectNodeId: "I_12",
    assign: ["U_agent"],
    addLabels: ["agent:claimed"],
    createClaimComment: validClaimBody,
    editComments: [{ nodeId: "IC_old", body: "↪️ Superseded claim of codex (@octo-bot)" }],
    addComments: ["Superseded codex session 9a1 (generation 2, last seen 41 min ago)."],
  };
  const claimMutation = {
    document: [
      "mutation ApplyTransition($assign: AddAssigneesToAssignableInput!, $addLabels: AddLabelsToLabelableInput!, $edit0: UpdateIssueCommentInput!, $claimComment: AddCommentInput!, $comment0: AddCommentInput!) {",
      "  assign: addAssigneesToAssignable(input: $assign) { clientMutationId }",
      "  addLabels: addLabelsToLabelable(input: $addLabels) { clientMutationId }",
      "  edit0: updateIssueComment(input: $edit0) { clientMutationId }",
      "  claimComment: addComment(input: $claimComment) { commentEdge { node { id databaseId } } }",
      "  comment0: addComment(input: $comment0) { commentEdge { node { id } } }",
      "}",
      "",
    ].join("\n"),
    variables: {
      assign: { assignableId: "I_12", assigneeIds: ["U_agent"] },
      addLabels: { labelableId: "I_12", labelIds: ["LA_claimed"] },
      edit0: { id: "IC_old", body: "↪️ Superseded claim of codex (@octo-bot)" },
      claimComment: { subjectId: "I_12", body: validClaimBody },
      comment0: {
        subjectId: "I_12",
        body: "Superseded codex session 9a1 (generation 2, last seen 41 min ago).",
      },
    },
  };
  const claimReply = {
    data: {
      assign: { clientMutationId: null },
      addLabels: { clientMutationId: null },
      edit0: { clientMutationId: null },
      claimComment: { commentEdge: { node: { id: "IC_new", databaseId: 555 } } },
      comment0: { commentEdge: { node: { id: "IC_note" } } },
    },
  };

  it("sends a whole claim transition as exactly one POST /graphql after a status read", async () => {
    const { provider, kinds } = assignmentProvider();
    nockSubjectStatus(statusVariables, { data: issueStatusData([]) });
    await provider.status(ref);
    nockApplyTransition(claimMutation, claimReply);

    const applied = await provider.apply(ref, claimWrite);

    expect(applied).toEqual({
      claimComment: { nodeId: "IC_new", databaseId: 555 },
      addedComments: ["IC_note"],
      requests: 1,
    });
    expect(kinds).toEqual(["subject-status", "apply-transition"]);
  });

  it("the builder yields the same document, with user text only in variables", () => {
    expect(
      buildTransitionMutation({
        subjectNodeId: "I_12",
        assigneeIds: ["U_agent"],
        unassigneeIds: [],
        addLabelIds: ["LA_claimed"],
        removeLabelIds: [],
        editComments: claimWrite.editComments,
        claimComment: validClaimBody,
        addComments: claimWrite.addComments,
      }),
    ).toEqual(claimMutation);
    const hostile = buildTransitionMutation({
      subjectNodeId: "I_12",
      assigneeIds: [],
      unassigneeIds: [],
      addLabelIds: [],
      removeLabelIds: [],
      editComments: [],
      addComments: [
        '") { x } mutation Evil { deleteIssue(input: {issueId: "I_12"}) { clientMutationId } } #',
      ],
    });
    expect(hostile?.document).not.toContain("deleteIssue");
  });

  it("looks up an uncached label in one query before the mutation (2 requests)", async () => {
    const { provider, kinds } = assignmentProvider();
    nockResolveLabels("octo/widgets", ["agent:claimed", "agent:stale"], {
      "agent:claimed": { id: "LA_claimed", name: "agent:claimed" },
      "agent:stale": { id: "LA_stale", name: "agent:stale" },
    });
    nockApplyTransition(
      {
        document: [
          "mutation ApplyTransition($removeLabels: RemoveLabelsFromLabelableInput!, $addLabels: AddLabelsToLabelableInput!) {",
          "  removeLabels: removeLabelsFromLabelable(input: $removeLabels) { clientMutationId }",
          "  addLabels: addLabelsToLabelable(input: $addLabels) { clientMutationId }",
          "}",
          "",
        ].join("\n"),
        variables: {
          removeLabels: { labelableId: "I_12", labelIds: ["LA_stale"] },
          addLabels: { labelableId: "I_12", labelIds: ["LA_claimed"] },
        },
      },
      { data: { removeLabels: { clientMutationId: null }, addLabels: { clientMutationId: null } } },
    );

    const applied = await provider.apply(ref, {
      subjectNodeId: "I_12",
      addLabels: ["agent:claimed"],
      removeLabels: ["agent:stale"],
    });

    expect(applied).toEqual({ requests: 2 });
    expect(kinds).toEqual(["resolve-labels", "apply-transition"]);
  });

  it("creates a label the repository lacks and drops removal of one it lacks (3 requests)", async () => {
    const { provider, kinds } = assignmentProvider();
    nockResolveLabels("octo/widgets", ["agent:claimed", "agent:stale"], {});
    nockCreateLabel(
      "octo/widgets",
      {
        name: "agent:claimed",
        color: "1d76db",
        description: "A live agent claim holds this issue (claim-hold)",
      },
      201,
      { id: 1, node_id: "LA_created", name: "agent:claimed" },
    );
    nockApplyTransition(
      {
        document: [
          "mutation ApplyTransition($addLabels: AddLabelsToLabelableInput!) {",
          "  addLabels: addLabelsToLabelable(input: $addLabels) { clientMutationId }",
          "}",
          "",
        ].join("\n"),
        variables: { addLabels: { labelableId: "I_12", labelIds: ["LA_created"] } },
      },
      { data: { addLabels: { clientMutationId: null } } },
    );

    const applied = await provider.apply(ref, {
      subjectNodeId: "I_12",
      addLabels: ["agent:claimed"],
      removeLabels: ["agent:stale"],
    });

    expect(applied).toEqual({ requests: 3 });
    expect(kinds).toEqual(["resolve-labels", "create-label", "apply-transition"]);
  });

  it("makes no request when a transition has nothing to write", async () => {
    const { provider } = assignmentProvider();
    expect(await provider.apply(ref, { subjectNodeId: "I_12", assign: [], addComments: [] })).toEqual({
      requests: 0,
    });
  });

  it("turns GraphQL errors into a GitHubWriteError naming the subject and field, without tokens", async () => {
    const { provider } = assignmentProvider();
    const mutation = {
      document: [
        "mutation ApplyTransition($assign: AddAssigneesToAssignableInput!) {",
        "  assign: addAssigneesToAssignable(input: $assign) { clientMutationId }",
        "}",
        "",
      ].join("\n"),
      variables: { assign: { assignableId: "I_12", assigneeIds: ["U_gone"] } },
    };
    nockApplyTransition(mutation, {
      data: { assign: null },
      errors: [
        {
          type: "NOT_FOUND",
          path: ["assign"],
          message: `Could not resolve to a node with the global id of 'U_gone' (authorization: token ${installationToken})`,
        },
      ],
    });

    const error = await rejectionOf<GitHubWriteError>(
      provider.apply(ref, { subjectNodeId: "I_12", assign: ["U_gone"] }),
    );

    expect(error).toBeInstanceOf(GitHubWriteError);
    expect(error.message).toBe(
      "failed to apply claim transition on octo/widgets#12: assign: Could not resolve to a node with the global id of 'U_gone' (authorization: [REDACTED])",
    );
    expect(error.message).not.toContain(installationToken);
  });

  it("turns an HTTP error into a GitHubWriteError with its status", async () => {
    const { provider } = assignmentProvider();
    nockApplyTransition(
      {
        document: [
          "mutation ApplyTransition($comment0: AddCommentInput!) {",
          "  comment0: addComment(input: $comment0) { commentEdge { node { id } } }",
          "}",
          "",
        ].join("\n"),
        variables: { comment0: { subjectId: "I_12", body: "note" } },
      },
      { status: 502, body: { message: "Server Error" } },
    );

    const error = await rejectionOf<GitHubWriteError>(
      provider.apply(ref, { subjectNodeId: "I_12", addComments: ["note"] }),
    );

    expect(error).toBeInstanceOf(GitHubWriteError);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(
      /^failed to apply claim transition on octo\/widgets#12: HTTP 502: Server Error/,
    );
    expect(error.message).not.toContain("ghs_");
  });
});

describe("GitHubAssignmentProvider.ensureLabels", () => {
  const specs = [
    { name: "agent:claimed", color: "1d76db", description: "claimed" },
    { name: "agent:stale", color: "#fbca04", description: "stale" },
  ];

  it("creates only the missing labels, and can be repeated", async () => {
    const { provider, kinds } = assignmentProvider();
    nockGetLabel("octo/widgets", "agent:claimed", 200, { node_id: "LA_claimed", name: "agent:claimed" });
    nockGetLabel("octo/widgets", "agent:stale", 404, { message: "Not Found" });
    nockCreateLabel("octo/widgets", { name: "agent:stale", color: "fbca04", description: "stale" }, 201, {
      node_id: "LA_stale",
    });
    await provider.ensureLabels({ installationId: 7, repo: "octo/widgets" }, specs);
    expect(kinds).toEqual(["get-label", "get-label", "create-label"]);

    nockGetLabel("octo/widgets", "agent:claimed", 200, { node_id: "LA_claimed" });
    nockGetLabel("octo/widgets", "agent:stale", 200, { node_id: "LA_stale" });
    await provider.ensureLabels({ installationId: 7, repo: "octo/widgets" }, specs);
    expect(provider.requests).toBe(5);
  });

  it("accepts a label someone else created in between (422 on create)", async () => {
    const { provider } = assignmentProvider();
    nockGetLabel("octo/widgets", "agent:claimed", 404, { message: "Not Found" });
    nockCreateLabel("octo/widgets", { name: "agent:claimed", color: "1d76db", description: "claimed" }, 422, {
      message: "Validation Failed",
      errors: [{ resource: "Label", code: "already_exists", field: "name" }],
    });
    nockGetLabel("octo/widgets", "agent:claimed", 200, { node_id: "LA_claimed" });
    await provider.ensureLabels({ installationId: 7, repo: "octo/widgets" }, [specs[0]!]);
    expect(provider.requests).toBe(3);
  });
});

describe("GitHubIdentityProvider", () => {
  const agentToken = "ghp_agenttoken0123456789abcdefghijkl";

  function identityProvider() {
    let now = Date.parse("2025-03-01T10:00:00Z");
    const kinds: string[] = [];
    const provider = new GitHubIdentityProvider({
      baseUrl: "https://api.github.com",
      appOctokit: async () => testOctokit(appJwt),
      octokitFor: async () => testOctokit(installationToken),
      now: () => now,
      onRequest: (kind) => kinds.push(kind),
    });
    return { provider, kinds, advance: (ms: number) => (now += ms) };
  }

  it("resolves a token with one GET /user and serves repeats from the cache for 5 minutes", async () => {
    const { provider, advance } = identityProvider();
    nockGetUser(agentToken, 200, { login: "octo-bot", id: 99, node_id: "U_bot", type: "User" });

    const user = { login: "octo-bot", id: 99, nodeId: "U_bot" };
    expect(await provider.userForToken(agentToken)).toEqual(user);
    advance(5 * 60_000 - 1);
    expect(await provider.userForToken(agentToken)).toEqual(user);
    expect(provider.requests).toBe(1);

    advance(1);
    nockGetUser(agentToken, 200, { login: "octo-bot", id: 99, node_id: "U_bot" });
    expect(await provider.userForToken(agentToken)).toEqual(user);
    expect(provider.requests).toBe(2);
  });

  it("shares one request between concurrent lookups of a token", async () => {
    const { provider } = identityProvider();
    nockGetUser(agentToken, 200, { login: "octo-bot", id: 99, node_id: "U_bot" });
    const [a, b] = await Promise.all([provider.userForToken(agentToken), provider.userForToken(agentToken)]);
    expect(a).toEqual(b);
    expect(provider.requests).toBe(1);
  });

  it("answers null for a token GitHub refuses, and remembers that for 30 s", async () => {
    const { provider, advance } = identityProvider();
    nockGetUser(agentToken, 401, { message: "Bad credentials" });
    expect(await provider.userForToken(agentToken)).toBeNull();
    advance(29_999);
    expect(await provider.userForToken(agentToken)).toBeNull();
    expect(provider.requests).toBe(1);

    advance(1);
    nockGetUser(agentToken, 401, { message: "Bad credentials" });
    expect(await provider.userForToken(agentToken)).toBeNull();
    expect(provider.requests).toBe(2);
  });

  it("does not cache a GitHub failure, and its error carries no token", async () => {
    const { provider } = identityProvider();
    nockGetUser(agentToken, 503, { message: "Service Unavailable" });
    const error = await rejectionOf<Error & { status: number; request: unknown }>(
      provider.userForToken(agentToken),
    );
    expect(error.status).toBe(503);
    expect(JSON.stringify({ message: error.message, request: error.request })).not.toContain(agentToken);

    nockGetUser(agentToken, 200, { login: "octo-bot", id: 99, node_id: "U_bot" });
    expect(await provider.userForToken(agentToken)).not.toBeNull();
    expect(provider.requests).toBe(2);
  });

  it("answers null without a request for something that cannot be a token", async () => {
    const { provider } = identityProvider();
    expect(await provider.userForToken("")).toBeNull();
    expect(await provider.userForToken("ghp_a\r\nx-injected: 1")).toBeNull();
    expect(provider.requests).toBe(0);
  });

  it("finds the installation with the App client, null on 404, cached", async () => {
    const { provider, kinds } = identityProvider();
    nockGetRepoInstallation("octo/widgets", 200, { id: 7, account: { login: "octo" } });
    nockGetRepoInstallation("octo/elsewhere", 404, { message: "Not Found" });

    expect(await provider.installationFor("octo/widgets")).toBe(7);
    expect(await provider.installationFor("Octo/Widgets")).toBe(7);
    expect(await provider.installationFor("octo/elsewhere")).toBeNull();
    expect(await provider.installationFor("octo/elsewhere")).toBeNull();
    expect(kinds).toEqual(["get-installation", "get-installation"]);
  });

  it.each([
    [{ permission: "admin", role_name: "admin" }, "admin"],
    [{ permission: "write", role_name: "maintain" }, "maintain"],
    [{ permission: "write", role_name: "write" }, "write"],
    [{ permission: "read", role_name: "triage" }, "triage"],
    [{ permission: "read", role_name: "read" }, "read"],
    [{ permission: "write", role_name: "security-manager" }, "write"],
    [{ permission: "none", role_name: "none" }, "none"],
  ])("maps the collaborator permission %j to %s", async (body, expected) => {
    const { provider } = identityProvider();
    nockGetCollaboratorPermission("octo/widgets", "octo-bot", 200, { ...body, user: { login: "octo-bot" } });
    expect(await provider.permission(7, "octo/widgets", "octo-bot")).toBe(expected);
    expect(await provider.permission(7, "octo/widgets", "Octo-Bot")).toBe(expected);
    expect(provider.requests).toBe(1);
  });

  it("answers none for an account GitHub does not know (404)", async () => {
    const { provider } = identityProvider();
    nockGetCollaboratorPermission("octo/widgets", "ghost", 404, { message: "Not Found" });
    expect(await provider.permission(7, "octo/widgets", "ghost")).toBe("none");
  });

  it("reads the repository's config file once per 5 minutes", async () => {
    const { provider, kinds, advance } = identityProvider();
    nockGetConfigFile("octo/widgets", 200, "labels:\n  claimed: held\njanitor: { dryRun: true }\n");
    const expected = { labels: { claimed: "held" }, janitor: { dryRun: true } };

    expect(await provider.repoConfig(7, "octo/widgets")).toEqual(expected);
    advance(4 * 60_000);
    expect(await provider.repoConfig(7, "octo/widgets")).toEqual(expected);
    expect(kinds).toEqual(["get-config"]);

    provider.invalidateConfig("octo/widgets");
    nockGetConfigFile("octo/widgets", 200, "");
    expect(await provider.repoConfig(7, "octo/widgets")).toEqual({});
    expect(kinds).toEqual(["get-config", "get-config"]);
  });

  it("falls back to the org's .github repository, and to null when neither has the file", async () => {
    const { provider } = identityProvider();
    nockGetConfigFile("octo/widgets", 404);
    nockGetConfigFile("octo/.github", 200, "humanIdleDays: 5\n");
    expect(await provider.repoConfig(7, "octo/widgets")).toEqual({ humanIdleDays: 5 });

    nockGetConfigFile("solo/app", 404);
    nockGetConfigFile("solo/.github", 404);
    expect(await provider.repoConfig(7, "solo/app")).toBeNull();
    expect(await provider.repoConfig(7, "solo/app")).toBeNull();
    expect(provider.requests).toBe(4);

    // A change to the org defaults drops every repository of that owner.
    provider.invalidateConfig("octo/.github");
    nockGetConfigFile("octo/widgets", 404);
    nockGetConfigFile("octo/.github", 200, "humanIdleDays: 6\n");
    expect(await provider.repoConfig(7, "octo/widgets")).toEqual({ humanIdleDays: 6 });
    expect(await provider.repoConfig(7, "solo/app")).toBeNull();
    expect(provider.requests).toBe(6);
  });

  it("reports invalid YAML with its line, and caches that too", async () => {
    const { provider } = identityProvider();
    nockGetConfigFile("octo/widgets", 200, "labels:\n  claimed: held\n  stale: [unclosed\n");
    const error = await rejectionOf<ConfigFileError>(provider.repoConfig(7, "octo/widgets"));
    expect(error).toBeInstanceOf(ConfigFileError);
    expect(error.message).toBe(
      "octo/widgets: .github/claim-hold.yml line 4: Flow sequence in block collection must be sufficiently indented and end with a ]",
    );
    expect(error.line).toBe(4);
    await expect(provider.repoConfig(7, "octo/widgets")).rejects.toBe(error);
    expect(provider.requests).toBe(1);
  });
});
