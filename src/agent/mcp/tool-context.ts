// What every MCP tool is given, and the two things each one does alike: report its result and act on a lease.
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type AgentContext, leaseDirOf } from "../actions/agent-context.js";
import { callOnLease } from "../actions/call-on-lease.js";
import { isLeaseLost, UsageError } from "../actions/errors.js";
import { type LeaseFile, selectLease } from "../actions/lease-store.js";
import { formatSubject, parseSubject } from "../actions/subject.js";
import { isClaimHoldError, redactSecrets } from "../client/index.js";
import type { LeaseKeeper } from "./lease-keeper.js";

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolDeps {
  ctx: AgentContext;
  keeper: LeaseKeeper;
}

/** A tool's answer: one sentence for the model and the structured data behind it. */
export interface ToolOutcome {
  summary: string;
  data: Record<string, unknown>;
}

export const repoField = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/repo")
  .describe("The repository, as owner/repo.");

export const subjectField = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+#\d+$/, "must be owner/repo#number")
  .optional()
  .describe("Which claim, as owner/repo#number; needed only when this session holds more than one.");

/** Runs a tool: prefixes pending loss notices, turns every failure into an MCP tool error. */
export function toolHandler<A>(
  { ctx, keeper }: ToolDeps,
  run: (args: A, extra: ToolExtra) => Promise<ToolOutcome>,
): (args: A, extra: ToolExtra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      const { summary, data } = await run(args, extra);
      const notices = keeper.takeNotices();
      const text = `${summary}\n\n${JSON.stringify(data, null, 2)}`;
      return {
        content: [...notices.map((n) => ({ type: "text" as const, text: n })), { type: "text", text }],
        structuredContent: notices.length > 0 ? { ...data, lost: notices } : data,
      };
    } catch (error) {
      return errorResult(error, keeper.takeNotices(), [ctx.githubToken]);
    }
  };
}

/** The lease of this worktree a lease tool acts on; a loss found by the call is recorded and reported. */
export async function onToolLease<T>(
  { ctx, keeper }: ToolDeps,
  subject: string | undefined,
  call: (lease: LeaseFile) => Promise<T>,
): Promise<{ dir: string; lease: LeaseFile; value: T }> {
  const dir = await leaseDirOf(ctx);
  const lease = await selectLease(dir, subject ? parseSubject(subject) : undefined);
  const value = await callOnLease(dir, lease, call, () => keeper.forget(formatSubject(lease)));
  return { dir, lease, value };
}

/** An MCP tool error carrying the server's `error` code and message; a lost lease is said plainly. */
export function errorResult(
  error: unknown,
  notices: string[],
  secrets: (string | undefined)[],
): CallToolResult {
  let body: Record<string, unknown>;
  if (isClaimHoldError(error)) {
    body = { error: error.code, status: error.status, message: error.message, ...error.details };
  } else if (error instanceof UsageError) {
    body = { error: "usage", message: error.message };
  } else {
    body = { error: "internal", message: error instanceof Error ? error.message : String(error) };
  }
  const lost = isLeaseLost(error)
    ? "This session no longer holds the issue: stop working on it now — no commit, push, pull request or merge for it. "
    : "";
  const text = redactSecrets(
    `${lost}${String(body.error)}: ${String(body.message)}\n\n${JSON.stringify(body, null, 2)}`,
    secrets,
  );
  return {
    isError: true,
    content: [...notices.map((n) => ({ type: "text" as const, text: n })), { type: "text", text }],
    structuredContent: JSON.parse(redactSecrets(JSON.stringify(body), secrets)) as Record<string, unknown>,
  };
}
