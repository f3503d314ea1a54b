// Response bodies of the claim-hold HTTP API (docs/reference/http-api.md) as the client reads them, lenient on fields a newer server may add.
import { z } from "zod";

/**
 * ISO-8601 string, as the server sends it (docs/reference/http-api.md#conventions), or epoch
 * milliseconds: read leniently.
 */
const Timestamp = z.union([z.string(), z.number()]);

/** Who holds (or held) a subject. `login` is the GitHub account the server verified. */
export const ActorSchema = z.looseObject({
  kind: z.string().optional(),
  login: z.string().optional(),
  runtime: z.string().nullish(),
  sessionId: z.string().nullish(),
  host: z.string().nullish(),
});
export type ActorBody = z.infer<typeof ActorSchema>;

/** The lease returned once to the claimant; `token` is the only copy of the secret. */
export const LeaseSchema = z.looseObject({
  id: z.string().min(1),
  /** `owner/repo#number`. */
  subject: z.string().min(1),
  generation: z.number().int().positive(),
  token: z.string().startsWith("clh_"),
  taskClass: z.string(),
  branch: z.string().nullish(),
  ttlSeconds: z.number().positive(),
  heartbeatIntervalSeconds: z.number().positive(),
  expiresAt: Timestamp,
});
export type Lease = z.infer<typeof LeaseSchema>;

/** Present on a takeover: the successor continues the incumbent's branch. */
export const ResumeSchema = z.looseObject({
  previousActor: ActorSchema,
  previousGeneration: z.number().int().positive(),
  branch: z.string().nullable(),
  lastHeartbeatAt: Timestamp,
  /** Numbers of the pull requests the successor inherits. */
  linkedPullRequests: z.array(z.number().int()),
});
export type Resume = z.infer<typeof ResumeSchema>;

/** Another live claim in the same repository whose declared scope intersects this one. */
export const OverlapSchema = z.looseObject({
  subject: z.string(),
  holder: ActorSchema.nullish(),
  paths: z.array(z.string()).default([]),
});
export type Overlap = z.infer<typeof OverlapSchema>;

/** `200` (same session re-claimed, token rotated) or `201` (new claim). */
export const ClaimResponseSchema = z.looseObject({
  lease: LeaseSchema,
  resume: ResumeSchema.nullish().transform((value) => value ?? null),
  overlaps: z
    .array(OverlapSchema)
    .nullish()
    .transform((value) => value ?? []),
});
export type ClaimResponse = z.infer<typeof ClaimResponseSchema>;

/** `202`: a takeover intent was recorded; retry after the incumbent's grace beat. */
export const TakeoverPendingSchema = z.looseObject({
  status: z.literal("takeover_pending"),
  retryAfterSeconds: z.number().nonnegative(),
  incumbent: ActorSchema.nullish(),
});
export type TakeoverPending = z.infer<typeof TakeoverPendingSchema>;

export const HeartbeatResponseSchema = z.looseObject({
  generation: z.number().int().positive(),
  expiresAt: Timestamp,
  state: z.string(),
  /** Present while the lease is paused by its budget: held, waiting for a person's `/budget` answer. */
  paused: z.literal("budget").optional(),
  /** Present while the claim is `stalled`: when it became so (no progress for `stallAfter`). */
  stalledSince: Timestamp.optional(),
});
export type HeartbeatResponse = z.infer<typeof HeartbeatResponseSchema>;

/** `200` of a release (also of a repeated one): the outcome recorded and the lease's generation. */
export const ReleaseResponseSchema = z.looseObject({
  released: z.literal(true),
  outcome: z.string(),
  generation: z.number().int().positive(),
});
export type ReleaseResponse = z.infer<typeof ReleaseResponseSchema>;

/** `200` of an attestation: the commit now vouched for by the lease's generation. */
export const AttestResponseSchema = z.looseObject({
  attested: z.literal(true),
  sha: z.string().regex(/^[0-9a-f]{40}$/),
  generation: z.number().int().positive(),
});
export type AttestResponse = z.infer<typeof AttestResponseSchema>;

/** The verify-hold gate: only a `200` with `holder: true` means "still yours". */
export const VerifyResponseSchema = z.looseObject({
  holder: z.literal(true),
  generation: z.number().int().positive(),
  state: z.string(),
  expiresAt: Timestamp.nullish(),
});
export type VerifyResponse = z.infer<typeof VerifyResponseSchema>;

/**
 * One inventory row (docs/reference/http-api.md#get-apiv1reposownerrepoclaimsstatelimit--inventory): a
 * subject's joined state.
 */
export const ClaimRowSchema = z.looseObject({
  subject: z.string(),
  /** The title; null when GitHub's side of the row was not read. */
  title: z.string().nullish(),
  state: z.string(),
  reasons: z
    .array(z.string())
    .nullish()
    .transform((value) => value ?? []),
  actor: ActorSchema.nullish(),
  generation: z.number().int().nullish(),
  taskClass: z.string().nullish(),
  branch: z.string().nullish(),
  claimedAt: Timestamp.nullish(),
  lastHeartbeatAt: Timestamp.nullish(),
  expiresAt: Timestamp.nullish(),
  phase: z.string().nullish(),
  blocker: z.string().nullish(),
  /** What agents spent on the subject, every generation together; 0 from a server without budgets. */
  spendUsd: z.number().nullish(),
  /** Numbers of the open pull requests linked to the subject. */
  linkedPullRequests: z.array(z.number().int()).nullish(),
  /** Open PRs that close the subject but block nothing: a fork's or a reader's (the trust model). */
  outsiderPullRequests: z.array(z.looseObject({ number: z.number().int(), author: z.string() })).nullish(),
  claimAgeSeconds: z.number().nonnegative().nullish(),
  /** Logins assigned on GitHub; null when GitHub's side of the row was not read. */
  assignees: z.array(z.string()).nullish(),
  /** Present only when other live claims' declared scope intersects this claim's (reason `scope-overlap`). */
  scope: z.array(z.string()).nullish(),
  overlaps: z.array(OverlapSchema).nullish(),
});
export type ClaimRow = z.infer<typeof ClaimRowSchema>;

export const InventoryResponseSchema = z.looseObject({
  claims: z.array(ClaimRowSchema),
  truncated: z.boolean().default(false),
});
export type InventoryResponse = z.infer<typeof InventoryResponseSchema>;

/** One transition of a subject's claim history, oldest first. */
export const TransitionSchema = z.looseObject({
  at: Timestamp,
  generation: z.number().int(),
  /** `claimed`, `takeover-requested`, `superseded`, `released`, … (a list that may grow). */
  kind: z.string(),
  actor: ActorSchema.nullish(),
  note: z.string().nullish(),
});
export type Transition = z.infer<typeof TransitionSchema>;

/** One subject's joined state with its claim history. */
export const SubjectResponseSchema = ClaimRowSchema.extend({
  history: z
    .array(TransitionSchema)
    .nullish()
    .transform((value) => value ?? []),
  /**
   * The live claim's gaps between its accepted heartbeats in milliseconds, oldest first (the claim
   * counts as the first beat; the last 60; afresh for a new generation); present once it beat.
   */
  heartbeatGapsMs: z.array(z.number().int().nonnegative()).nullish(),
});
export type SubjectResponse = z.infer<typeof SubjectResponseSchema>;

/** Every error the server sends: `{ error, message, ...details }`. */
export const ErrorBodySchema = z.looseObject({
  error: z.string().min(1),
  message: z.string().optional(),
});
