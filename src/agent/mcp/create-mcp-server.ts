// The MCP server of SPEC §8.1: claim-hold's tools for any MCP-capable agent runtime, on the typed client.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AgentContext } from "../actions/agent-context.js";
import type { LeaseKeeper } from "./lease-keeper.js";
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

/** The server with its tools; the caller connects it to a transport and owns its lifetime. */
export function createMcpServer({ ctx, keeper, version }: McpServerDeps): McpServer {
  const server = new McpServer({ name: "claim-hold", version }, { instructions });
  const deps = { ctx, keeper };
  registerListFreeIssues(server, deps);
  registerClaimIssue(server, deps);
  registerClaimNextIssue(server, deps);
  registerClaimStatus(server, deps);
  registerVerifyHold(server, deps);
  registerAttestCommit(server, deps);
  registerReleaseClaim(server, deps);
  registerAskHuman(server, deps);
  return server;
}
