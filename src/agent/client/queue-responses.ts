// Response bodies of `POST /api/v1/claims/next` and `GET /api/v1/repos/{o}/{r}/queue` (SPEC §4.2), lenient on added fields.
import { z } from "zod";
import { ClaimResponseSchema } from "../../contract/api-responses.js";

/** Why the server picked an issue, or ranks it where it does: `priority:p0`, `oldest`, … (a list that may grow). */
const Reasons = z
  .array(z.string())
  .nullish()
  .transform((value) => value ?? []);

/** The issue `claims/next` chose, its place in the ranking and why. */
export const PickedSchema = z.looseObject({
  issue: z.number().int().positive(),
  rank: z.number(),
  reasons: Reasons,
});
export type Picked = z.infer<typeof PickedSchema>;

/** `201` of `claims/next`: the claim answer of the picked issue, plus `picked`. */
export const ClaimNextResponseSchema = ClaimResponseSchema.extend({ picked: PickedSchema });
export type ClaimNextResponse = z.infer<typeof ClaimNextResponseSchema>;

/**
 * `409 queue_empty`'s `skipped`: how many issues each reason excluded (`held`, `human`, `blocked`,
 * `prOpen`, `filtered`, … — the server may count more reasons than these).
 */
export const SkippedCountsSchema = z.record(z.string(), z.number());
export type SkippedCounts = z.infer<typeof SkippedCountsSchema>;

/** One eligible issue of the queue, best first. */
export const QueueEntrySchema = z.looseObject({
  issue: z.number().int().positive(),
  title: z.string().nullish(),
  rank: z.number(),
  reasons: Reasons,
});
export type QueueEntry = z.infer<typeof QueueEntrySchema>;

/** One of the first skipped issues: `held`, `human`, `blocked`, `pr-open`, `filtered`, `exempt`, `over-budget`, … */
export const QueueSkipSchema = z.looseObject({
  issue: z.number().int().positive(),
  reason: z.string(),
});
export type QueueSkip = z.infer<typeof QueueSkipSchema>;

export const QueueResponseSchema = z.looseObject({
  queue: z.array(QueueEntrySchema),
  skipped: z
    .array(QueueSkipSchema)
    .nullish()
    .transform((value) => value ?? []),
  truncated: z.boolean().default(false),
});
export type QueueResponse = z.infer<typeof QueueResponseSchema>;
