// MCP tool `attest_commit`: vouches for a commit with this session's claim, so the claim-hold check passes.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { clientFor, leaseCredentials, serverUrl } from "../../actions/agent-context.js";
import { resolveCommit } from "../../actions/git.js";
import { formatSubject } from "../../actions/subject.js";
import { onToolLease, subjectField, type ToolDeps, toolHandler } from "../tool-context.js";

export function registerAttestCommit(server: McpServer, deps: ToolDeps): void {
  const { ctx } = deps;
  server.registerTool(
    "attest_commit",
    {
      title: "Attest a commit",
      description:
        "Vouch for a commit with this session's claim, so the required claim-hold check passes on pull " +
        "requests whose head it is. Call it after committing and before pushing. Default: HEAD of the " +
        "server's working directory.",
      inputSchema: {
        sha: z.string().min(1).max(200).optional().describe("A commit SHA or revision (default HEAD)."),
        subject: subjectField,
      },
      annotations: { idempotentHint: true, openWorldHint: true },
    },
    toolHandler(deps, async ({ sha, subject }: { sha?: string; subject?: string }) => {
      const revision = sha ?? "HEAD";
      const commit = /^[0-9a-f]{40}$/i.test(revision)
        ? revision.toLowerCase()
        : await resolveCommit(ctx.cwd, revision);
      const { lease, value } = await onToolLease(deps, subject, (l) =>
        clientFor(ctx, serverUrl(ctx, l)).attest(leaseCredentials(l), commit, { signal: ctx.signal }),
      );
      return {
        summary: `Attested ${commit} for ${formatSubject(lease)}.`,
        data: { subject: formatSubject(lease), ...value, sha: commit },
      };
    }),
  );
}
