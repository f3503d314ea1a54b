// The failure breaker per subject (docs/reference/config.md `queue.maxFailures`): which ended generations count as failures, when the subject backs off and when it trips to a person.
import { z } from "zod";
import { Actor, type ClaimRecord } from "./claim.js";

/**
 * Why a generation counts as failed. `stalled`: a live, stalled generation taken over (`onStall:
 * reclaimable`), counted by the claim that takes it over (claim-14.lua) in the same step.
 */
export const FailureReason = z.enum(["reaped", "revoked", "stalled", "failed"]);
export type FailureReason = z.infer<typeof FailureReason>;

/** One failed generation, as the store keeps it (newest last). */
export const FailedAttempt = z.strictObject({
  generation: z.number().int().positive(),
  reason: FailureReason,
  actor: Actor,
  claimedAt: z.number().int(),
  endedAt: z.number().int(),
  branch: z.string().optional(),
  pullRequest: z.number().int().optional(),
  /** The holder's release note (`outcome: failed`), bounded. */
  note: z.string().optional(),
});
export type FailedAttempt = z.infer<typeof FailedAttempt>;

/** Attempts the store keeps per subject (the oldest drop first); `queue.maxFailures` is at most this. */
export const failuresKept = 20;
/** A release note is kept to this many characters in a failed attempt. */
export const failureNoteMax = 500;
/** The backoff doubles per failure, but never beyond this many doublings. */
const maxDoublings = 10;

export interface BreakerSettings {
  maxFailures: number;
  retryBackoffMs: number;
}

export type BreakerState =
  | { kind: "closed" }
  /** A failure is recent: the subject is offered again from `retryAt`. */
  | { kind: "backoff"; failures: number; retryAt: number }
  /** `maxFailures` reached: the subject waits for a person. */
  | { kind: "tripped"; failures: number };

/**
 * The breaker of a subject with `attempts` (oldest first) at `now`: tripped from `maxFailures`
 * failures on; otherwise backing off `retryBackoff × 2^(failures − 1)` after the last one.
 */
export function breakerOf(
  attempts: readonly Pick<FailedAttempt, "endedAt">[],
  settings: BreakerSettings,
  now: number,
): BreakerState {
  const failures = attempts.length;
  if (failures === 0) return { kind: "closed" };
  if (failures >= settings.maxFailures) return { kind: "tripped", failures };
  const last = attempts[failures - 1]!;
  const retryAt = last.endedAt + backoffMs(failures, settings.retryBackoffMs);
  return now < retryAt ? { kind: "backoff", failures, retryAt } : { kind: "closed" };
}

/** The wait after the `failures`-th failure: `retryBackoff`, doubling per failure. */
export function backoffMs(failures: number, retryBackoffMs: number): number {
  return retryBackoffMs * 2 ** Math.min(Math.max(failures - 1, 0), maxDoublings);
}

/**
 * Whether the failure just recorded (the last of `attempts`) is the one that trips the breaker:
 * exactly the `maxFailures`-th, so the summary comment is written once, by the ending write.
 */
export function tripsNow(attempts: readonly unknown[], maxFailures: number): boolean {
  return attempts.length === maxFailures;
}

/**
 * Whether a tripped breaker's trip (label and summary) is still to be written on GitHub: the count
 * is at `maxFailures` or more and no trip written covers this run of failures. A trip written
 * through a generation older than the run's first attempt belongs to an earlier run (a completed
 * release cleared the attempts since). The janitor writes what this answers true for; a subject an
 * agent holds (an `override` claim) is left until it ends.
 */
export function tripUnwritten(
  attempts: readonly Pick<FailedAttempt, "generation">[],
  tripWrittenThrough: number | undefined,
  maxFailures: number,
): boolean {
  if (attempts.length === 0 || attempts.length < maxFailures) return false;
  return tripWrittenThrough === undefined || tripWrittenThrough < attempts[0]!.generation;
}

/** How the App's failure summary comment begins (src/lease/transitions/failure-summary.ts). */
export const failureSummaryHeadline = "🧯 ";

/**
 * Whether `body`, an App comment, is the failure summary of exactly `attempts` (oldest first): its
 * last table row is the newest attempt, numbered as the count. Generations are never given twice,
 * so a summary of an earlier run never matches.
 */
export function summaryCovers(body: string, attempts: readonly Pick<FailedAttempt, "generation">[]): boolean {
  const newest = attempts.at(-1);
  if (!newest || !body.startsWith(failureSummaryHeadline)) return false;
  return body.includes(`\n| ${attempts.length} | ${newest.generation} |`);
}

/** The failure a release outcome counts as, if any. */
export function releaseFailure(outcome: string): FailureReason | null {
  return outcome === "failed" ? "failed" : null;
}

/** The attempt an ended generation leaves (as the store scripts build it from the record before the end). */
export function failedAttemptOf(
  record: Pick<ClaimRecord, "generation" | "actor" | "claimedAt" | "branch" | "pullRequest">,
  reason: FailureReason,
  endedAt: number,
  note?: string,
): FailedAttempt {
  const trimmed = note?.trim().slice(0, failureNoteMax);
  return {
    generation: record.generation,
    reason,
    actor: record.actor,
    claimedAt: record.claimedAt,
    endedAt,
    ...(record.branch !== undefined ? { branch: record.branch } : {}),
    ...(record.pullRequest !== undefined ? { pullRequest: record.pullRequest } : {}),
    ...(trimmed ? { note: trimmed } : {}),
  };
}

/** The attempts with `attempt` last, kept to the last `failuresKept`. */
export function withAttempt(attempts: readonly FailedAttempt[], attempt: FailedAttempt): FailedAttempt[] {
  return [...attempts, attempt].slice(-failuresKept);
}
