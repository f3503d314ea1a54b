// The session id that tells one agent session from another on the same GitHub account.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Environment variables read in this order; the first non-empty one wins. `CLAIM_HOLD_SESSION_ID`
 * is the explicit override, the others are set by agent runtimes.
 */
export const sessionEnvVars: readonly { name: string; runtime?: string }[] = [
  { name: "CLAIM_HOLD_SESSION_ID" },
  { name: "CLAUDE_SESSION_ID", runtime: "claude-code" },
  { name: "CLAUDE_CODE_SESSION_ID", runtime: "claude-code" },
  { name: "CODEX_SESSION_ID", runtime: "codex" },
  { name: "OPENCODE_SESSION_ID", runtime: "opencode" },
];

export interface Session {
  sessionId: string;
  /** `claude-code`, `codex`, … when known (or `CLAIM_HOLD_RUNTIME`). */
  runtime?: string;
  /** Where the id came from: an env variable name or the worktree file. */
  source: string;
}

/** The id must fit the server's 100-character limit and a git branch name. */
function clean(value: string): string {
  return value
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 64);
}

function runtimeFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  if (env.CLAIM_HOLD_RUNTIME) return env.CLAIM_HOLD_RUNTIME;
  if (env.CLAUDECODE) return "claude-code";
  return undefined;
}

/** Reads the session id from the runtime's env, else from (or into) `<gitDir>/claim-hold/session-id`. */
export async function resolveSession(env: NodeJS.ProcessEnv, gitDir: string): Promise<Session> {
  for (const candidate of sessionEnvVars) {
    const value = clean(env[candidate.name] ?? "");
    if (value) {
      return { sessionId: value, runtime: runtimeFromEnv(env) ?? candidate.runtime, source: candidate.name };
    }
  }
  const dir = join(gitDir, "claim-hold");
  const file = join(dir, "session-id");
  const stored = clean(await readFile(file, "utf8").catch(() => ""));
  if (stored) return { sessionId: stored, runtime: runtimeFromEnv(env), source: file };
  const fresh = randomBytes(6).toString("hex");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${fresh}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    // Another command of this worktree wrote it first: use theirs, so both agree.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return resolveSession(env, gitDir);
  }
  return { sessionId: fresh, runtime: runtimeFromEnv(env), source: file };
}
