// The heartbeat loop shared by `keepalive` and `run`: beat at the interval until the lease is lost.
import type { ClaimHoldClient, HeartbeatInput, HeartbeatResponse } from "../client/index.js";
import { isClaimHoldError } from "../client/index.js";
import { isLeaseLost, isTransient } from "./errors.js";
import type { LeaseFile } from "./lease-store.js";

/** How long a beat whose token a re-claim rotated out waits for that re-claim to store the new token. */
export const rotationSettleMs = 2_000;

export type LoopEnd =
  /**
   * Another claim now holds the subject (409 superseded). `lease` (here and below) is the lease file
   * as the loop last beat with it: after a re-claim, its token is no longer the one the loop began with.
   */
  | { kind: "superseded"; error: unknown; lease?: LeaseFile }
  /** 410: released elsewhere, reaped, revoked or expired. */
  | { kind: "gone"; error: unknown; lease?: LeaseFile }
  /** The server stayed unreachable until the lease expired. */
  | { kind: "expired"; error: unknown; lease?: LeaseFile }
  /** The lease file was removed or replaced by another lease (this session released it). */
  | { kind: "released" }
  /** Stopped by the caller's signal. */
  | { kind: "stopped" }
  /** Anything else (401, 403, a bad answer): the loop cannot know the lease is safe. */
  | { kind: "failed"; error: unknown };

export interface KeepAliveDeps {
  client: ClaimHoldClient;
  /** Re-read every beat: a re-claim rotates the token, a release removes the file. */
  load: () => Promise<LeaseFile | null>;
  intervalMs: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal: AbortSignal;
  /** When the lease expires if no beat succeeds (epoch ms). */
  expiresAtMs: number;
  toEpochMs: (value: string | number) => number | undefined;
  /** What each beat says besides "alive" (a standing ask, the runtime's usage); default nothing. */
  body?: (lease: LeaseFile) => Promise<HeartbeatInput>;
  /**
   * True when the error refused the beat's usage (lower than the lease's last): the beat is sent again
   * without it, so a runtime's bad figures never cost the lease.
   */
  usageRefused?: (error: unknown) => boolean;
  onUsageRefused?: (error: unknown) => void;
  onBeat?: (response: HeartbeatResponse) => void;
  onTransientError?: (error: unknown, expiresAtMs: number) => void;
}

/** Beats once at once, then every `intervalMs`; resolves with why it stopped. */
export async function keepLeaseAlive(deps: KeepAliveDeps): Promise<LoopEnd> {
  const first = await deps.load();
  if (!first) return { kind: "released" };
  const leaseId = first.leaseId;
  let expiresAtMs = deps.expiresAtMs;
  let waitMs = 0;

  for (;;) {
    if (waitMs > 0) {
      try {
        await deps.sleep(waitMs, deps.signal);
      } catch {
        return { kind: "stopped" };
      }
    }
    if (deps.signal.aborted) return { kind: "stopped" };
    const lease = await deps.load();
    if (!lease || lease.leaseId !== leaseId) return { kind: "released" };
    if (lease.status === "releasing") return { kind: "released" };
    if (lease.status !== "held") return { kind: lease.status, error: lease.statusDetail };

    try {
      const credentials = { id: lease.leaseId, token: lease.token };
      const body = deps.body ? await deps.body(lease) : {};
      const response = await deps.client
        .heartbeat(credentials, body, { signal: deps.signal })
        .catch((error: unknown) => {
          if (!body.usage || !deps.usageRefused?.(error)) throw error;
          deps.onUsageRefused?.(error);
          const { usage: _refused, ...withoutUsage } = body;
          return deps.client.heartbeat(credentials, withoutUsage, { signal: deps.signal });
        });
      expiresAtMs = deps.toEpochMs(response.expiresAt) ?? deps.now() + lease.ttlSeconds * 1000;
      deps.onBeat?.(response);
      waitMs = deps.intervalMs;
    } catch (error) {
      if (deps.signal.aborted) return { kind: "stopped" };
      if (isLeaseLost(error)) {
        // This session's own `release` may have raced the beat: it marks the file before calling.
        const after = await deps.load();
        if (!after || after.leaseId !== leaseId || after.status === "releasing") return { kind: "released" };
        const superseded = (error as { code?: string }).code === "superseded";
        // A re-claim by this session rotated the token under this beat: go on with the new one.
        if (superseded && rotated(error) && (await tokenReplaced(deps, lease.token))) {
          waitMs = 0;
          continue;
        }
        return superseded ? { kind: "superseded", error, lease } : { kind: "gone", error, lease };
      }
      if (!isTransient(error)) return { kind: "failed", error };
      const remaining = expiresAtMs - deps.now();
      if (remaining <= 0) return { kind: "expired", error, lease };
      deps.onTransientError?.(error, expiresAtMs);
      // Keep trying, but never sleep past the moment the lease would expire.
      waitMs = Math.max(50, Math.min(deps.intervalMs, remaining));
    }
  }
}

function rotated(error: unknown): boolean {
  return isClaimHoldError(error) && error.details.reason === "rotated";
}

/**
 * After `409 superseded` with reason rotated: true once the lease file holds a newer token. A
 * re-claim of this session writes it a moment after the server rotated the token, so a file still
 * holding the old one is read again once after a short wait; an old token that stays means someone
 * else re-claimed the lease.
 */
async function tokenReplaced(deps: KeepAliveDeps, token: string): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const lease = await deps.load();
    if (lease && lease.token !== token) return true;
    if (attempt > 0 || deps.signal.aborted) return false;
    await deps.sleep(rotationSettleMs, deps.signal).catch(() => undefined);
  }
}
