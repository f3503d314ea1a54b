// Every `error` code the HTTP API answers, one row each: its status, the CLI's exit code, a sentence and the details its body carries.
import { z } from "zod";
import { ActorSchema } from "./api-responses.js";

/** The CLI's exit codes for a refusal (docs/reference/cli.md#exit-codes): 3 not for you now, 4 lease lost, 1 anything else. */
export type RefusalExit = 1 | 3 | 4;

export interface ErrorCodeRow {
  /** The one HTTP status this code is answered with, on every route. */
  status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503;
  exit: RefusalExit;
  summary: string;
  /** The fields the body carries beside `error` and `message`; a newer server may add more. */
  details: z.ZodRawShape;
  /** A body as the server sends it (the OpenAPI document's example for the code). */
  example: Record<string, unknown>;
}

const Timestamp = z.string().meta({ description: "ISO-8601 (UTC)." });

const exampleHolder = {
  kind: "agent",
  login: "octo-agent",
  runtime: "claude-code",
  sessionId: "5f0c",
  host: "build-7",
};

/**
 * The table. The lease core's `RefusalCode`s and the HTTP layer's own codes alike: the error answer's
 * status and the CLI's exit code are read from here (src/http/error-response.ts,
 * src/agent/cli/exit-codes.ts), and so are the OpenAPI document's per-code error schemas.
 */
