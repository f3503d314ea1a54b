// GitHubChecksProvider.readPullRequestCheck: one GraphQL read gives GitHub's closing references and the App's run.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { GitHubChecksProvider } from "../src/providers/github/github-checks-provider.js";
import {
  PULL_REQUEST_CHECK_QUERY,
  type PullRequestCheckVariables,
} from "../src/providers/github/graphql/index.js";
import { exactBody, githubApiUrl, installationToken, testOctokit } from "./support/github-fake/index.js";

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

const appId = 4242;
const repoId = 1296269;
const sha = "a".repeat(40);
const variables: PullRequestCheckVariables = {
  owner: "octo",
  name: "widgets",
  number: 9,
  headSha: sha,
  checkName: "claim-hold",
  appId,
};

function mockGraphqlPullRequestCheck(reply: { data?: unknown; errors?: unknown[] }) {
  return nock(githubApiUrl)
    .matchHeader("authorization", `token ${installationToken}`)
    .post("/graphql", exactBody({ query: PULL_REQUEST_CHECK_QUERY, variables }))
    .reply(200, reply);
}

function provider() {
  const kinds: string[] = [];
  const checks = new GitHubChecksProvider({
    octokitFor: async () => testOctokit(installationToken),
    appId,
    onRequest: (kind) => kinds.push(kind),
  });
  return { checks, kinds };
}

const run = (databaseId: number, conclusion: string | null, name = "claim-hold") => ({
  databaseId,
  name,
  conclusion,
  title: `t${databaseId}`,
  summary: `s${databaseId}`,
  text: `x${databaseId}`,
});

describe("GitHubChecksProvider.readPullRequestCheck", () => {
  it("keeps this repository's closing references, those of other repositories apart, and the App's latest claim-hold run, in one request", async () => {
    mockGraphqlPullRequestCheck({
      data: {
        repository: {
          pullRequest: {
            closingIssuesReferences: {
              nodes: [
                { number: 7, repository: { databaseId: repoId } },
                { number: 3, repository: { databaseId: 999, nameWithOwner: "octo/tracker" } },
                null,
                { number: 1, repository: { databaseId: repoId } },
              ],
            },
          },
          object: {
            __typename: "Commit",
            checkSuites: {
              nodes: [
                { app: { databaseId: 1 }, checkRuns: { nodes: [run(90, "SUCCESS")] } },
                { app: { databaseId: appId }, checkRuns: { nodes: [run(11, "SUCCESS")] } },
                { app: { databaseId: appId }, checkRuns: { nodes: [run(12, "ACTION_REQUIRED")] } },
              ],
            },
          },
        },
      },
    });
    const { checks, kinds } = provider();
    const state = await checks.readPullRequestCheck(
      { installationId: 42, repo: "octo/widgets", repoId },
      { number: 9, headSha: sha },
    );
    expect(state).toEqual({
      closes: [7, 1],
      closesElsewhere: [{ repoId: 999, repo: "octo/tracker", issue: 3 }],
      existing: { id: 12, conclusion: "action_required", title: "t12", summary: "s12", text: "x12" },
    });
    expect(kinds).toEqual(["read-pull-request-check"]);
  });

  it("no run yet on a head GitHub does not know: no existing run, references still read", async () => {
    mockGraphqlPullRequestCheck({
      data: {
        repository: {
          pullRequest: {
            closingIssuesReferences: { nodes: [{ number: 2, repository: { databaseId: repoId } }] },
          },
          object: null,
        },
      },
    });
    const { checks } = provider();
    expect(
      await checks.readPullRequestCheck(
        { installationId: 42, repo: "octo/widgets", repoId },
        { number: 9, headSha: sha },
      ),
    ).toEqual({ closes: [2], closesElsewhere: [], existing: null });
  });

  it("a GraphQL error names the PR and head, and is never read as 'no references'", async () => {
    mockGraphqlPullRequestCheck({
      data: { repository: { pullRequest: null, object: null } },
      errors: [
        {
          type: "NOT_FOUND",
          path: ["repository", "pullRequest"],
          message: "Could not resolve to a PullRequest with the number of 9.",
        },
      ],
    });
    const { checks } = provider();
    await expect(
      checks.readPullRequestCheck(
        { installationId: 42, repo: "octo/widgets", repoId },
        { number: 9, headSha: sha },
      ),
    ).rejects.toThrow(
      /^failed to read the closing references and claim-hold check run of octo\/widgets#9@aaaaaaa: repository: Could not resolve to a PullRequest/,
    );
  });
});
