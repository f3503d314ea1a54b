// Answer bodies the client contract has no schema for yet (queue, next, janitor, ops), described as the server sends them.
import { z } from "zod";
import { TakeoverPendingSchema } from "../../contract/api-responses.js";
import { NextResponseSchema, PickedSchema, QueueResponseSchema } from "../../contract/queue-responses.js";

/**
 * Any error body: a machine-readable code, a sentence, and the code's own details. Each answer names
 * the codes it can send with their own schemas; this one is for a code a newer server adds.
 */
export const ErrorBody = z
  .looseObject({
    error: z.string().min(1).meta({ description: "Machine-readable code, e.g. `held`, `invalid_request`." }),
    message: z.string().meta({ description: "A sentence for the person reading the log." }),
  })
  .meta({
    description:
      "`{ error, message, ...details }`, the shape of every error. Each code has its own schema (`HeldError`, `GoneError`, …); this one also fits a code a newer `/api/v1` server adds (docs/reference/http-api.md#compatibility).",
  });

/** `claims/next`: the claim answer plus which issue was picked and why (the client's schema). */
export const NextResponse = NextResponseSchema;

/** `claims/next` with `includeTakeovers`: the takeover intent on the picked issue. */
export const NextTakeoverPending = TakeoverPendingSchema.extend({ picked: PickedSchema });

/** The queue view (the client's schema). */
export const QueueViewResponse = QueueResponseSchema;

export const SweepReportResponse = z.object({
  at: z.string(),
  installations: z.number().int(),
  examined: z.number().int(),
  actions: z.array(z.object({ subject: z.string(), action: z.string(), reason: z.string() })),
  skipped: z.number().int(),
  halted: z.boolean(),
  haltedInstallations: z.array(z.number().int()),
  pausedInstallations: z
    .array(z.number().int())
    .meta({ description: "Installations an operator paused from the dashboard: skipped by every sweep." }),
  reconciled: z.boolean(),
  dryRun: z.boolean(),
  githubRequests: z.number().int(),
  durationMs: z.number(),
});

export const HealthResponse = z.object({ status: z.literal("ok") });

export const ReadinessResponse = z.object({
  status: z.enum(["ready", "not_ready"]),
  checks: z
    .record(z.string(), z.string())
    .meta({ description: "Each dependency's state: `store`, `credentials`, `janitor` → `ok` or why not." }),
});

/** This document itself: an OpenAPI 3.1 object, described no further here. */
export const OpenApiDocumentResponse = z.looseObject({ openapi: z.string(), info: z.looseObject({}) });
