// Liveness arithmetic shared by the lease core and the janitor: pure functions of a record and a clock.
import type { ClaimRecord } from "./claim.js";

/**
 * When the holder was last known alive: its last heartbeat, or the end of the wait it reported
 * (`waitUntil`, capped by `maxWait` when it was reported) — a waiting holder is live (docs/reference/http-api.md#lease-calls).
 */
export function aliveAt(record: Pick<ClaimRecord, "lastHeartbeatAt" | "waitUntil">): number {
  return Math.max(record.lastHeartbeatAt, record.waitUntil ?? 0);
}

/** How long the holder has been silent; a heartbeat older than the store's epoch counts as at the epoch. */
export function silentFor(record: ClaimRecord, now: number, storeEpoch = 0): number {
  return now - Math.max(aliveAt(record), storeEpoch);
}

export type Liveness = "live" | "stale" | "expired" | "ended" | "human";

export function livenessOf(record: ClaimRecord, now: number, storeEpoch = 0): Liveness {
  if (record.state === "human") return "human";
  if (record.state !== "active") return "ended";
  const silent = silentFor(record, now, storeEpoch);
  if (silent < record.durations.ttlMs) return "live";
  if (silent < record.durations.reclaimAfterMs) return "stale";
  return "expired";
}

export function expiresAt(record: Pick<ClaimRecord, "lastHeartbeatAt" | "waitUntil" | "durations">): number {
  return aliveAt(record) + record.durations.ttlMs;
}

export function reclaimableAt(record: ClaimRecord): number {
  return aliveAt(record) + record.durations.reclaimAfterMs;
}
