// MCP tool `claim_next_issue`: the App picks the best free issue of a repository and claims it for this session.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { taskClasses } from "../../../contract/claim-vocabulary.js";
import { describeLease } from "../../actions/agent-context.js";
import { claimNextIssue } from "../../actions/claim-next-issue.js";
import { parseRepo } from "../../actions/subject.js";
import { isClaimHoldError } from "../../client/index.js";
import { repoField, type ToolDeps, toolHandler } from "../tool-context.js";
import { claimSummary, progressReporter } from "./claim-issue.js";

interface ClaimNextIssueArgs {
  repo: string;
  labels?: string[];
  excludeLabels?: string[];
  capabilities?: string[];
  taskClass?: string;
  takeovers?: boolean;
  scope?: string[];
}

const labelList = z.array(z.string().min(1).max(50)).max(20).optional();

export function registerClaimNextIssue(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "claim_next_issue",
    {
      title: "Claim the next issue",
      description:
        "Let claim-hold pick the best free issue of a repository (priority labels first, then oldest) and " +
        "claim it for this session in one step — no need to list issues first, and no other session can get " +
        "the same issue. Returns the picked issue, the branch to work on and why it was picked; the server " +
        "then heartbeats the claim until the session ends. When nothing is eligible the result says " +
        "queueEmpty: true with counts of why issues were skipped: there is no work for you now, stop.",
      inputSchema: {
        repo: repoField,
        labels: labelList.describe("Only issues carrying every one of these labels."),
        excludeLabels: labelList.describe("No issue carrying any of these labels."),
        capabilities: z
          .array(z.string().min(1).max(40))
          .max(20)
          .optional()
          .describe(
            "What you can do (e.g. gpu, python). Issues labelled needs:<capability> are picked only for " +
              "sessions that declare every capability they need.",
          ),
        taskClass: z
          .enum(taskClasses)
          .optional()
          .describe("author (default), reviewer, merger or conflict-fix."),
        takeovers: z
          .boolean()
          .optional()
          .describe(
            "Also pick abandoned (reclaimable) claims; you then continue the previous holder's branch.",
          ),
        scope: z
          .array(z.string().min(1).max(200))
          .max(50)
          .optional()
          .describe("Path globs, relative to the repository root, of the files you expect to touch."),
      },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    toolHandler(deps, async (args: ClaimNextIssueArgs, extra) => {
      const repo = parseRepo(args.repo);
      try {
        const { lease, result, session } = await claimNextIssue(deps.ctx, repo, {
          taskClass: args.taskClass ?? "author",
          takeovers: args.takeovers === true,
          ...(args.labels?.length ? { labels: args.labels } : {}),
          ...(args.excludeLabels?.length ? { excludeLabels: args.excludeLabels } : {}),
          ...(args.capabilities?.length ? { capabilities: args.capabilities } : {}),
          ...(args.scope?.length ? { scope: args.scope } : {}),
          onTakeoverPending: progressReporter(extra),
        });
        deps.keeper.keep(lease);
        const why = result.picked.reasons.length > 0 ? ` (${result.picked.reasons.join(", ")})` : "";
        return {
          summary: `Picked issue #${result.picked.issue} of ${repo}, rank ${result.picked.rank}${why}.\n${claimSummary(lease, result)}`,
          data: {
            queueEmpty: false,
            picked: result.picked,
            created: result.created,
            sessionId: session.sessionId,
            lease: describeLease(lease, false),
            branch: lease.branch,
            resume: result.resume,
            overlaps: result.overlaps,
          },
        };
      } catch (error) {
        // An empty queue is an answer, not a failure: the agent is told there is nothing to do.
        if (!isClaimHoldError(error) || error.code !== "queue_empty") throw error;
        const skipped = (error.details.skipped ?? {}) as Record<string, unknown>;
        return {
          summary: `No eligible issue in ${repo}: nothing to work on now. Skipped: ${JSON.stringify(skipped)}.`,
          data: { queueEmpty: true, repo, skipped },
        };
      }
    }),
  );
}
