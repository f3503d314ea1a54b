// Heartbeats the lease of a lease file until it ends (or its live events say it ended), and records a loss in the file (`keepalive`, `run`, MCP).

import type { LeaseEvent } from "../client/index.js";
import { type AgentContext, clientFor, heartbeatIntervalMs, serverUrl, toEpochMs } from "./agent-context.js";
import { heartbeatBodyOf, isUsageRefused, recordAsk } from "./heartbeat-body.js";
import { keepLeaseAlive, type LoopEnd } from "./keep-lease-alive.js";
import { type LeaseFile, markLease, readLease } from "./lease-store.js";
import { type WatchDeps, type WatchEnd, watchLeaseEvents } from "./watch-lease-events.js";

/** What the caller hears of the live events besides a loss (the MCP server forwards them to the agent). */
export type LeaseEventHooks = Pick<WatchDeps, "onEvent" | "onUnavailable"> & {
  /** false: heartbeats alone, no live events. */
  watch?: boolean;
};

/** Runs the heartbeat loop for a lease file and records a loss in it. */
export async function keepLeaseFileAlive(
  ctx: AgentContext,
  dir: string,
  lease: LeaseFile,
  signal: AbortSignal = ctx.signal,
  hooks: LeaseEventHooks = {},
): Promise<LoopEnd> {
  const client = clientFor(ctx, serverUrl(ctx, lease), { retries: 2 });
  // The stream is a channel, not proof of life: only the heartbeats keep the lease. A loss it reports
  // stops the loop at once; a re-claim by this session keeps the lease id, so the stream stays valid.
  const watchStop = new AbortController();
  const loopStop = new AbortController();
  let heard: WatchEnd | null = null;
  const { watch = true, onEvent, ...listeners } = hooks;
  let askDropped: Promise<void> = Promise.resolve();
  const watching = (watch ? watchLeaseEvents : async () => null)({
    client,
    lease: async () => {
      const current = await readLease(dir, lease).catch(() => null);
      return current?.leaseId === lease.leaseId && current.status === "held"
        ? { id: current.leaseId, token: current.token }
        : null;
    },
    signal: AbortSignal.any([signal, watchStop.signal]),
    sleep: ctx.sleep,
    ...listeners,
    onEvent: (event) => {
      if (askClearedBy(event)) askDropped = askDropped.then(() => dropAsk(dir, lease));
      onEvent?.(event);
    },
  }).then((lost) => {
    heard = lost;
    if (lost) loopStop.abort();
  });
  const looped = await keepLeaseAlive({
    client,
    load: () => readLease(dir, lease).catch(() => null),
    intervalMs: heartbeatIntervalMs(ctx, lease),
    now: ctx.now,
    sleep: ctx.sleep,
    signal: AbortSignal.any([signal, loopStop.signal]),
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
  watchStop.abort();
  await watching;
  await askDropped;
  const lost = heard as WatchEnd | null;
  const end: LoopEnd =
    looped.kind === "stopped" && lost && !signal.aborted ? await streamLoss(dir, lease, lost) : looped;
  if (end.kind === "superseded" || end.kind === "gone" || end.kind === "expired") {
    const detail = end.error instanceof Error ? end.error.message : String(end.error ?? end.kind);
    // Marked as last beaten with: a re-claim meanwhile rotated the token the loop began with.
    await markLease(dir, end.lease ?? lease, end.kind === "superseded" ? "superseded" : "gone", detail);
  }
  return end;
}

/**
 * A person cleared the ask (the dashboard's "clear needs-human", or the label taken off): the beats
 * stop repeating it, or the next one would ask again at once. A reply leaves it: the session reads
 * the reply and withdraws the ask itself (docs/agents.md#asking-for-a-person).
 */
function askClearedBy(event: LeaseEvent): boolean {
  return event.event === "needs_human_answered" && event.data.how === "cleared";
}

async function dropAsk(dir: string, started: LeaseFile): Promise<void> {
  const current = await readLease(dir, started).catch(() => null);
  if (!current || current.leaseId !== started.leaseId || !current.needsHuman) return;
  await recordAsk(dir, current, undefined).catch(() => {});
}

/**
 * The loss the stream reported, against the lease file as it is now: the stream outlives this
 * session's re-claims, which rotate the token, and a loss is marked only on the file's current token
 * (marked with the token the loop began with, it was silently dropped). The session's own release
 * under way, or a file that no longer holds this lease, is its release, as the heartbeat loop says.
 */
async function streamLoss(dir: string, started: LeaseFile, lost: WatchEnd): Promise<LoopEnd> {
  const current = await readLease(dir, started).catch(() => null);
  if (!current || current.leaseId !== started.leaseId || current.status === "releasing") {
    return { kind: "released" };
  }
  return { ...lost, lease: current };
}
