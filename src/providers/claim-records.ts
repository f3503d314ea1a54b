// The records every claim store writes and the limits they share, so new records look alike in each.
import type { ClaimRecord, Durations } from "../domain/claim.js";
import type { WriteMark } from "./app-stores.js";
import type { HumanClaimInput } from "./app-transition-types.js";
import type { ClaimInput } from "./liveness-store.js";

/** True when the record is no longer the one the write was decided for (no record: nothing moved). */
export function movedOnFrom(record: ClaimRecord | null, mark: WriteMark): boolean {
  if (!record) return false;
  return (
    record.generation !== mark.generation ||
    record.state !== mark.state ||
    (record.staleMarkedAt !== undefined) !== mark.stale
  );
}

/** Transitions kept per subject (newest first). */
export const historyLimit = 50;

/** A takeover intent keeps its place for two grace beats; after that another claimant may replace it. */
export const takeoverIntentLifetimeFactor = 2;

/** Gaps between a generation's heartbeats kept for the dashboard's sparkline (the last ones, oldest first). */
export const heartbeatGapsKept = 60;

/** How long a subject's heartbeat gaps outlive its last beat (Redis lets the key lapse; an ended claim's stay readable until then). */
export const heartbeatGapsTtlMs = 7 * 24 * 60 * 60 * 1000;

/** Rotated-out tokens recognised per generation (answered `superseded`, reason rotated); older ones get 401. */
export const rotatedTokensKept = 4;

/** The record a `created` claim writes (shared by every store so new records look alike). */
export function newClaimRecord(
  input: ClaimInput,
  generation: number,
  current: ClaimRecord | null,
): ClaimRecord {
  const { now } = input;
  return {
    installationId: input.key.installationId,
    repoId: input.key.repoId,
    issue: input.key.issue,
    repo: input.repo,
    generation,
    state: "active",
    actor: input.actor,
    taskClass: input.taskClass,
    durations: input.durations,
    claimedAt: now,
    lastHeartbeatAt: now,
    tokenDigest: input.tokenDigest,
    ...(input.sessionKeyDigest ? { sessionKeyDigest: input.sessionKeyDigest } : {}),
    appAssigned: input.appAssigned,
    sync: "pending",
    ...(input.branch ? { branch: input.branch } : {}),
    ...(input.stall ? { stallAfterMs: input.stall.afterMs, onStall: input.stall.onStall } : {}),
    ...(input.title ? { title: input.title.slice(0, 256) } : {}),
    ...(input.issueNodeId ? { issueNodeId: input.issueNodeId } : {}),
    ...(input.assigneeNodeId ? { assigneeNodeId: input.assigneeNodeId } : {}),
    ...(input.scope?.length ? { scope: input.scope } : {}),
    ...(input.artifacts ? { artifacts: input.artifacts } : {}),
    ...(current ? { supersedes: current.generation } : {}),
  };
}

/** Lease lengths a human claim gets when there is no previous record to copy them from (§2.1 author). */
export const humanClaimDurations: Durations = {
  ttlMs: 30 * 60_000,
  reclaimAfterMs: 60 * 60_000,
  heartbeatMs: 5 * 60_000,
};

/** The record a `/reclaim` writes (shared by every store); `current` lends its durations and branch. */
export function newHumanRecord(
  input: HumanClaimInput,
  generation: number,
  current: ClaimRecord | null,
): ClaimRecord {
  const { now } = input;
  return {
    installationId: input.key.installationId,
    repoId: input.key.repoId,
    issue: input.key.issue,
    repo: input.repo,
    generation,
    state: input.release ? "released" : "human",
    actor: input.actor,
    taskClass: "author",
    durations: current ? current.durations : humanClaimDurations,
    claimedAt: now,
    lastHeartbeatAt: now,
    appAssigned: input.appAssigned,
    sync: "pending",
    ...(current?.branch ? { branch: current.branch } : {}),
    ...(input.title ? { title: input.title.slice(0, 256) } : {}),
    ...(input.issueNodeId ? { issueNodeId: input.issueNodeId } : {}),
    ...(input.assigneeNodeId ? { assigneeNodeId: input.assigneeNodeId } : {}),
    ...(input.releasedAssigneeNodeIds?.length
      ? { releasedAssigneeNodeIds: [...input.releasedAssigneeNodeIds] }
      : {}),
    ...(current ? { supersedes: current.generation } : {}),
    ...(input.release ? { outcome: "abandoned" as const, endedAt: now, endedBy: input.actor } : {}),
  };
}

/** PX needs a positive whole number of milliseconds; both stores refuse anything else alike. */
export function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive whole number of milliseconds, got ${ttlMs}`);
  }
}

export function encodeDocument(name: string, value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`the document "${name}" has no JSON form`);
  return json;
}
