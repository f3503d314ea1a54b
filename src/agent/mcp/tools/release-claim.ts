// MCP tool `release_claim`: releases this session's claim with an outcome; its heartbeats stop.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { type ReleaseOutcomeName, releaseOutcomes } from "../../../contract/claim-vocabulary.js";
import { leaseDirOf } from "../../actions/agent-context.js";
import { selectLease } from "../../actions/lease-store.js";
import { releaseLeaseFile } from "../../actions/release-lease-file.js";
import { formatSubject, parseSubject } from "../../actions/subject.js";
import { subjectField, type ToolDeps, toolHandler } from "../tool-context.js";

interface ReleaseClaimArgs {
  outcome: ReleaseOutcomeName;
  note?: string;
  subject?: string;
}

export function registerReleaseClaim(server: McpServer, deps: ToolDeps): void {
  const { ctx, keeper } = deps;
  server.registerTool(
    "release_claim",
    {
      title: "Release the claim",
      description:
        "Release this session's claim: outcome completed when the work is done (e.g. the pull request is " +
        "open or merged), handoff to leave it for another session (put what is done and what is left in " +
        "note), abandoned to give it up. Heartbeats stop.",
      inputSchema: {
        outcome: z
          .enum(releaseOutcomes)
          .describe(
            "completed, handoff, abandoned or failed (failed counts toward the issue's failure breaker).",
          ),
        note: z.string().max(4000).optional().describe("Handoff note, posted on the issue."),
        subject: subjectField,
      },
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    toolHandler(deps, async ({ outcome, note, subject }: ReleaseClaimArgs) => {
      const dir = await leaseDirOf(ctx);
      const lease = await selectLease(dir, subject ? parseSubject(subject) : undefined);
      const name = formatSubject(lease);
      const released = await releaseLeaseFile(
        ctx,
        dir,
        lease,
        { outcome, ...(note ? { note } : {}) },
        {
          beforeCall: () => keeper.forget(name),
          restore: { status: "held" },
          afterRestore: () => keeper.keep(lease),
        },
      );
      return {
        summary: `Released ${name} (${String(released.outcome ?? outcome)}).`,
        data: { subject: name, ...released },
      };
    }),
  );
}
