// Response bodies of `claims/next` and the queue view (docs/reference/http-api.md#claims, #reads) as the client reads them, lenient on fields a newer server may add.
import { z } from "zod";
import { ClaimResponseSchema } from "./api-responses.js";

/** Which issue a pick chose, where it stood among the eligible ones (1 = first), and why. */
export const PickedSchema = z.looseObject({
  issue: z.number().int().positive(),
  rank: z.number().int().positive(),
  /** e.g. `priority:p0`, `unprioritized`, `oldest` | `newest`, `takeover`. */
  reasons: z.array(z.string()),
});
export type Picked = z.infer<typeof PickedSchema>;

/** `201` of `POST /api/v1/claims/next`: the claim answer plus `picked`. */
export const NextResponseSchema = ClaimResponseSchema.extend({ picked: PickedSchema });
export type NextResponse = z.infer<typeof NextResponseSchema>;

/** `409 queue_empty`'s `skipped`: how many candidates each reason kept out (`reserved`: taken by a concurrent pick). */
export const QueueSkippedCountsSchema = z.record(z.string(), z.number().int().min(0));

/** `GET /api/v1/repos/{owner}/{repo}/queue`. */
export const QueueResponseSchema = z.looseObject({
  queue: z.array(
    z.looseObject({
      issue: z.number().int().positive(),
      title: z.string(),
      rank: z.number().int().positive(),
      reasons: z.array(z.string()),
    }),
  ),
  skipped: z.array(
    z.looseObject({
      issue: z.number().int().positive(),
      /** `held` | `human` | `blocked` | `pr-open` | `filtered` | `missingCapability` | `exempt` | `over-budget` | `failing` | `sub-issues` | `closed`. */
      reason: z.string(),
      /** With `missingCapability`: the capabilities the issue needs that the view's caller did not declare. */
      missing: z.array(z.string()).optional(),
    }),
  ),
  truncated: z.boolean(),
});
export type QueueResponse = z.infer<typeof QueueResponseSchema>;
