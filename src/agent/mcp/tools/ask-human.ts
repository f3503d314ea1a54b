// MCP tool `ask_human`: the session asks for a person, or withdraws its ask; the server's heartbeats repeat it meanwhile.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { clientFor, leaseCredentials, leaseDirOf, serverUrl } from "../../actions/agent-context.js";
import { UsageError } from "../../actions/errors.js";
import { recordAsk } from "../../actions/heartbeat-body.js";
import { formatSubject } from "../../actions/subject.js";
import { onToolLease, subjectField, type ToolDeps, toolHandler } from "../tool-context.js";

interface AskHumanArgs {
  blocker?: string;
  resolved?: boolean;
  subject?: string;
}

export function registerAskHuman(server: McpServer, deps: ToolDeps): void {
  const { ctx } = deps;
  server.registerTool(
    "ask_human",
    {
      title: "Ask a person for help",
      description:
        "Ask for a person when you are stuck on something only a human can do or decide (a secret, an " +
        "approval, an unclear requirement): say what you need in blocker. The issue is labelled, a " +
        "comment names your blocker and the maintainers are told. The ask stands until you call again " +
        "with resolved: true. Keep the claim meanwhile; do not release it.",
      inputSchema: {
        blocker: z
          .string()
          .min(1)
          .max(300)
          .optional()
          .describe("What the person should do or decide, in one or two sentences."),
        resolved: z.boolean().optional().describe("true withdraws the ask (the person answered)."),
        subject: subjectField,
      },
      annotations: { openWorldHint: true, idempotentHint: true },
    },
    toolHandler(deps, async ({ blocker, resolved, subject }: AskHumanArgs) => {
      const asking = resolved !== true;
      if (asking && !blocker?.trim())
        throw new UsageError("ask_human needs a blocker saying what the person should do");
      const input = asking ? { needsHuman: true, blocker: blocker!.trim() } : {};
      // The lease file first: the heartbeat loop repeats what it holds, so it never undoes this call.
      const { lease, value } = await onToolLease(deps, subject, async (l) => {
        await recordAsk(await leaseDirOf(ctx), l, asking ? blocker!.trim() : undefined);
        return clientFor(ctx, serverUrl(ctx, l)).heartbeat(leaseCredentials(l), input, {
          signal: ctx.signal,
        });
      });
      const name = formatSubject(lease);
      return {
        summary: asking
          ? `Asked for a person on ${name}; keep the claim and go on with anything that does not need the answer.`
          : `Withdrew the ask for a person on ${name}.`,
        data: { subject: name, needsHuman: asking, ...value },
      };
    }),
  );
}
