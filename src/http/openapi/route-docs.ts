// Every route the server mounts, one row each: its auth, the zod schemas it parses and answers with, examples, and its error codes (docs/reference/http-api.md).
import { z } from "zod";
import {
  AttestResponseSchema,
  ClaimResponseSchema,
  HeartbeatResponseSchema,
  InventoryResponseSchema,
  ReleaseResponseSchema,
  SubjectResponseSchema,
  TakeoverPendingSchema,
  VerifyResponseSchema,
} from "../../contract/api-responses.js";
import type { ErrorCode } from "../../contract/refusals.js";
import {
  AttestBody,
  ClaimBody,
  HeartbeatBody,
  InventoryQuery,
  JanitorRunBody,
  NextBody,
  QueueQuery,
  ReleaseBody,
} from "../api-schemas.js";
import {
  HealthResponse,
  NextResponse,
  NextTakeoverPending,
  OpenApiDocumentResponse,
  QueueViewResponse,
  ReadinessResponse,
  SweepReportResponse,
} from "./documented-responses.js";
import { errorsOf, type RouteDoc } from "./route-doc.js";
import { examples } from "./route-examples.js";

const internal = ["internal"] as const;
const bodyErrors = [
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
  "invalid_request",
] as const;
const queryErrors = ["invalid_request"] as const;
const githubAuth = [
  // An unknown or unserved X-Claim-Hold-Forge.
  "invalid_request",
  "unauthorized",
  "forbidden",
  "not_installed",
  "rate_limited",
  "github_failed",
  "store_unavailable",
] as const;
const leaseAuth = [
  "unauthorized",
  "not_found",
  "superseded",
  "gone",
  "rate_limited",
  "store_unavailable",
] as const;
const claimRefusals = [
  "not_found",
  "held",
  "human_held",
  "cap_reached",
  "blocked",
  "pr_open",
  "branch_taken",
  "closed",
  "branch_not_allowed",
  "github_failed",
  "claim_state_unknown",
] as const;

const LeasePath = z.object({
  leaseId: z.string().meta({ description: "The lease's `id` from the claim answer." }),
});
const RepoPath = z.object({
  owner: z.string().meta({ description: "The repository's owner." }),
  repo: z.string().meta({ description: "The repository's name." }),
});
const IssuePath = RepoPath.extend({
  number: z.number().int().min(1).max(2_147_483_647).meta({ description: "The issue number." }),
});

const claimAnswers = {
  200: {
    description: "The same session re-claimed its live claim: same generation, a rotated token.",
    schema: ClaimResponseSchema,
    example: examples.claimRenewed,
  },
  201: {
    description: "A new claim (after a takeover: `resume` names the incumbent's branch).",
    schema: ClaimResponseSchema,
    example: examples.claimCreated,
  },
  202: {
    description: "A takeover intent was recorded; retry after `retryAfterSeconds`.",
    schema: TakeoverPendingSchema,
    example: examples.takeoverPending,
  },
} satisfies RouteDoc["answers"];

