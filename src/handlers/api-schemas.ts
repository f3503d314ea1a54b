// zod schemas for the HTTP API bodies (SPEC §4.2): strict, so unknown fields are rejected by name.
import { z } from "zod";
import { ReleaseOutcome, TaskClass } from "../domain/claim.js";

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

export const ClaimBody = z.strictObject({
  repo: RepoName,
  issue: z.number().int().min(1).max(2_147_483_647),
  actor: z.strictObject({
    runtime: label.optional(),
    sessionId: label,
    host: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[\w.:-]+$/, "must be a host name")
      .optional(),
  }),
  taskClass: TaskClass.default("author"),
  branch: z
    .string()
    .min(1)
    .max(255)
    .regex(/^(?!\/)(?!.*\.\.)(?!.*\/\/)[\w./-]+(?<![/.])$/, "must be a valid git branch name")
    .optional(),
  takeover: z.boolean().default(false),
  scope: z.array(z.string().min(1).max(200)).max(50).optional(),
  artifacts: z.string().min(1).max(500).optional(),
});
export type ClaimBody = z.infer<typeof ClaimBody>;

export const HeartbeatBody = z.strictObject({
  phase: z.string().min(1).max(100).optional(),
  pullRequest: z.number().int().min(1).max(2_147_483_647).optional(),
  blocker: z.string().min(1).max(300).optional(),
  waitUntil: z.iso.datetime({ offset: true }).optional(),
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

export const InventoryQuery = z.strictObject({
  state: z
    .enum([
      "active",
      "waiting",
      "awaiting-review",
      "stale",
      "reclaimable",
      "human",
      "human-idle",
      "phantom",
      "conflicted",
      "unknown",
      "free",
    ])
    .optional(),
  limit: z.coerce.number<string | undefined>().int().min(1).max(200).default(50),
});
