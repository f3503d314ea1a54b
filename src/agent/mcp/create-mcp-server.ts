// The MCP server (docs/reference/cli.md): claim-hold's tools for any MCP-capable agent runtime, on the typed client.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AgentContext } from "../actions/agent-context.js";
import type { LeaseKeeper } from "./lease-keeper.js";
import type { ToolDeps } from "./tool-context.js";
import { registerAskHuman } from "./tools/ask-human.js";
import { registerAttestCommit } from "./tools/attest-commit.js";
import { registerClaimIssue } from "./tools/claim-issue.js";
import { registerClaimNextIssue } from "./tools/claim-next-issue.js";
import { registerClaimStatus } from "./tools/claim-status.js";
import { registerListFreeIssues } from "./tools/list-free-issues.js";
import { registerReleaseClaim } from "./tools/release-claim.js";
import { registerVerifyHold } from "./tools/verify-hold.js";

export interface McpServerDeps {
  ctx: AgentContext;
  keeper: LeaseKeeper;
  version: string;
}

const instructions =
  "claim-hold keeps one GitHub issue per agent session. Get work with claim_next_issue (claim-hold picks " +
  "the best free issue and claims it; queueEmpty means there is nothing to do), or claim a named issue " +
  "with claim_issue, before working on it, and work only on the branch it returns; this server heartbeats the claim for as long as it " +
  "runs, so the claim lives exactly as long as this session. Call verify_hold before every push, pull " +
  "request and merge, attest_commit after pushing, ask_human when only a person can unblock you, and " +
  "release_claim when done. If any tool result " +
  "says the session LOST an issue, stop working on that issue at once.";

/** Every tool of the server, in the order it lists them. */
const toolRegistrations: readonly ((server: McpServer, deps: ToolDeps) => void)[] = [
  registerListFreeIssues,
  registerClaimIssue,
  registerClaimNextIssue,
  registerClaimStatus,
  registerVerifyHold,
  registerAttestCommit,
  registerReleaseClaim,
  registerAskHuman,
];

/** The server with its tools; the caller connects it to a transport and owns its lifetime. */
export function createMcpServer({ ctx, keeper, version }: McpServerDeps): McpServer {
  // Logging: the lease keeper tells the agent of a lost lease and the live lease events as they happen.
  const server = new McpServer(
    { name: "claim-hold", version },
    { instructions, capabilities: { logging: {} } },
  );
  for (const register of toolRegistrations) register(server, { ctx, keeper });
  return server;
}

export interface McpToolSummary {
  name: string;
  title: string;
}

/**
 * The tools the server registers, read from the registrations themselves (for `mcp --help`): each one is
 * run against a recorder that keeps the name and title; no handler runs, so no context is needed.
 */
export function mcpToolSummaries(): McpToolSummary[] {
  const tools: McpToolSummary[] = [];
  const recorder = {
    registerTool(name: string, config: { title?: string }) {
      tools.push({ name, title: config.title ?? name });
    },
  } as unknown as McpServer;
  for (const register of toolRegistrations) register(recorder, {} as ToolDeps);
  return tools;
}
