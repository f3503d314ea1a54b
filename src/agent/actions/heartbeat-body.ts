// What the heartbeats of a lease file say besides "alive": the session's standing ask for a person, and the runtime's usage.
import { readFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { type HeartbeatInput, isClaimHoldError } from "../client/index.js";
import type { AgentContext } from "./agent-context.js";
import { type LeaseFile, readLease, writeLease } from "./lease-store.js";

/** The environment variable naming the JSON file the agent runtime keeps its usage in (docs/reference/cli.md). */
export const usageFileVariable = "CLAIM_HOLD_USAGE_FILE";

/** The usage file: cumulative figures for the session's current lease; other fields are the runtime's own. */
const UsageFile = z.looseObject({
  costUsd: z.number().min(0).max(1_000_000_000).optional(),
  tokens: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

export type UsageReading =
  | { kind: "none" }
  | { kind: "usage"; usage: NonNullable<HeartbeatInput["usage"]> }
  /** Unreadable right now (half-written, not JSON, wrong shape): the beat goes without usage. */
  | { kind: "unreadable"; path: string; reason: string };

/** Reads `CLAIM_HOLD_USAGE_FILE` when it is set; a file the runtime has not written yet is no usage. */
export async function readUsageFile(ctx: Pick<AgentContext, "env" | "cwd">): Promise<UsageReading> {
  const named = ctx.env[usageFileVariable]?.trim();
  if (!named) return { kind: "none" };
  const path = isAbsolute(named) ? named : join(ctx.cwd, named);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "none" };
    return { kind: "unreadable", path, reason: (error as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "unreadable", path, reason: "not JSON" };
  }
  const parsed = UsageFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: "unreadable", path, reason: `${issue?.path.join(".") || "(file)"}: ${issue?.message}` };
  }
  const { costUsd, tokens } = parsed.data;
  if (costUsd === undefined && tokens === undefined) return { kind: "none" };
  return {
    kind: "usage",
    usage: { ...(costUsd !== undefined ? { costUsd } : {}), ...(tokens !== undefined ? { tokens } : {}) },
  };
}

/**
 * The body of a loop's heartbeat: the ask the session made (`heartbeat --needs-human`, `ask_human`)
 * repeated while it stands, since a heartbeat without it withdraws it; and the usage file's figures.
 */
export async function heartbeatBodyOf(ctx: AgentContext, lease: LeaseFile): Promise<HeartbeatInput> {
  const reading = await readUsageFile(ctx);
  if (reading.kind === "unreadable") {
    ctx.out.info(`usage file ${reading.path} unreadable (${reading.reason}); heartbeat sent without usage`);
  }
  return {
    ...(lease.needsHuman ? { needsHuman: true, blocker: lease.needsHuman } : {}),
    ...(reading.kind === "usage" ? { usage: reading.usage } : {}),
  };
}

/** True when the server refused the heartbeat's usage (422 on `usage.*`: lower than the lease's last). */
export function isUsageRefused(error: unknown): boolean {
  return (
    isClaimHoldError(error) && error.status === 422 && String(error.details.field ?? "").startsWith("usage")
  );
}

/** Keeps (or, with no blocker, withdraws) the session's ask in its lease file, if the file still holds that lease. */
export async function recordAsk(dir: string, lease: LeaseFile, blocker: string | undefined): Promise<void> {
  const current = await readLease(dir, lease).catch(() => null);
  if (!current || current.leaseId !== lease.leaseId || current.token !== lease.token) return;
  const { needsHuman: _previous, ...rest } = current;
  await writeLease(dir, { ...rest, ...(blocker ? { needsHuman: blocker } : {}) });
}
