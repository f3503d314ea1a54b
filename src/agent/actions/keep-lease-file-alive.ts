// Heartbeats the lease of a lease file until it ends, and records a loss in the file (`keepalive`, `run`, MCP).
import { type AgentContext, clientFor, heartbeatIntervalMs, serverUrl, toEpochMs } from "./agent-context.js";
import { heartbeatBodyOf, isUsageRefused } from "./heartbeat-body.js";
import { keepLeaseAlive, type LoopEnd } from "./keep-lease-alive.js";
import { type LeaseFile, markLease, readLease } from "./lease-store.js";

/** Runs the heartbeat loop for a lease file and records a loss in it. */
export async function keepLeaseFileAlive(
  ctx: AgentContext,
  dir: string,
  lease: LeaseFile,
  signal: AbortSignal = ctx.signal,
): Promise<LoopEnd> {
  const end = await keepLeaseAlive({
    client: clientFor(ctx, serverUrl(ctx, lease), { retries: 2 }),
    load: () => readLease(dir, lease).catch(() => null),
    intervalMs: heartbeatIntervalMs(ctx, lease),
    now: ctx.now,
    sleep: ctx.sleep,
    signal,
    expiresAtMs: toEpochMs(lease.expiresAt) ?? ctx.now() + lease.ttlSeconds * 1000,
    toEpochMs,
    body: (current) => heartbeatBodyOf(ctx, current),
    usageRefused: isUsageRefused,
    onUsageRefused: (error) =>
      ctx.out.info(
        `the server refused the usage file's figures (${(error as Error).message}); beat sent without them`,
      ),
    onTransientError: (error, expiresAtMs) =>
      ctx.out.info(
        `heartbeat failed (${(error as Error).message}); retrying until the lease expires at ${new Date(expiresAtMs).toISOString()}`,
      ),
  });
  if (end.kind === "superseded" || end.kind === "gone" || end.kind === "expired") {
    const detail = end.error instanceof Error ? end.error.message : String(end.error ?? end.kind);
    // Marked as last beaten with: a re-claim meanwhile rotated the token the loop began with.
    await markLease(dir, end.lease ?? lease, end.kind === "superseded" ? "superseded" : "gone", detail);
  }
  return end;
}
