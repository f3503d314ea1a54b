// The session id that tells one agent session from another on the same GitHub account, and the
// session's secret key that proves it (the id is public: it names branches).
import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
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

const sessionKeyPattern = /^[A-Za-z0-9_-]{32,256}$/;

/**
 * The session's secret `sessionKey` (docs/reference/http-api.md, re-claims need proof of the session), sent on every claim so the session can
 * re-claim its own live claim and nobody else can: 32 random bytes (base64url), created on first
 * use in `<gitDir>/claim-hold/session-keys/<sessionId>` (mode 0600, like the lease files).
 */
export async function resolveSessionKey(gitDir: string, sessionId: string): Promise<string> {
  const dir = join(gitDir, "claim-hold", "session-keys");
  const file = join(dir, sessionId);
  const stored = (
    await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    })
  )?.trim();
  if (stored !== undefined) {
    if (sessionKeyPattern.test(stored)) return stored;
    throw new Error(
      `session key file ${file} is unreadable; remove it (re-claiming a live claim then needs its lease file)`,
    );
  }
  const fresh = randomBytes(32).toString("base64url");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: a concurrent reader never sees a half-written key.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temporary, `${fresh}\n`, { mode: 0o600, flag: "wx" });
  try {
    await link(temporary, file);
  } catch (error) {
    // Another command of this session made it first: use theirs, so both prove the same session.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return resolveSessionKey(gitDir, sessionId);
  } finally {
    await rm(temporary, { force: true });
  }
  return fresh;
}
