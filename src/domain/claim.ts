// The claim domain: actors, task classes, subjects and the claim record every provider speaks.
import { z } from "zod";
import { releaseOutcomes, taskClasses } from "../contract/claim-vocabulary.js";

export const TaskClass = z.enum(taskClasses);
export type TaskClass = z.infer<typeof TaskClass>;

const shortText = z.string().min(1).max(100);

export const Actor = z.strictObject({
  kind: z.enum(["agent", "human"]),
  /** The verified GitHub login. */
  login: z.string().min(1).max(39),
  runtime: shortText.optional(),
  sessionId: shortText.optional(),
  host: shortText.optional(),
});
export type Actor = z.infer<typeof Actor>;

/** Lease lengths in milliseconds, fixed on a claim when it is made (refreshed at its heartbeats). */
export const Durations = z.strictObject({
  ttlMs: z.number().int().positive(),
  reclaimAfterMs: z.number().int().positive(),
  heartbeatMs: z.number().int().positive(),
});
export type Durations = z.infer<typeof Durations>;

/** An issue of another repository a PR closes (GitHub's closing references reach across repositories). */
export interface ForeignIssue {
  repoId: number;
  /** `owner/name` as GitHub names it now. */
  repo: string;
  issue: number;
}

/** Where a subject lives in the store: numeric ids, so renames and transfers never confuse it. */
export interface SubjectKey {
  installationId: number;
  repoId: number;
  issue: number;
}

/**
 * Stored lifecycle of the current incarnation. Liveness (active vs stale vs reclaimable) is never
 * stored: it is derived from `lastHeartbeatAt` and the durations.
 */
export const RecordState = z.enum(["active", "human", "released", "completed", "reaped", "revoked"]);
export type RecordState = z.infer<typeof RecordState>;

export const ReleaseOutcome = z.enum(releaseOutcomes);
export type ReleaseOutcome = z.infer<typeof ReleaseOutcome>;

export const TakeoverIntent = z.strictObject({
  claimant: Actor,
  at: z.number().int(),
  graceMs: z.number().int().nonnegative(),
  /** Digest of the claimant's session key: only that session may carry the intent on (invariant 14). */
  keyDigest: z.string().optional(),
});
export type TakeoverIntent = z.infer<typeof TakeoverIntent>;

