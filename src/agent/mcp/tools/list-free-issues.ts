// MCP tool `list_free_issues`: the open issues of a repository nobody live is working on.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { listFreeIssues } from "../../actions/list-free-issues.js";
import { parseRepo } from "../../actions/subject.js";
import { repoField, type ToolDeps, toolHandler } from "../tool-context.js";

export function registerListFreeIssues(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "list_free_issues",
    {
      title: "List free issues",
      description:
        "List the open issues of a repository that nobody live is working on (no claim and no assignee, a " +
        "stale or reclaimable agent claim, or a leftover label). Pick one and call claim_issue; entries with " +
        "takeover: true need claim_issue with takeover: true.",
      inputSchema: {
        repo: repoField,
        labels: z
          .array(z.string().min(1).max(100))
          .max(10)
          .optional()
          .describe("Only issues carrying every one of these labels."),
        limit: z
          .number()
          .int()
          .min(1)
          .max(1000)
          .optional()
          .describe("How many open issues to read from GitHub (default 100)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    toolHandler(
      deps,
      async ({ repo, labels, limit }: { repo: string; labels?: string[]; limit?: number }) => {
        const name = parseRepo(repo);
        const { free, truncated } = await listFreeIssues(deps.ctx, name, {
          limit: limit ?? 100,
          ...(labels ? { labels } : {}),
        });
        const summary =
          free.length === 0
            ? `No free issue in ${name}.`
            : `${free.length} free issue(s) in ${name}: ${free.map((f) => `#${f.issue}${f.takeover ? " (takeover)" : ""}`).join(", ")}.`;
        return { summary, data: { repo: name, free, truncated } };
      },
    ),
  );
}
