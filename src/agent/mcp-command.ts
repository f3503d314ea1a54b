// `claim-hold mcp`: the MCP server over stdio (docs/reference/cli.md) as a CLI command; its lifetime is the agent session's liveness.

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type AgentContext, leaseDirOf } from "./actions/agent-context.js";
import { UsageError } from "./actions/errors.js";
import { packageVersion } from "./actions/package-version.js";
import type { CommandSpec } from "./cli/command.js";
import { createMcpServer, mcpToolSummaries } from "./mcp/create-mcp-server.js";
import { createLeaseKeeper } from "./mcp/lease-keeper.js";

/** How long releasing the leases may delay the exit (the SDK's client waits 2 s before SIGTERM). */
const releaseTimeoutMs = 1_800;

export const mcpCommand: CommandSpec = {
  name: "mcp",
  summary: "serve claim-hold's tools to an agent runtime over MCP (stdio); heartbeats while it runs",
  arguments: [],
  options: {},
  notes: [
    "Tools:",
    ...toolLines(),
    "",
    "Every lease claimed through it is heartbeated at the advised interval for as long as the process",
    "runs; when stdin closes or on SIGTERM its leases are released with outcome handoff",
    "(CLAIM_HOLD_MCP_RELEASE_ON_EXIT=0: left to go stale instead). Leases live in .git/claim-hold/,",
    "so `claim-hold verify` and the pre-push hook work alongside. Reads CLAIM_HOLD_URL and the agent's",
    "token (GH_TOKEN, GITHUB_TOKEN or `gh auth token`); on a Gitea or Forgejo instance --forge gitea or",
    "CLAIM_HOLD_FORGE=gitea (gitea:<host> when the App serves several Gitea instances), and GH_TOKEN the",
    "agent's token on that instance (every call sends X-Claim-Hold-Forge).",
    "Logs go to stderr; stdout carries only the protocol.",
    "Each lease's live events reach the agent at once as logging notifications (a takeover: level alert,",
    "before the next heartbeat); CLAIM_HOLD_LIVE_EVENTS=0 leaves the loss to the next heartbeat.",
  ],
  needsGithubToken: true,
  async run(ctx) {
    if (ctx.out.json) throw new UsageError("mcp speaks JSON-RPC on stdout; --json does not apply");
    // Lease files need the worktree: fail at start, not at the first claim.
    const dir = await leaseDirOf(ctx);
    let server: McpServer | undefined;
    const keeper = createLeaseKeeper(ctx, dir, ({ level, subject, text, event }) => {
      server
        ?.sendLoggingMessage({
          level,
          logger: "claim-hold",
          data: { subject, message: text, ...(event ? { event: event.event, details: event.data } : {}) },
        })
        .catch(() => undefined);
    });
    server = createMcpServer({ ctx, keeper, version: packageVersion(ctx.binPath) });
    const transport = new StdioServerTransport(process.stdin, ctx.stdout as NodeJS.WriteStream);
    const why = waitForEnd(ctx);
    await server.connect(transport);
    ctx.out.info(`claim-hold mcp: serving on stdio (cwd ${ctx.cwd})`);

    const reason = await why;
    const release = ctx.env.CLAIM_HOLD_MCP_RELEASE_ON_EXIT?.trim() !== "0";
    const report = await keeper.shutdown({
      release,
      note: `The MCP server of this session stopped (${reason}); the work is handed off.`,
      timeoutMs: releaseTimeoutMs,
    });
    for (const subject of report.released) ctx.out.info(`claim-hold mcp: released ${subject} (handoff)`);
    for (const failure of report.failed) {
      ctx.out.info(`claim-hold mcp: could not release ${failure.subject}: ${failure.message}`);
    }
    await server.close().catch(() => {});
    return 0;
  },
};

/** Resolves with why the server must stop: stdin closed (the agent session ended) or a signal. */
function waitForEnd(ctx: AgentContext): Promise<string> {
  return new Promise((resolve) => {
    const done = (reason: string) => () => resolve(reason);
    process.stdin.once("end", done("stdin closed"));
    process.stdin.once("close", done("stdin closed"));
    if (ctx.signal.aborted) resolve(String(ctx.signal.reason));
    ctx.signal.addEventListener("abort", () => resolve(String(ctx.signal.reason)), { once: true });
  });
}

/** One help line per tool the server registers, so the help cannot drift from the server. */
function toolLines(): string[] {
  const tools = mcpToolSummaries();
  const width = Math.max(...tools.map((tool) => tool.name.length));
  return tools.map((tool) => `  ${tool.name.padEnd(width)}  ${tool.title}`);
}