export const errorCodes = {
  held: {
    status: 409,
    exit: 3,
    summary: "Another session holds the issue (or the same session without proof of it).",
    details: {
      holder: ActorSchema.optional().meta({
        description: "Absent only when the claim ended while a re-claim of it was written: claim again.",
      }),
      generation: z.number().int().positive().optional(),
      state: z.string().optional().meta({ description: "`active`, `stale` or `reclaimable`." }),
      lastHeartbeatAt: Timestamp.optional(),
      reclaimableAt: Timestamp.optional().meta({
        description: "When a takeover no longer waits for a grace beat.",
      }),
      takeoverPendingBy: ActorSchema.optional().meta({
        description: "Another claimant's takeover that waits.",
      }),
    },
    example: {
      error: "held",
      message: "octo/app#12 is held by another session.",
      holder: exampleHolder,
      generation: 3,
      state: "active",
      lastHeartbeatAt: "2026-11-29T10:00:00.000Z",
      reclaimableAt: "2026-11-29T11:00:00.000Z",
    },
  },
  human_held: {
    status: 409,
    exit: 3,
    summary: "A person holds the issue: an assignee the App did not assign, or a `/reclaim` claim.",
    details: {
      assignees: z
        .array(z.string())
        .optional()
        .meta({ description: "The assignees the App did not assign." }),
      holder: ActorSchema.optional().meta({ description: "The human claim's holder (from `/reclaim`)." }),
      generation: z.number().int().positive().optional(),
    },
    example: {
      error: "human_held",
      message: "octo/app#12 is assigned to someone the App did not assign.",
      assignees: ["mona"],
    },
  },
  cap_reached: {
    status: 409,
    exit: 3,
    summary: "The session or the account already holds its limit of live claims.",
    details: {
      limit: z.string().meta({ description: "`session` or `login`." }),
      max: z.number().int().nonnegative(),
    },
    example: {
      error: "cap_reached",
      message: "This session already holds 1 live claim(s).",
      limit: "session",
      max: 1,
    },
  },
  blocked: {
    status: 409,
    exit: 3,
    summary: 'The issue has open blockers; `"ignoreBlockers": true` overrides.',
    details: { blockers: z.array(z.looseObject({ subject: z.string(), state: z.string() })) },
    example: {
      error: "blocked",
      message: 'octo/app#12 is blocked by octo/app#9; send "ignoreBlockers": true to claim it anyway.',
      blockers: [{ subject: "octo/app#9", state: "open" }],
    },
  },
  pr_open: {
    status: 409,
    exit: 3,
    summary: "An open pull request from someone else already closes the issue.",
    details: {
      pullRequests: z.array(
        z.looseObject({ number: z.number().int().positive(), headRef: z.string(), author: z.string() }),
      ),
    },
    example: {
      error: "pr_open",
      message:
        'octo/app#12 already has an open pull request that closes it (#31); send "allowOpenPullRequest": true to claim it anyway.',
      pullRequests: [{ number: 31, headRef: "fix-parser", author: "mona" }],
    },
  },
  missing_capability: {
    status: 409,
    exit: 3,
    summary:
      "The issue needs a capability (a `needs:<capability>` label) the session's declared `capabilities` lack.",
    details: {
      missing: z
        .array(z.string())
        .meta({ description: "The capabilities the issue needs that were not declared." }),
    },
    example: {
      error: "missing_capability",
      message:
        'octo/app#12 needs gpu, which this session did not declare; claim it without "capabilities" to take it anyway.',
      missing: ["gpu"],
    },
  },
  failing: {
    status: 409,
    exit: 3,
    summary:
      'The issue failed `queue.maxFailures` times and waits for a person; `"override": true` claims it anyway.',
    details: {
      failures: z
        .number()
        .int()
        .positive()
        .meta({ description: "Failed generations counted since a person last reset the count." }),
    },
    example: {
      error: "failing",
      message: 'octo/app#12 failed 3 times and waits for a person; send "override": true to claim it anyway.',
      failures: 3,
    },
  },
  branch_taken: {
    status: 409,
    exit: 3,
    summary: "The asked-for branch is the head of another login's open pull request.",
    details: { branch: z.string(), pullRequest: z.number().int().positive(), author: z.string() },
    example: {
      error: "branch_taken",
      message:
        'The branch "agent/5f0c/12-fix-parser" is the head of @mona\'s open pull request #31; name a branch of your own. Nothing was claimed.',
      branch: "agent/5f0c/12-fix-parser",
      pullRequest: 31,
      author: "mona",
    },
  },
  queue_empty: {
    status: 409,
    exit: 3,
    summary: "`claims/next` found no issue free for this session.",
    details: {
      skipped: z.record(z.string(), z.number().int().nonnegative()).meta({
        description: "How many candidates each reason kept out (`held`, `human`, `blocked`, `prOpen`, …).",
      }),
    },
    example: {
      error: "queue_empty",
      message: "No issue of octo/app is free for this session right now.",
      skipped: { held: 3, human: 1, blocked: 2, prOpen: 0, filtered: 4, reserved: 0 },
    },
  },
  closed: {
    status: 409,
    exit: 1,
    summary: "The issue is closed.",
    details: {},
    example: { error: "closed", message: "octo/app#12 is closed." },
  },
  superseded: {
    status: 409,
    exit: 4,
    summary: "Another claim holds the issue now (or a re-claim rotated this token out): stop working on it.",
    details: {
      by: ActorSchema,
      generation: z.number().int().positive(),
      at: Timestamp,
      reason: z.string().optional().meta({ description: "`rotated`: the same session re-claimed." }),
    },
    example: {
      error: "superseded",
      message: "This lease was superseded; stop working on the subject.",
      by: { ...exampleHolder, sessionId: "9a1d", host: "build-9" },
      generation: 4,
      at: "2026-11-29T10:30:00.000Z",
    },
  },
  gone: {
    status: 410,
    exit: 4,
    summary: "The lease has ended; claim again for a new generation.",
    details: {
      reason: z.string().meta({
        description: "`released`, `reaped`, `revoked`, `completed`, `expired` or `budget_exhausted`.",
      }),
    },
    example: {
      error: "gone",
      message: "This lease has ended (reaped); claim the subject again.",
      reason: "reaped",
    },
  },
  branch_not_allowed: {
    status: 422,
    exit: 1,
    summary: "The asked-for branch does not match `check.agentBranches`.",
    details: { branch: z.string(), agentBranches: z.array(z.string()) },
    example: {
      error: "branch_not_allowed",
      message:
        'A claim\'s branch must match check.agentBranches (agent/**); "fix-parser" does not. Nothing was claimed.',
      branch: "fix-parser",
      agentBranches: ["agent/**"],
    },
  },
  not_found: {
    status: 404,
    exit: 1,
    summary: "No such issue, repository, lease or route.",
    details: {},
    example: { error: "not_found", message: "octo/app#12 is not an issue." },
  },
  not_installed: {
    status: 404,
    exit: 1,
    summary: "The App is not installed on the repository.",
    details: {},
    example: { error: "not_installed", message: "The claim-hold App is not installed on octo/app." },
  },
  claim_state_unknown: {
    status: 503,
    exit: 1,
    summary: "The issue shows a claim that no verifiable claim comment backs; nothing was changed.",
    details: {},
    example: {
      error: "claim_state_unknown",
      message:
        "octo/app#12 shows a claim, but no claim comment of this App can be verified; nothing was changed. An operator can check the claim comments, or a maintainer can `/reclaim release` the issue.",
    },
  },
  github_failed: {
    status: 502,
    exit: 1,
    summary: "GitHub refused the transition or a read failed; nothing was kept, retry is safe.",
    details: {},
    example: {
      error: "github_failed",
      message: "GitHub refused the claim on octo/app#12; nothing was kept, retry is safe.",
    },
  },
  store_unavailable: {
    status: 503,
    exit: 1,
    summary: "The claim store (Redis) is unavailable; retry shortly.",
    details: {},
    example: { error: "store_unavailable", message: "The claim store is unavailable; retry shortly." },
  },
  too_many_streams: {
    status: 503,
    exit: 1,
    summary:
      "This replica holds as many live lease streams as it allows; heartbeats alone still keep the lease.",
    details: {
      retryAfterSeconds: z.number().int().positive().meta({ description: "Also sent as `Retry-After`." }),
    },
    example: {
      error: "too_many_streams",
      message:
        "This server holds as many live lease streams as it allows; retry in 30 s or rely on heartbeats.",
      retryAfterSeconds: 30,
    },
  },
  unauthorized: {
    status: 401,
    exit: 1,
    summary: "Missing or refused credential.",
    details: {},
    example: { error: "unauthorized", message: "Send the lease token (clh_…) as a Bearer credential." },
  },
  forbidden: {
    status: 403,
    exit: 1,
    summary: "The account lacks the permission the route needs on the repository.",
    details: {
      permission: z.string().meta({
        description: "The account's permission: `admin`, `maintain`, `write`, `triage`, `read` or `none`.",
      }),
    },
    example: {
      error: "forbidden",
      message: "@octo-agent needs write permission on octo/app.",
      permission: "read",
    },
  },
  csrf_refused: {
    status: 403,
    exit: 1,
    summary:
      "A dashboard action's form came from another origin or without its session's token; nothing was changed.",
    details: {},
    example: {
      error: "csrf_refused",
      message:
        "The form's token is missing or belongs to another session. Nothing was changed; reload the dashboard and try again.",
    },
  },
  rate_limited: {
    status: 429,
    exit: 1,
    summary: "Too many failed authentications from this address, or too many reads from this login.",
    details: {
      retryAfterSeconds: z.number().int().positive().meta({ description: "Also sent as `Retry-After`." }),
    },
    example: {
      error: "rate_limited",
      message: "Too many inventory reads from your login; retry in 12 s.",
      retryAfterSeconds: 12,
    },
  },
  janitor_busy: {
    status: 409,
    exit: 1,
    summary: "A janitor sweep is running already.",
    details: {},
    example: {
      error: "janitor_busy",
      message: "A janitor sweep is running already (scheduled or operator-run); retry once it has finished.",
    },
  },
  no_person_needed: {
    status: 409,
    exit: 1,
    summary:
      'A dashboard "clear needs-human" for a subject that needs no person (no holder asks, the failure breaker has not tripped); nothing was changed.',
    details: {},
    example: {
      error: "no_person_needed",
      message:
        "octo/app#12 does not need a person: no holder asks for one and its failure breaker has not tripped. Nothing was changed.",
    },
  },
  delivery_in_flight: {
    status: 409,
    exit: 1,
    summary:
      "A dashboard action's notification delivery is being sent right now; it was left to its sender and nothing was changed.",
    details: {},
    example: {
      error: "delivery_in_flight",
      message:
        "A sender is sending the notification delivery evt_3f2a.9c1e5d7b0a42 right now (its lease ends 2026-11-29T10:01:00.000Z); it was left to it and nothing was changed. Reload the dashboard: once the try has failed, it waits for its retry again.",
    },
  },
  invalid_request: {
    status: 422,
    exit: 1,
    summary: "A field is invalid or unknown (`field` names it), or a heartbeat's usage went down.",
    details: {
      field: z.string().meta({ description: "The field, as a dotted path (`usage.costUsd`)." }),
      last: z.number().optional().meta({ description: "The last usage figure, when a lower one was sent." }),
    },
    example: {
      error: "invalid_request",
      message: 'Unknown field "actor.sessionID".',
      field: "actor.sessionID",
    },
  },
  invalid_json: {
    status: 400,
    exit: 1,
    summary: "The body is not valid JSON.",
    details: {},
    example: { error: "invalid_json", message: "The body is not valid JSON." },
  },
  payload_too_large: {
    status: 413,
    exit: 1,
    summary: "Bodies are limited to 64 KiB.",
    details: {},
    example: { error: "payload_too_large", message: "Bodies are limited to 64 KiB." },
  },
  unsupported_media_type: {
    status: 415,
    exit: 1,
    summary: "Send the body as application/json.",
    details: {},
    example: { error: "unsupported_media_type", message: "Send the body as application/json." },
  },
  internal: {
    status: 500,
    exit: 1,
    summary: "Internal error; the message carries the request id for the operator's log.",
    details: {},
    example: { error: "internal", message: "Internal error (request 7c9e6679)." },
  },
} as const satisfies Record<string, ErrorCodeRow>;

export type ErrorCode = keyof typeof errorCodes;

/** Every code, in the table's order. */
export const allErrorCodes = Object.keys(errorCodes) as ErrorCode[];

/** The codes the CLI answers with a given exit code. */
export function codesExitingWith(exit: RefusalExit): ErrorCode[] {
  return allErrorCodes.filter((code) => errorCodes[code].exit === exit);
}

/** The body schema of one code: `error` fixed to the code, `message`, and the code's details. */
export function errorBodySchemaOf(code: ErrorCode) {
  return z.looseObject({
    error: z.literal(code),
    message: z.string().meta({ description: "A sentence for the person reading the log." }),
    ...errorCodes[code].details,
  });
}
