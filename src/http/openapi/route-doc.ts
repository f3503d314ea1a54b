// The shape of one documented route (a row of route-docs.ts) and how its error codes group by status.
import type { z } from "zod";
import { type ErrorCode, type ErrorCodeRow, errorCodes } from "../../contract/refusals.js";

/** Which credential a route takes (docs/reference/http-api.md#authentication); `metrics` is optional, asked only when `METRICS_TOKEN` is set. */
export type RouteAuth = "github" | "lease" | "admin" | "metrics" | "none";

/** A status some error code is answered with (the refusal table's). */
export type ErrorStatus = ErrorCodeRow["status"];

export interface RouteAnswer {
  description: string;
  /** The body; a zod schema is rendered as the wire JSON it accepts (its input). */
  schema: z.ZodType;
  /** A body as the server sends it. */
  example: unknown;
  /** Not JSON: the media type of a text body (`/metrics`). */
  textMediaType?: string;
}

export interface RouteDoc {
  method: "get" | "post";
  /** OpenAPI path template (`{leaseId}` where Hono says `:leaseId`). */
  path: string;
  operationId: string;
  tag: "claims" | "leases" | "reads" | "operator" | "ops";
  summary: string;
  description?: string;
  auth: RouteAuth;
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  /** The schema the route parses its body with, with an example; `optional`: an empty body stands for `{}`. */
  body?: { schema: z.ZodType; example: unknown; optional?: boolean };
  answers: Partial<Record<200 | 201 | 202 | 503, RouteAnswer>>;
  /** The `error` codes the route may answer; their statuses come from the refusal table. */
  errors: readonly ErrorCode[];
}

/** Merges code lists, in order, without repeats. */
export function errorsOf(...sets: (readonly ErrorCode[])[]): ErrorCode[] {
  return [...new Set(sets.flat())];
}

/** A route's codes grouped by the status each is answered with, statuses ascending. */
export function errorsByStatus(codes: readonly ErrorCode[]): [ErrorStatus, ErrorCode[]][] {
  const grouped = new Map<ErrorStatus, ErrorCode[]>();
  for (const code of codes) {
    const status = errorCodes[code].status;
    grouped.set(status, [...(grouped.get(status) ?? []), code]);
  }
  return [...grouped].sort(([a], [b]) => a - b);
}
