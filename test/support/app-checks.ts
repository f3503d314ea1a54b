// The fake GitHub's Checks API, reactions and PR reads for the in-process App, with nock at the HTTP layer.
import { isDeepStrictEqual } from "node:util";
import nock from "nock";
import { expect } from "vitest";
import type { GitHubRequestLog } from "./app-github.js";
import { githubApiUrl, installationToken } from "./github-nock.js";

export const testAppId = 90000003;

function api(log: GitHubRequestLog) {
  const scope = nock(githubApiUrl, { reqheaders: { authorization: `token ${installationToken}` } });
  scope.on("request", (_req: unknown, interceptor: { method: string; path: string }, body: string) => {
    let parsed: unknown = body;
    try {
      parsed = body ? JSON.parse(body) : undefined;
    } catch {}
    log.record(interceptor.method, interceptor.path, parsed);
  });
  return scope;
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
 * GitHub's check runs, one per head: each `expect…` call mocks exactly the requests one evaluation
 * should make (the read, and the write unless the verdict is unchanged) and checks the written body.
 */
export class FakeCheckRuns {
  readonly runs = new Map<string, CheckRunView>();
  #nextId = 1;

  constructor(
    private readonly log: GitHubRequestLog,
    private readonly repo: string,
  ) {}

  /** The list-by-name-and-App read of `sha`, answered with the run GitHub holds at that moment. */
  mockListCheckRuns(sha: string) {
    return api(this.log)
      .get(`/repos/${this.repo}/commits/${sha}/check-runs`)
      .query({ check_name: "claim-hold", filter: "latest", app_id: String(testAppId) })
      .reply(200, () => {
        const run = this.runs.get(sha);
        const check_runs = run
          ? [
              {
                id: run.id,
                name: "claim-hold",
                head_sha: sha,
                status: "completed",
                conclusion: run.conclusion,
                app: { id: testAppId, slug: "claim-hold" },
                output: { title: run.title, summary: run.summary, text: run.text, annotations_count: 0 },
              },
            ]
          : [];
        return { total_count: check_runs.length, check_runs };
      });
  }

  /** One evaluation of `sha` that must end with `expected` on GitHub (created or updated as needed). */
  expectEvaluation(sha: string, expected: ExpectedRun) {
    this.mockListCheckRuns(sha);
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

export function mockAddReaction(log: GitHubRequestLog, repo: string, commentId: number) {
  return api(log)
    .post(`/repos/${repo}/issues/comments/${commentId}/reactions`, { content: "eyes" })
    .reply(201, { id: 1, content: "eyes" });
}

/** Asserts the exact list of requests (method and path) since `mark`. */
export function expectRequests(log: GitHubRequestLog, mark: number, expected: string[]) {
  expect(log.since(mark).map((r) => `${r.method} ${r.path.split("?")[0]}`)).toEqual(expected);
}
