// The heartbeat loop shared by `keepalive` and `run`: beat at the interval until the lease is lost.
import type { ClaimHoldClient, HeartbeatResponse } from "../client/index.js";
import { isLeaseLost, isTransient } from "./errors.js";
import type { LeaseFile } from "./lease-store.js";

export type LoopEnd =
  /** Another claim now holds the subject (409 superseded). */
  | { kind: "superseded"; error: unknown }
  /** 410: released elsewhere, reaped, revoked or expired. */
  | { kind: "gone"; error: unknown }
  /** The server stayed unreachable until the lease expired. */
  | { kind: "expired"; error: unknown }
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
      const response = await deps.client.heartbeat(
        { id: lease.leaseId, token: lease.token },
        {},
        { signal: deps.signal },
      );
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
        return superseded ? { kind: "superseded", error } : { kind: "gone", error };
      }
      if (!isTransient(error)) return { kind: "failed", error };
      const remaining = expiresAtMs - deps.now();
      if (remaining <= 0) return { kind: "expired", error };
      deps.onTransientError?.(error, expiresAtMs);
      // Keep trying, but never sleep past the moment the lease would expire.
      waitMs = Math.max(50, Math.min(deps.intervalMs, remaining));
    }
  }
}
