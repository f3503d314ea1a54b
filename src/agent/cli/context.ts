// What every CLI command is given: the agent context plus its parsed arguments.
import type { AgentContext, AgentDeps, Output } from "../actions/agent-context.js";
import { leaseDirOf } from "../actions/agent-context.js";
import { type LeaseFile, selectLease } from "../actions/lease-store.js";
import { parseSubject } from "../actions/subject.js";
import { redactSecrets } from "../client/index.js";

export type FlagValue = string | string[] | boolean | undefined;

export interface CommandContext extends AgentContext {
  flags: Record<string, FlagValue>;
  positionals: string[];
  /** Everything after `--` (the command of `run`). */
  rest: string[];
  /** Every GitHub token in sight (the one in use and the environment's): never printed, never sent in a note. */
  secrets: readonly (string | undefined)[];
}

export function createOutput(
  json: boolean,
  deps: Pick<AgentDeps, "stdout" | "stderr">,
  secrets: readonly (string | undefined)[],
): Output {
  return {
    json,
    result(value, lines) {
      if (json) deps.stdout.write(`${JSON.stringify(value)}\n`);
      else for (const line of lines) deps.stdout.write(`${line}\n`);
    },
    info(line) {
      deps.stderr.write(`${redactSecrets(line, secrets)}\n`);
    },
  };
}

export function stringFlag(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.flags[name];
  return typeof value === "string" ? value : undefined;
}

/** A repeatable option's values (empty when not given). */
export function listFlag(ctx: CommandContext, name: string): string[] {
  const value = ctx.flags[name];
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

/** The lease named by `--issue`, else the only lease of this worktree. */
export async function currentLease(ctx: CommandContext): Promise<{ dir: string; lease: LeaseFile }> {
  const dir = await leaseDirOf(ctx);
  const issue = stringFlag(ctx, "issue");
  return { dir, lease: await selectLease(dir, issue ? parseSubject(issue) : undefined) };
}
