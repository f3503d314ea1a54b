// GitHub's Checks API, closing references and reactions for the in-process App, faked with nock.
import { isDeepStrictEqual } from "node:util";
import { expect } from "vitest";
import {
  PULL_REQUEST_CHECK_QUERY,
  type PullRequestCheckVariables,
} from "../../../src/providers/github/graphql/index.js";
import { exactBody, type GitHubRequestLog, githubScope, installationToken } from "./github-scope.js";

export const testAppId = 90000003;

function api(log: GitHubRequestLog) {
  return githubScope({ log, reqheaders: { authorization: `token ${installationToken}` } });
}

export interface CheckRunView {
  id: number;
  conclusion: string;
  title: string;
  summary: string;
  text: string;
}

/** The summary table the App writes, built by the test from plain rows. */
export function summaryOf(
  rows: [subject: string, holder: string, generation: string, state: string, attested: string][],
) {
  return [
    "| subject | holder | generation | state | attested by |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

export interface ExpectedRun {
  conclusion: string;
  title: string;
  summary: string;
  /** Fragments the explanation must contain. */
  text: string[];
  detailsUrl?: string;
  annotations?: unknown[];
}

/**
 * GitHub's check runs, one per head, and the closing issue references of each PR: each `expect…`
 * call mocks exactly the requests one evaluation should make (the one read, and the write unless
 * the verdict is unchanged) and checks the written body.
 */
export class FakeCheckRuns {
  readonly runs = new Map<string, CheckRunView>();
  /** PR number → the issues GitHub links to it (closing keywords in any form, manual links). */
  readonly closing = new Map<number, number[]>();
  #nextId = 1;

  constructor(
    private readonly log: GitHubRequestLog,
    private readonly repo: string,
    private readonly options: { repoId: number; pull: number },
  ) {}

  /** GitHub links `issues` to PR `pull` (what its `closingIssuesReferences` answers from now on). */
  link(pull: number, issues: number[]): void {
    this.closing.set(pull, issues);
  }

  /**
   * The one read of an evaluation (`PullRequestCheck`, exact variables): PR `pull`'s closing
   * references and the App's run on `sha`, answered with what GitHub holds at that moment.
   */
  nockPullRequestCheck(sha: string, pull = this.options.pull) {
    const [owner, name] = this.repo.split("/") as [string, string];
    const variables: PullRequestCheckVariables = {
      owner,
      name,
      number: pull,
      headSha: sha,
      checkName: "claim-hold",
      appId: testAppId,
    };
    return api(this.log)
      .post("/graphql", exactBody({ query: PULL_REQUEST_CHECK_QUERY, variables }))
      .reply(200, () => {
        const run = this.runs.get(sha);
        const nodes = (this.closing.get(pull) ?? []).map((number) => ({
          number,
          repository: { databaseId: this.options.repoId },
        }));
        const suites = run
          ? [
              {
                app: { databaseId: testAppId },
                checkRuns: {
                  nodes: [
                    {
                      databaseId: run.id,
                      name: "claim-hold",
                      conclusion: run.conclusion.toUpperCase(),
                      title: run.title,
                      summary: run.summary,
                      text: run.text,
                    },
                  ],
                },
              },
            ]
          : [];
        return {
          data: {
            repository: {
              pullRequest: { closingIssuesReferences: { nodes } },
              object: { __typename: "Commit", checkSuites: { nodes: suites } },
            },
          },
        };
      });
  }

  /** One evaluation of `sha` (of PR `pull`) that must end with `expected` on GitHub (created or updated as needed). */
  expectEvaluation(sha: string, expected: ExpectedRun, pull = this.options.pull) {
    this.nockPullRequestCheck(sha, pull);
    const existing = this.runs.get(sha);
    let sent: Record<string, unknown> | undefined;
    const matches = (body: Record<string, unknown>) => {
      if (!bodyIsExpected(body)) return false;
      sent = body;
      return true;
    };
    const bodyIsExpected = (body: Record<string, unknown>) => {
      const output = body.output as { text?: string } | undefined;
      const { text: _text, ...restOutput } = output ?? {};
      const want: Record<string, unknown> = {
        ...(existing ? {} : { name: "claim-hold", head_sha: sha }),
        status: "completed",
        conclusion: expected.conclusion,
        ...(expected.detailsUrl ? { details_url: expected.detailsUrl } : {}),
        output: {
          title: expected.title,
          summary: expected.summary,
          ...(expected.annotations ? { annotations: expected.annotations } : {}),
        },
      };
      const { output: _o, ...restBody } = body;
      const { output: wantOutput, ...wantRest } = want;
      return (
        isDeepStrictEqual(restBody, wantRest) &&
        isDeepStrictEqual(restOutput, wantOutput) &&
        expected.text.every((fragment) => output?.text?.includes(fragment))
      );
    };
    const record = (body: Record<string, unknown>) => {
      const output = body.output as { title: string; summary: string; text: string };
      const id = existing?.id ?? this.#nextId++;
      this.runs.set(sha, {
        id,
        conclusion: body.conclusion as string,
        title: output.title,
        summary: output.summary,
        text: output.text,
      });
      return { id, name: "claim-hold", head_sha: sha, conclusion: body.conclusion };
    };
    const scope = existing
      ? api(this.log).patch(`/repos/${this.repo}/check-runs/${existing.id}`, matches)
      : api(this.log).post(`/repos/${this.repo}/check-runs`, matches);
    scope.reply(existing ? 200 : 201, () => record(sent!));
  }

  conclusionOf(sha: string): string | undefined {
    return this.runs.get(sha)?.conclusion;
  }
}

/** `POST /repos/{repo}/issues/comments/{id}/reactions` with `eyes`: the App saw a command. */
export function nockAddReaction(log: GitHubRequestLog, repo: string, commentId: number) {
  return api(log)
    .post(`/repos/${repo}/issues/comments/${commentId}/reactions`, { content: "eyes" })
    .reply(201, { id: 1, content: "eyes" });
}

/** Asserts the exact list of requests (method and path) since `mark`. */
export function expectRequests(log: GitHubRequestLog, mark: number, expected: string[]) {
  expect(log.since(mark).map((r) => `${r.method} ${r.path.split("?")[0]}`)).toEqual(expected);
}
