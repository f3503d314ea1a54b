// The memory store's decisions that need no state: session proof, the guards of App-made transitions, gone reasons.
import { timingSafeEqual } from "node:crypto";
import type { Actor, ClaimRecord } from "../../domain/claim.js";
import { aliveAt } from "../../domain/liveness.js";
import type { ClaimInput, GoneReason } from "../liveness-store.js";

export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function sameSession(a: Actor, b: Actor): boolean {
  return (
    a.kind === "agent" &&
    b.kind === "agent" &&
    !!a.sessionId &&
    a.sessionId === b.sessionId &&
    a.login === b.login
  );
}

/**
 * Invariant 14: the claimant proves it is the holding session with the session key whose digest the
 * record keeps, or with the lease's current token. A record restored from its claim comment has no
 * session-key digest (the marker never carries it): then only the token proves the session.
 */
export function provesSession(
  current: ClaimRecord,
  currentToken: string | undefined,
  input: ClaimInput,
): boolean {
  const byKey =
    input.sessionKeyDigest !== undefined &&
    current.sessionKeyDigest !== undefined &&
    digestsEqual(current.sessionKeyDigest, input.sessionKeyDigest);
  const byToken =
    input.leaseTokenDigest !== undefined &&
    currentToken !== undefined &&
    digestsEqual(currentToken, input.leaseTokenDigest);
  return byKey || byToken;
}

/** Why an App-made transition must leave the record alone, or null when it may proceed (end_guard in guards.lua). */
export function endGuard(
  current: ClaimRecord | null,
  generation: number,
): "missing" | "moved-on" | "not-active" | null {
  if (!current) return "missing";
  if (current.generation !== generation) return "moved-on";
  if (current.state !== "active") return "not-active";
  return null;
}

/**
 * With a required silence, whether the holder was heard from within it (still_live in guards.lua):
 * silence before the store's epoch is unknown, not proven (invariant 7).
 */
export function stillLive(
  current: ClaimRecord,
  input: { now: number; requireSilentMs?: number; storeEpoch?: number },
): boolean {
  if (input.requireSilentMs === undefined) return false;
  const since = Math.max(aliveAt(current), input.storeEpoch ?? 0);
  return input.now - since < input.requireSilentMs;
}

/**
 * A forgotten subject's record: revoked, and synced because its issue left the repository, so
 * there is nothing on GitHub left to write.
 */
export function forgottenRecord(record: ClaimRecord, now: number): ClaimRecord {
  const { takeover: _, stallAsk: __, ...kept } = record;
  return { ...kept, state: "revoked", endedAt: now, sync: "done" };
}

/** The record without `fields` (HDEL). */
export function without<K extends keyof ClaimRecord>(record: ClaimRecord, ...fields: K[]): ClaimRecord {
  const copy: Partial<ClaimRecord> = { ...record };
  for (const field of fields) delete copy[field];
  return copy as ClaimRecord;
}

export function goneReason(record: ClaimRecord): GoneReason {
  switch (record.state) {
    case "completed":
      return "completed";
    case "reaped":
      return "reaped";
    case "revoked":
      return "revoked";
    default:
      return "released";
  }
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}
