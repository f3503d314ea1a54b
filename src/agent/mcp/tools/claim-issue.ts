// MCP tool `claim_issue`: claims an issue for this session; the server heartbeats it from then on.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { taskClasses } from "../../../contract/claim-vocabulary.js";
import { actorName } from "../../actions/actor-name.js";
import { describeLease } from "../../actions/agent-context.js";
import { claimIssue } from "../../actions/claim-issue.js";
import type { LeaseFile } from "../../actions/lease-store.js";
import { formatSubject, parseRepo } from "../../actions/subject.js";
import type { ClaimResult, TakeoverPending } from "../../client/index.js";
import { repoField, type ToolDeps, type ToolExtra, toolHandler } from "../tool-context.js";

interface ClaimIssueArgs {
  repo: string;
  issue: number;
  taskClass?: string;
  branch?: string;
  scope?: string[];
  takeover?: boolean;
}

export function registerClaimIssue(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "claim_issue",
    {
      title: "Claim an issue",
      description:
        "Claim a GitHub issue for this session before working on it. Returns the branch to work on (on a " +
        "takeover: the previous holder's branch, to continue — never start a parallel one), `resume` details " +
        "on a takeover, and `overlaps`: other live claims whose declared files intersect your `scope` " +
        "(coordinate or pick other work). The server then heartbeats the claim by itself until the session " +
        "ends. Fails with `held` / `human_held` when someone else holds it (pick another issue) and " +
        "`cap_reached` when this session already holds its limit. With takeover: true a stale claim is taken " +
        "over; the call then waits out the holder's grace beat (minutes) itself.",
      inputSchema: {
        repo: repoField,
        issue: z.number().int().min(1).describe("The issue number."),
        taskClass: z
          .enum(taskClasses)
          .optional()
          .describe("author (default), reviewer, merger or conflict-fix."),
        branch: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe("Branch for the work; default: the App names one (or the incumbent's on a takeover)."),
        scope: z
          .array(z.string().min(1).max(200))
          .max(50)
          .optional()
          .describe("Path globs, relative to the repository root, of the files you expect to touch."),
        takeover: z.boolean().optional().describe("Take over a stale or reclaimable claim."),
      },
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    toolHandler(deps, async (args: ClaimIssueArgs, extra) => {
      const subject = { repo: parseRepo(args.repo), issue: args.issue };
      const { lease, result, session } = await claimIssue(deps.ctx, subject, {
        taskClass: args.taskClass ?? "author",
        takeover: args.takeover === true,
        ...(args.branch ? { branch: args.branch } : {}),
        ...(args.scope?.length ? { scope: args.scope } : {}),
        onTakeoverPending: progressReporter(extra),
      });
      deps.keeper.keep(lease);
      return {
        summary: claimSummary(lease, result),
        data: {
          created: result.created,
          sessionId: session.sessionId,
          lease: describeLease(lease, false),
          branch: lease.branch,
          resume: result.resume,
          overlaps: result.overlaps,
        },
      };
    }),
  );
}

/** A takeover waits out the incumbent's grace beat (minutes): progress notifications keep the call alive. */
export function progressReporter(extra: ToolExtra): (pending: TakeoverPending) => void {
  const progressToken = extra._meta?.progressToken;
  let waits = 0;
  return (pending) => {
    if (progressToken === undefined) return;
    waits++;
    void extra
      .sendNotification({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: waits,
          message: `takeover pending: waiting ${pending.retryAfterSeconds} s for the holder's grace beat`,
        },
      })
      .catch(() => {});
  };
}

export function claimSummary(lease: LeaseFile, result: ClaimResult): string {
  const lines = [
    `${result.created ? "Claimed" : "Re-claimed"} ${formatSubject(lease)} (generation ${lease.generation}). ` +
      `Work on branch ${lease.branch ?? "(none given)"}; this server heartbeats the claim every ` +
      `${lease.heartbeatIntervalSeconds} s while it runs.`,
  ];
  if (result.resume) {
    lines.push(
      `Takeover: continue branch ${result.resume.branch ?? lease.branch} of ${actorName(result.resume.previousActor)} ` +
        `(generation ${result.resume.previousGeneration ?? "?"}); do not start a parallel branch.`,
    );
  }
  for (const overlap of result.overlaps) {
    lines.push(
      `Warning: ${overlap.subject} (${actorName(overlap.holder)}) is working on overlapping files: ${overlap.paths.join(", ")}.`,
    );
  }
  return lines.join("\n");
}
