// Liveness arithmetic shared by the lease core and the janitor: pure functions of a record and a clock.
import type { ClaimRecord } from "../domain/claim.js";

/** How long the holder has been silent; a heartbeat older than the store's epoch counts as at the epoch. */
export function silentFor(record: ClaimRecord, now: number, storeEpoch = 0): number {
  return now - Math.max(record.lastHeartbeatAt, storeEpoch);
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

export function expiresAt(record: ClaimRecord): number {
  return record.lastHeartbeatAt + record.durations.ttlMs;
}

export function reclaimableAt(record: ClaimRecord): number {
  return record.lastHeartbeatAt + record.durations.reclaimAfterMs;
}
