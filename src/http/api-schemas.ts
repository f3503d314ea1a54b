// zod schemas for the HTTP API bodies (docs/reference/http-api.md#conventions): strict, so unknown fields are rejected by name.
import { z } from "zod";
import { needsHumanProblem } from "../budget/needs-human.js";
import { derivedStates } from "../contract/derived-states.js";
import { ReleaseOutcome, TaskClass } from "../domain/claim.js";
import { scopeGlobProblem } from "../lease/scope/glob-intersection.js";

const ownerName = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const label = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\w.:@+-]+$/, "may hold letters, digits and . _ : @ + - only");

export const RepoName = z
  .string()
  .regex(ownerName, "must be owner/name")
  .refine((v) => !v.split("/")[1]?.match(/^\.+$/), "must be owner/name");

/** C0 and C1 control characters (newlines included). */
const controlChars = /\p{Cc}/u;

/**
 * One entry of a claim's declared `scope`: a path glob relative to the repository root (`src/**`,
 * `docs/*.md`, `!src/gen/**` to exclude). Never absolute, never climbing out with `..`; within
 * `scopeGlobLimits` (wildcards, brace alternatives).
 */
export const ScopeGlob = z
  .string()
  .min(1)
  .max(200)
  .refine((glob) => !controlChars.test(glob), "must not contain control characters")
  .refine((glob) => !glob.includes("\\"), "must use / as the path separator")
  .refine(
    (glob) => !/^!?(?:\/|~|[A-Za-z]:)/.test(glob),
    "must be relative to the repository root (no leading /, ~ or drive letter)",
  )
  .refine((glob) => !glob.split("/").includes(".."), "must not contain .. segments")
  .superRefine((glob, ctx) => {
    const problem = scopeGlobProblem(glob);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** `artifacts`: an http(s) URL or a path to the session's handoff material, shown in the claim comment. */
export const Artifacts = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .refine((value) => !controlChars.test(value), "must not contain control characters")
  .refine((value) => {
    // A scheme (two letters or more; `C:` is a drive) must be http or https, never javascript: or data:.
    if (!/^[A-Za-z][A-Za-z0-9+.-]+:/.test(value)) return true;
    return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  }, "must be an http(s) URL or a path");

/** The claimant's session, as a claim and a pick name it. */
const ClaimActor = z.strictObject({
  runtime: label.optional(),
  sessionId: label,
  host: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[\w.:-]+$/, "must be a host name")
    .optional(),
  /**
   * The session's secret, chosen by the client and kept with its lease state: proof for a later
   * re-claim of a live claim (invariant 14). Stored only as a digest, never echoed.
   */
  sessionKey: z.string().min(32).max(256).optional(),
});

/**
 * One capability a caller declares (`gpu`, `python`), lower-cased: an issue labelled
 * `<queue.capabilityPrefix><capability>` needs it (docs/reference/http-api.md#capabilities).
 */
export const Capability = z
  .string()
  .min(1)
  .max(40)
  .regex(
    /^[A-Za-z0-9][\w.+-]*$/,
    "may hold letters, digits and . _ + - only, starting with a letter or digit",
  )
  .toLowerCase();

/** What a session can do; at most 20, duplicates (in any case) counted once. */
export const Capabilities = z
  .array(Capability)
  .max(20, "may list at most 20 capabilities")
  .overwrite((values) => [...new Set(values)]);

/** The `capabilities` query parameter: capabilities separated by commas. */
export function capabilitiesOfQuery(value: string | undefined): string[] {
  return Capabilities.parse(value ? value.split(",") : []);
}

export const ClaimBody = z.strictObject({
  repo: RepoName,
  issue: z.number().int().min(1).max(2_147_483_647),
  actor: ClaimActor,
  /** The lease's current token: the other proof for a re-claim (a session key does too). */
  leaseToken: z
    .string()
    .regex(/^clh_[A-Za-z0-9_-]{43}$/, "must be a lease token (clh_…)")
    .optional(),
  taskClass: TaskClass.default("author"),
  branch: z
    .string()
    .min(1)
    .max(255)
    .regex(/^(?!\/)(?!.*\.\.)(?!.*\/\/)[\w./-]+(?<![/.])$/, "must be a valid git branch name")
    .optional(),
  takeover: z.boolean().default(false),
  /** Claim although GitHub's issue dependencies list open blockers (otherwise `409 blocked`). */
  ignoreBlockers: z.boolean().default(false),
  /** Claim although someone else's open PR already closes the issue (otherwise `409 pr_open`). */
  allowOpenPullRequest: z.boolean().default(false),
  scope: z.array(ScopeGlob).max(50, "may list at most 50 globs").optional(),
  artifacts: Artifacts.optional(),
  /**
   * What the session can do. Sent: an issue needing a capability not listed is refused
   * (`409 missing_capability`); absent: the named issue is claimed whatever it needs.
   */
  capabilities: Capabilities.optional(),
  /** Claim although the subject's failure breaker tripped (otherwise `409 failing`). */
  override: z.boolean().default(false),
});
export type ClaimBody = z.infer<typeof ClaimBody>;

/** A GitHub label name (spaces and emoji allowed, as on GitHub). */
const IssueLabel = z
  .string()
  .min(1)
  .max(50)
  .refine((value) => !controlChars.test(value), "must not contain control characters");

/** `POST /api/v1/claims/next`: the repository, the session, and which issues it will take. */
export const NextBody = z.strictObject({
  repo: RepoName,
  actor: ClaimActor,
  taskClass: TaskClass.default("author"),
  /** Only issues carrying all of these (besides the repository's `queue.labels`). */
  labels: z.array(IssueLabel).max(20).optional(),
  /** No issue carrying any of these (besides the repository's `queue.excludeLabels`). */
  excludeLabels: z.array(IssueLabel).max(20).optional(),
  /** What the session can do: an issue needing a capability not listed here is skipped (`missingCapability`). */
  capabilities: Capabilities.optional(),
  /** Reclaimable agent claims are offered too, taken over and resumed on their branch. */
  includeTakeovers: z.boolean().default(false),
  scope: z.array(ScopeGlob).max(50, "may list at most 50 globs").optional(),
  artifacts: Artifacts.optional(),
});
export type NextBody = z.infer<typeof NextBody>;

/** A heartbeat's `usage`: cumulative for the lease (docs/reference/http-api.md#lease-calls). */
const HeartbeatUsage = z.strictObject({
  /** Dollars spent by the lease so far; a billion is far past any budget and stays exact in micro-dollars. */
  costUsd: z.number().min(0).max(1_000_000_000).optional(),
  tokens: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

export const HeartbeatBody = z
  .strictObject({
    phase: z.string().min(1).max(100).optional(),
    pullRequest: z.number().int().min(1).max(2_147_483_647).optional(),
    blocker: z.string().min(1).max(300).optional(),
    waitUntil: z.iso.datetime({ offset: true }).optional(),
    needsHuman: z.boolean().optional(),
    usage: HeartbeatUsage.optional(),
  })
  .superRefine((body, ctx) => {
    const problem = needsHumanProblem(body);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["blocker"] });
  });

export const ReleaseBody = z.strictObject({
  outcome: ReleaseOutcome,
  note: z.string().max(4000).optional(),
});

export const AttestBody = z.strictObject({
  sha: z.string().regex(/^[0-9a-f]{40}$/, "must be a 40-hex commit SHA"),
});

export const JanitorRunBody = z.strictObject({
  dryRun: z.boolean().default(false),
  installationId: z.number().int().positive().optional(),
});

export const QueueQuery = z.strictObject({
  limit: z.coerce.number<string | undefined>().int().min(1).max(200).default(50),
  capabilities: z
    .string()
    .max(1_000)
    .superRefine((value, ctx) => {
      const parsed = Capabilities.safeParse(value.split(","));
      if (!parsed.success) ctx.addIssue({ code: "custom", message: parsed.error.issues[0]!.message });
    })
    .optional()
    .meta({ description: "`gpu,python`: the queue as a caller declaring these capabilities sees it." }),
});

export const InventoryQuery = z.strictObject({
  state: z.enum(derivedStates).optional(),
  limit: z.coerce.number<string | undefined>().int().min(1).max(200).default(50),
});
