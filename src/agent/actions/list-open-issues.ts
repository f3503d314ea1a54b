// Lists a repository's open issues (not pull requests) through GitHub's REST API, bounded.

import { z } from "zod";
import { ClaimHoldError, redactSecrets } from "../client/index.js";
import type { OpenIssue } from "./free-issues.js";

const pageSize = 100;

/** The fields of GitHub's issue items that the queue needs; pull requests carry `pull_request`. */
const IssueItemSchema = z.looseObject({
  number: z.number().int().positive(),
  title: z.string().default(""),
  assignees: z
    .array(z.looseObject({ login: z.string() }))
    .nullish()
    .transform((value) => (value ?? []).map((assignee) => assignee.login)),
  pull_request: z.unknown().optional(),
});
const IssueListSchema = z.array(IssueItemSchema);

export interface ListOpenIssuesDeps {
  fetch: typeof globalThis.fetch;
  /** `GITHUB_API_URL` (GitHub Enterprise, tests) or `https://api.github.com`. */
  apiUrl: string;
  token: string;
  signal?: AbortSignal;
}

/** Up to `limit` open issues, oldest first; with `labels`, only those carrying every one of them. */
export async function listOpenIssues(
  deps: ListOpenIssuesDeps,
  repo: string,
  limit: number,
  options: { labels?: readonly string[] } = {},
): Promise<OpenIssue[]> {
  const issues: OpenIssue[] = [];
  for (let page = 1; issues.length < limit; page++) {
    const url = new URL(`repos/${repo}/issues`, deps.apiUrl.endsWith("/") ? deps.apiUrl : `${deps.apiUrl}/`);
    url.search = new URLSearchParams({
      state: "open",
      sort: "created",
      direction: "asc",
      per_page: String(pageSize),
      page: String(page),
      ...(options.labels?.length ? { labels: options.labels.join(",") } : {}),
    }).toString();
    const response = await deps.fetch(url, {
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${deps.token}`,
        "user-agent": "claim-hold-cli",
        "x-github-api-version": "2022-11-28",
      },
      signal: deps.signal,
    });
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      throw new ClaimHoldError({
        status: response.status,
        code: "github_failed",
        message: redactSecrets(
          `failed to list the open issues of ${repo}: ${response.status} ${text.slice(0, 200)}`,
          [deps.token],
        ),
      });
    }
    const parsed = IssueListSchema.safeParse(await response.json().catch(() => null));
    if (!parsed.success) {
      throw new ClaimHoldError({
        status: response.status,
        code: "invalid_response",
        message: `GitHub answered the issue list of ${repo} with an unexpected body`,
      });
    }
    const items = parsed.data;
    for (const item of items) {
      if (item.pull_request === undefined && issues.length < limit) {
        issues.push({ number: item.number, title: item.title, assignees: item.assignees });
      }
    }
    if (items.length < pageSize) break;
  }
  return issues;
}
