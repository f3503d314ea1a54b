// MCP tool `list_free_issues`: the App's ranked queue of a repository — what claim_next_issue would pick, in order.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { type FreeIssues, listFreeIssues } from "../../actions/list-free-issues.js";
import { parseRepo } from "../../actions/subject.js";
import { repoField, type ToolDeps, toolHandler } from "../tool-context.js";

export function registerListFreeIssues(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "list_free_issues",
    {
      title: "List free issues",
      description:
        "List the issues of a repository that are free to work on, ranked by claim-hold as claim_next_issue " +
        "would pick them (priority labels, then the repository's order), each with why it ranks there, and " +
        "the first skipped issues with why (held, human, blocked, pr-open, filtered…). To work, call " +
        "claim_next_issue (takes the first, atomically) or claim_issue with the one you choose.",
      inputSchema: {
        repo: repoField,
        limit: z
          .number()
          .int()
          .min(1)
          .max(200)
          .optional()
          .describe("How many free issues to list, best first (default 50)."),
        capabilities: z
          .array(z.string().min(1).max(40))
          .max(20)
          .optional()
          .describe("What you can do (e.g. gpu): list the queue as claim_next_issue with them would see it."),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    toolHandler(deps, async (args: { repo: string; limit?: number; capabilities?: string[] }) => {
      const listing = await listFreeIssues(deps.ctx, parseRepo(args.repo), {
        ...(args.limit === undefined ? {} : { limit: args.limit }),
        ...(args.capabilities?.length ? { capabilities: args.capabilities } : {}),
      });
      return { summary: summaryOf(listing), data: { ...listing } };
    }),
  );
}

/** One sentence for the model: the free issues best first, then how many were skipped and why. */
export function summaryOf({ repo, free, skipped, truncated }: FreeIssues): string {
  const listed =
    free.length === 0
      ? `No free issue in ${repo}.`
      : `${free.length}${truncated ? "+" : ""} free issue(s) in ${repo}, best first: ` +
        `${free.map((f) => `#${f.issue} ${JSON.stringify(f.title)}${f.reasons.length > 0 ? ` (${f.reasons.join(", ")})` : ""}`).join("; ")}.`;
  if (skipped.length === 0) return listed;
  const why = new Map<string, number>();
  for (const skip of skipped) why.set(skip.reason, (why.get(skip.reason) ?? 0) + 1);
  return `${listed} Skipped: ${[...why].map(([reason, count]) => `${count} ${reason}`).join(", ")}.`;
}