/** The table: adding a route to the server means adding its row here (the mounted-routes test insists). */
export const routeDocs: readonly RouteDoc[] = [
  {
    method: "post",
    path: "/api/v1/claims",
    operationId: "claim",
    tag: "claims",
    summary: "Claim, re-claim or take over an issue",
    description:
      "Needs `write` on the repository. A re-claim of the session's own live claim needs proof: the same `actor.sessionKey` or the current `leaseToken`.",
    auth: "github",
    body: { schema: ClaimBody, example: examples.claimRequest },
    answers: claimAnswers,
    errors: errorsOf(bodyErrors, githubAuth, claimRefusals, ["missing_capability", "failing"], internal),
  },
  {
    method: "post",
    path: "/api/v1/claims/next",
    operationId: "claimNext",
    tag: "claims",
    summary: "Pick and claim the best free issue, atomically",
    description:
      "Concurrent callers get distinct issues. Nothing eligible: `409 queue_empty` with `skipped` counts.",
    auth: "github",
    body: { schema: NextBody, example: examples.nextRequest },
    answers: {
      200: { ...claimAnswers[200], schema: NextResponse, example: examples.nextRenewed },
      201: {
        description: "The claim answer plus `picked`: which issue and why.",
        schema: NextResponse,
        example: examples.nextCreated,
      },
      202: { ...claimAnswers[202], schema: NextTakeoverPending, example: examples.nextTakeoverPending },
    },
    errors: errorsOf(bodyErrors, githubAuth, claimRefusals, ["queue_empty"], internal),
  },
  {
    method: "post",
    path: "/api/v1/leases/{leaseId}/heartbeat",
    operationId: "heartbeat",
    tag: "leases",
    summary: "Keep a lease alive and report progress",
    description:
      "The body is optional. `410 gone` carries `reason`; `409 superseded` carries `by`, `generation`, `at`. " +
      "`paused: \"budget\"` is present while the issue's spend has reached its budget and the lease waits for a person's `/budget`.",
    auth: "lease",
    pathParams: LeasePath,
    body: { schema: HeartbeatBody, example: examples.heartbeatRequest, optional: true },
    answers: {
      200: {
        description: "The lease was renewed.",
        schema: HeartbeatResponseSchema,
        example: examples.heartbeat,
      },
    },
    errors: errorsOf(bodyErrors, leaseAuth, internal),
  },
  {
    method: "post",
    path: "/api/v1/leases/{leaseId}/release",
    operationId: "release",
    tag: "leases",
    summary: "Release a lease with its outcome (idempotent)",
    auth: "lease",
    pathParams: LeasePath,
    body: { schema: ReleaseBody, example: examples.releaseRequest },
    answers: {
      200: {
        description: "Released (also for a repeated release).",
        schema: ReleaseResponseSchema,
        example: examples.release,
      },
    },
    errors: errorsOf(bodyErrors, leaseAuth, ["github_failed"], internal),
  },
  {
    method: "post",
    path: "/api/v1/leases/{leaseId}/attest",
    operationId: "attest",
    tag: "leases",
    summary: "Vouch for a commit as the current holder",
    description: "Re-runs the check for pull requests whose head is that SHA.",
    auth: "lease",
    pathParams: LeasePath,
    body: { schema: AttestBody, example: examples.attestRequest },
    answers: {
      200: { description: "The commit is attested.", schema: AttestResponseSchema, example: examples.attest },
    },
    errors: errorsOf(bodyErrors, leaseAuth, internal),
  },
  {
    method: "get",
    path: "/api/v1/leases/{leaseId}",
    operationId: "verify",
    tag: "leases",
    summary: "Verify the hold before push, pull request and merge",
    description: "Only a `200` with `holder: true` means the lease is still yours.",
    auth: "lease",
    pathParams: LeasePath,
    answers: {
      200: {
        description: "The token holds the subject.",
        schema: VerifyResponseSchema,
        example: examples.verify,
      },
    },
    errors: errorsOf(leaseAuth, internal),
  },
  {
    method: "get",
    path: "/api/v1/leases/{leaseId}/events",
    operationId: "leaseEvents",
    tag: "leases",
    summary: "Live lease events (Server-Sent Events)",
    description:
      "The lease's state first (as `GET` on the lease answers it), then `superseded`, `takeover_pending`, `revoked`, `needs_human_answered`, `budget_raised` and `stalled` as they happen; the stream ends after `superseded`, `revoked` (a reap of an expired lease included) or `released` (the holder's own release). One stream per lease: a newer one replaces it. The stream never extends the lease: keep heartbeating.",
    auth: "lease",
    pathParams: LeasePath,
    answers: {
      200: {
        description: "An event stream; each event's `data` is one JSON object carrying `leaseId`.",
        schema: z.string(),
        example:
          'event: state\ndata: {"leaseId":"42.1296269.12.3","holder":true,"generation":3,"state":"active","expiresAt":"2026-11-29T10:30:00.000Z"}\n\nevent: superseded\ndata: {"leaseId":"42.1296269.12.3","by":{"kind":"agent","login":"octo-agent","sessionId":"9a1e"},"generation":4,"at":"2026-11-29T10:12:00.000Z"}\n\n',
        textMediaType: "text/event-stream",
      },
    },
    errors: errorsOf(leaseAuth, ["too_many_streams"], internal),
  },
  {
    method: "get",
    path: "/api/v1/repos/{owner}/{repo}/claims",
    operationId: "inventory",
    tag: "reads",
    summary: "The repository's claims, one row per subject",
    description: "Needs `read`; cached per repository for a few seconds and rate limited per caller.",
    auth: "github",
    pathParams: RepoPath,
    query: InventoryQuery,
    answers: {
      200: {
        description: "Rows by most recent activity.",
        schema: InventoryResponseSchema,
        example: examples.inventory,
      },
    },
    errors: errorsOf(queryErrors, ["not_found"], githubAuth, internal),
  },
  {
    method: "get",
    path: "/api/v1/repos/{owner}/{repo}/issues/{number}/claim",
    operationId: "subject",
    tag: "reads",
    summary: "One subject's joined state with its claim history",
    auth: "github",
    pathParams: IssuePath,
    answers: {
      200: {
        description: "The subject's row and history.",
        schema: SubjectResponseSchema,
        example: examples.subject,
      },
    },
    errors: errorsOf(["not_found"], githubAuth, internal),
  },
  {
    method: "get",
    path: "/api/v1/repos/{owner}/{repo}/queue",
    operationId: "queue",
    tag: "reads",
    summary: "The ranked eligible issues, then the first skipped ones with why",
    auth: "github",
    pathParams: RepoPath,
    query: QueueQuery,
    answers: {
      200: {
        description: "The queue as `claims/next` would see it.",
        schema: QueueViewResponse,
        example: examples.queue,
      },
    },
    errors: errorsOf(queryErrors, ["not_found"], githubAuth, internal),
  },
  {
    method: "post",
    path: "/api/v1/admin/janitor/run",
    operationId: "runJanitor",
    tag: "operator",
    summary: "Run a janitor sweep now (the scheduled sweep's code path)",
    description: "Off (`404`) unless `CLAIM_HOLD_ADMIN_TOKEN` is set. The body is optional.",
    auth: "admin",
    body: { schema: JanitorRunBody, example: examples.janitorRequest, optional: true },
    answers: {
      200: { description: "The sweep report.", schema: SweepReportResponse, example: examples.sweepReport },
    },
    errors: errorsOf(
      bodyErrors,
      ["unauthorized", "not_found", "janitor_busy", "rate_limited", "store_unavailable"],
      internal,
    ),
  },
  {
    method: "get",
    path: "/api/v1/openapi.json",
    operationId: "openapi",
    tag: "ops",
    summary: "This document",
    auth: "none",
    answers: {
      200: {
        description: "The OpenAPI 3.1 document of this API.",
        schema: OpenApiDocumentResponse,
        example: examples.openapi,
      },
    },
    errors: [],
  },
  {
    method: "get",
    path: "/healthz",
    operationId: "health",
    tag: "ops",
    summary: "The process is up",
    auth: "none",
    answers: { 200: { description: "Up.", schema: HealthResponse, example: examples.health } },
    errors: [],
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "readiness",
    tag: "ops",
    summary: "Its dependencies answer (Redis reachable, credentials loaded, janitor not failing)",
    auth: "none",
    answers: {
      200: { description: "Ready.", schema: ReadinessResponse, example: examples.ready },
      503: {
        description: "Not ready; `checks` says which dependency.",
        schema: ReadinessResponse,
        example: examples.notReady,
      },
    },
    errors: [],
  },
  {
    method: "get",
    path: "/metrics",
    operationId: "metrics",
    tag: "ops",
    summary: "Prometheus metrics",
    description: "Open unless `METRICS_TOKEN` is set; then that token is the Bearer credential.",
    auth: "metrics",
    answers: {
      200: {
        description: "Prometheus text exposition.",
        schema: z.string(),
        example: examples.metrics,
        textMediaType: "text/plain; version=0.0.4; charset=utf-8",
      },
    },
    errors: ["unauthorized"],
  },
];

