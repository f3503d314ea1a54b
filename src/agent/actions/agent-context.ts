// What every agent-side action is given (environment, output, clock, stop signal) and the lookups built on it.
import { type ClaimHoldClient, createClaimHoldClient } from "../client/index.js";
import { UsageError } from "./errors.js";
import { findGitDir } from "./git.js";
import { type LeaseFile, leaseDir } from "./lease-store.js";
import { resolveSession, type Session } from "./session.js";

export interface Output {
  json: boolean;
  /** The command's result: JSON on stdout with `--json`, else the human lines. */
  result(value: Record<string, unknown>, lines: string[]): void;
  /** Progress and warnings: stderr, never mixed into `--json` stdout. */
  info(line: string): void;
}

/** The process around an action: injected so tests run it without a real process, network or clock. */
export interface AgentDeps {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Aborted with the signal name (`SIGINT`, `SIGTERM`) when the process is asked to stop. */
  signal: AbortSignal;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  fetch: typeof globalThis.fetch;
}

export interface AgentContext extends AgentDeps {
  out: Output;
  /** The agent account's GitHub token (GH_TOKEN, GITHUB_TOKEN or `gh auth token`), resolved once at the edge. */
  githubToken: string | undefined;
  /** The forge that token is for (`--forge`, `CLAIM_HOLD_FORGE`); absent: the App's default forge. */
  forge?: string;
  /** Absolute path of `bin/claim-hold.js`, for hooks that must call this same CLI. */
  binPath: string;
}

export async function gitDirOf(ctx: AgentContext): Promise<string> {
  return findGitDir(ctx.cwd);
}

export async function leaseDirOf(ctx: AgentContext): Promise<string> {
  return leaseDir(await gitDirOf(ctx));
}

export async function sessionOf(ctx: AgentContext): Promise<Session> {
  return resolveSession(ctx.env, await gitDirOf(ctx));
}

/** `CLAIM_HOLD_URL`, else the server that issued the lease at hand. */
export function serverUrl(ctx: AgentContext, lease?: LeaseFile): string {
  const url = ctx.env.CLAIM_HOLD_URL?.trim() || lease?.baseUrl;
  if (!url) throw new UsageError("CLAIM_HOLD_URL is not set (the URL of the claim-hold App)");
  return url;
}

export function clientFor(
  ctx: AgentContext,
  baseUrl: string,
  options: { retries?: number } = {},
): ClaimHoldClient {
  return createClaimHoldClient({
    baseUrl,
    githubToken: ctx.githubToken,
    ...(ctx.forge ? { forge: ctx.forge } : {}),
    fetch: ctx.fetch,
    sleep: ctx.sleep,
    random: ctx.random,
    retries: options.retries,
    userAgent: "claim-hold-cli",
  });
}

export const missingGithubTokenMessage =
  "no GitHub token: set GH_TOKEN or GITHUB_TOKEN (a token of the agent's GitHub account), or log in with `gh auth login`";

export function requireGithubToken(ctx: AgentContext): void {
  if (!ctx.githubToken) throw new UsageError(missingGithubTokenMessage);
}

export function leaseCredentials(lease: LeaseFile): { id: string; token: string } {
  return { id: lease.leaseId, token: lease.token };
}

/** Heartbeat interval: the lease's advice, or `CLAIM_HOLD_HEARTBEAT_MS` (test-only override). */
export function heartbeatIntervalMs(ctx: AgentContext, lease: LeaseFile): number {
  const override = Number(ctx.env.CLAIM_HOLD_HEARTBEAT_MS);
  if (Number.isFinite(override) && override > 0) return override;
  return lease.heartbeatIntervalSeconds * 1000;
}

/** The lease fields safe to print; the token only when explicitly asked for. */
export function describeLease(lease: LeaseFile, showToken: boolean): Record<string, unknown> {
  const { token, baseUrl: _baseUrl, version: _version, ...rest } = lease;
  return {
    subject: `${lease.repo}#${lease.issue}`,
    ...rest,
    ...(showToken ? { token } : {}),
  };
}

export function toEpochMs(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "number") return value < 1e12 ? value * 1000 : value;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}
