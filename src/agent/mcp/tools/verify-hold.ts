// MCP tool `verify_hold`: the gate before every push, pull request and merge.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { clientFor, leaseCredentials, serverUrl } from "../../actions/agent-context.js";
import { formatSubject } from "../../actions/subject.js";
import { onToolLease, subjectField, type ToolDeps, toolHandler } from "../tool-context.js";

export function registerVerifyHold(server: McpServer, deps: ToolDeps): void {
  const { ctx } = deps;
  server.registerTool(
    "verify_hold",
    {
      title: "Verify the claim is still yours",
      description:
        "Check with the server that this session still holds its claim. Call it before every push, pull " +
        "request and merge; if it fails with superseded or gone, stop working on the issue.",
      inputSchema: { subject: subjectField },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    toolHandler(deps, async ({ subject }: { subject?: string }) => {
      const { lease, value } = await onToolLease(deps, subject, (l) =>
        clientFor(ctx, serverUrl(ctx, l)).verify(leaseCredentials(l), { signal: ctx.signal }),
      );
      return {
        summary: `This session holds ${formatSubject(lease)} (generation ${value.generation}, ${value.state}).`,
        data: { subject: formatSubject(lease), ...value },
      };
    }),
  );
}