/** The store's record of the current (or last) claim incarnation of one subject. */
export const ClaimRecord = z.strictObject({
  installationId: z.number().int().positive(),
  repoId: z.number().int().positive(),
  issue: z.number().int().positive(),
  /** `owner/name` at the time of the claim, for messages and GitHub calls. */
  repo: z.string().min(3),
  generation: z.number().int().positive(),
  state: RecordState,
  actor: Actor,
  taskClass: TaskClass,
  branch: z.string().optional(),
  /** The issue's title when claimed (shown by the dashboard, which makes no GitHub request). */
  title: z.string().max(256).optional(),
  durations: Durations,
  claimedAt: z.number().int(),
  lastHeartbeatAt: z.number().int(),
  /** HMAC-SHA256 (hex) of the lease token; absent for human claims. */
  tokenDigest: z.string().optional(),
  /**
   * Digest of a re-claim's new token, valid only once the re-claim's GitHub write landed and the
   * store promoted it (invariant 14); until then `tokenDigest` stays the lease's token.
   */
  pendingTokenDigest: z.string().optional(),
  /**
   * HMAC of the session's secret `actor.sessionKey`: proof for a re-claim. Never in a marker, so a
   * record restored from a claim comment has none (then only the lease token proves the session).
   */
  sessionKeyDigest: z.string().optional(),
  /** True when the App made the assignment itself (and so may remove it). */
  appAssigned: z.boolean(),
  /** GraphQL node id of the assigned account, so an unassignment needs no lookup. */
  assigneeNodeId: z.string().optional(),
  /**
   * `/reclaim release`: the node ids of the assignees its write removes, as decided when the
   * command ran — a retry (invariant 10) removes exactly these, never whoever is assigned by then.
   */
  releasedAssigneeNodeIds: z.array(z.string()).max(20).optional(),
  /** `pending` until the GitHub side of the last transition is known to be written. */
  sync: z.enum(["pending", "done"]),
  issueNodeId: z.string().optional(),
  commentNodeId: z.string().optional(),
  commentId: z.number().int().optional(),
  supersedes: z.number().int().optional(),
  phase: z.string().optional(),
  blocker: z.string().optional(),
  /** The holder's last heartbeat asked for a person (with `blocker`); the next one without it clears it. */
  needsHuman: z.boolean().optional(),
  /** The lease ended because the subject's spend reached its budget: its calls answer `410 budget_exhausted`. */
  budgetExhausted: z.boolean().optional(),
  /** The subject's spend reached its budget and `onExhausted` is `pause`: held, paused until a person answers `/budget`. */
  budgetPaused: z.boolean().optional(),
  waitUntil: z.number().int().optional(),
  pullRequest: z.number().int().optional(),
  phaseCommentAt: z.number().int().optional(),
  staleMarkedAt: z.number().int().optional(),
  lastPushAt: z.number().int().optional(),
  /** The last progress a heartbeat (phase change, spend increase) or a PR event of the holder showed (pushes: `lastPushAt`). */
  progressAt: z.number().int().optional(),
  /** `taskClasses.<c>.stallAfter` when claimed: no progress for this long is `stalled`; absent: off. */
  stallAfterMs: z.number().int().positive().optional(),
  /** `taskClasses.<c>.onStall` when claimed. */
  onStall: z.enum(["needs-human", "reclaimable"]).optional(),
  /** When the App first saw this generation stalled (its `stalled` notification is sent once). */
  stalledAt: z.number().int().optional(),
  /**
   * The App asks a person on the holder's behalf because this generation stalled (`onStall:
   * needs-human`): the needs-human label stands for it until progress, a person's answer or the
   * holder's own ask withdraws it (docs/reference/http-api.md#stalled).
   */
  stallAsk: z.boolean().optional(),
  scope: z.array(z.string()).optional(),
  artifacts: z.string().optional(),
  takeover: TakeoverIntent.optional(),
  endedAt: z.number().int().optional(),
  outcome: ReleaseOutcome.optional(),
  /** The actor that ended this incarnation (a successor, a janitor, a human). */
  endedBy: Actor.optional(),
});
export type ClaimRecord = z.infer<typeof ClaimRecord>;

/** One entry of a subject's claim history. */
export const Transition = z.strictObject({
  at: z.number().int(),
  generation: z.number().int(),
  kind: z.enum([
    "claimed",
    "reclaimed",
    "takeover-requested",
    "superseded",
    "released",
    "completed",
    "reaped",
    "revoked",
    "restored",
    "rolled-back",
  ]),
  actor: Actor.optional(),
  note: z.string().optional(),
});
export type Transition = z.infer<typeof Transition>;

export function subjectName(repo: string, issue: number): string {
  return `${repo}#${issue}`;
}

/** Lease ids carry their subject and generation, so the lease routes need no lookup table. */
export function leaseIdOf(key: SubjectKey, generation: number): string {
  return `${key.installationId}.${key.repoId}.${key.issue}.${generation}`;
}

export function parseLeaseId(leaseId: string): (SubjectKey & { generation: number }) | null {
  // Generations go up to 2^31 (markers cap theirs just below), so every minted lease id parses.
  const match = /^(\d{1,15})\.(\d{1,15})\.(\d{1,10})\.(\d{1,10})$/.exec(leaseId);
  if (!match) return null;
  const [installationId, repoId, issue, generation] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
  ];
  if ([installationId, repoId, issue, generation].some((n) => !Number.isSafeInteger(n) || n <= 0))
    return null;
  if (issue > 2 ** 31 || generation > 2 ** 31) return null;
  return { installationId, repoId, issue, generation };
}