/**
 * Mounted on the same app but left out of the document: the dashboard is HTML for a browser session
 * (a cookie login), not an API. Probot's webhook receiver (`POST /api/github/webhooks`) is not on this
 * app at all, and its contract is GitHub's.
 */
export const undocumentedRoutes: readonly { method: string; path: string; errors?: readonly ErrorCode[] }[] =
  [
    { method: "get", path: "/" },
    { method: "get", path: "/login" },
    { method: "post", path: "/login" },
    { method: "post", path: "/logout" },
    { method: "get", path: "/dashboard/fragment" },
    { method: "get", path: "/dashboard/fleet.json" },
    { method: "get", path: "/subjects/{owner}/{repo}/{number}" },
    { method: "get", path: "/subjects/{forge}/{record}/{owner}/{repo}/{number}" },
    // The dashboard's operator actions (docs/deploy.md#operator-actions): a forged form is refused with
    // `csrf_refused`, a clear of a subject that needs no person with `no_person_needed`, a notification
    // being sent with `delivery_in_flight`: the codes no API route answers.
    {
      method: "post",
      path: "/dashboard/actions/{action}",
      errors: [
        "unauthorized",
        "csrf_refused",
        "invalid_request",
        "janitor_busy",
        "no_person_needed",
        "delivery_in_flight",
        "not_found",
      ],
    },
  ];
