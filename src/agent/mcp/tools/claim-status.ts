// MCP tool `claim_status`: who holds an issue, in which state, and whether this session does.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { actorName } from "../../actions/actor-name.js";
import { clientFor, leaseDirOf, serverUrl } from "../../actions/agent-context.js";
import { readLease } from "../../actions/lease-store.js";
import { formatSubject, parseRepo } from "../../actions/subject.js";
import { repoField, type ToolDeps, toolHandler } from "../tool-context.js";

export function registerClaimStatus(server: McpServer, deps: ToolDeps): void {
  const { ctx } = deps;
  server.registerTool(
    "claim_status",
    {
      title: "Claim status of an issue",
      description:
        "Show who holds an issue and in which state (active, stale, reclaimable, human, …), its recent claim " +
        "history, and whether this session holds it.",
      inputSchema: { repo: repoField, issue: z.number().int().min(1).describe("The issue number.") },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    toolHandler(deps, async ({ repo, issue }: { repo: string; issue: number }) => {
      const subject = { repo: parseRepo(repo), issue };
      const row = await clientFor(ctx, serverUrl(ctx)).subject(subject.repo, issue, { signal: ctx.signal });
      const local = await leaseDirOf(ctx)
        .then((dir) => readLease(dir, subject))
        .catch(() => null);
      const mine =
        local !== null &&
        local.status === "held" &&
        row.generation === local.generation &&
        row.state !== "human";
      const { history, ...rest } = row;
      return {
        summary:
          `${formatSubject(subject)}: ${row.state}` +
          (row.actor ? ` · held by ${actorName(row.actor)} · generation ${row.generation}` : "") +
          (mine ? " · this session holds it" : ""),
        data: {
          ...rest,
          history: (history ?? []).slice(0, 10),
          thisSession: local ? { holds: mine, generation: local.generation, status: local.status } : null,
        },
      };
    }),
  );
}
