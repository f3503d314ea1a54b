// The queue of a repository: the App's inventory joined with GitHub's open issues (`queue`, MCP `list_free_issues`).
import { type AgentContext, clientFor, requireGithubToken, serverUrl } from "./agent-context.js";
import { type FreeIssue, findFreeIssues } from "./free-issues.js";
import { listOpenIssues } from "./list-open-issues.js";

export interface FreeIssueQuery {
  /** How many open issues to read from GitHub. */
  limit: number;
  /** Only issues carrying every one of these labels. */
  labels?: readonly string[];
}

/** The free issues of `repo` by the join rule; `truncated` when the inventory was cut short. */
export async function listFreeIssues(
  ctx: AgentContext,
  repo: string,
  query: FreeIssueQuery,
): Promise<{ free: FreeIssue[]; truncated: boolean }> {
  requireGithubToken(ctx);
  const client = clientFor(ctx, serverUrl(ctx));
  const [inventory, issues] = await Promise.all([
    client.inventory(repo, { limit: 200 }, { signal: ctx.signal }),
    listOpenIssues(
      {
        fetch: ctx.fetch,
        apiUrl: ctx.env.GITHUB_API_URL?.trim() || "https://api.github.com",
        token: ctx.env.GITHUB_TOKEN?.trim() ?? "",
        signal: ctx.signal,
      },
      repo,
      query.limit,
      query.labels?.length ? { labels: query.labels } : {},
    ),
  ]);
  const free = findFreeIssues(repo, issues, inventory.claims);
  if (!query.labels?.length) return { free, truncated: inventory.truncated };
  // Stale claims come from the inventory, which knows no labels: keep those GitHub listed.
  const listed = new Set(issues.map((issue) => issue.number));
  return { free: free.filter((f) => listed.has(f.issue)), truncated: inventory.truncated };
}
