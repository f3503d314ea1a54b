// The per-repository `.github/claim-hold.yml` schema; defaults come from `RepoConfig.parse({})`.
import { z } from "zod";
import type { Durations, TaskClass } from "../domain/claim.js";
import { type OnStall, onStallActions } from "../domain/stall.js";
import { DurationMs, maxTtlMs, minTtlMs } from "./durations.js";

const TaskClassDurations = (ttl: string, reclaimAfter: string, heartbeat: string) =>
  z
    .strictObject({
      /** Stale after this long without a heartbeat. */
      ttl: DurationMs.prefault(ttl),
      /** Reclaimable (reaped by the janitor) after this long without a heartbeat. */
      reclaimAfter: DurationMs.prefault(reclaimAfter),
      /** How often the holder is advised to heartbeat; also the takeover grace beat. */
      heartbeat: DurationMs.prefault(heartbeat),
      /** A live claim without progress (push, PR, phase change, spend increase) for this long is `stalled`; null: off. */
      stallAfter: DurationMs.nullable().default(null),
      /** `needs-human` asks a person; `reclaimable` also lets another session take the claim over while it heartbeats. */
      onStall: z.enum(onStallActions).default("needs-human"),
    })
    .prefault({})
    .superRefine((d, ctx) => {
      if (d.ttl < minTtlMs || d.ttl > maxTtlMs) {
        ctx.addIssue({ code: "custom", message: "ttl must be between 10s and 24h", path: ["ttl"] });
      }
      if (d.reclaimAfter < d.ttl || d.reclaimAfter > 2 * maxTtlMs) {
        ctx.addIssue({
          code: "custom",
          message: "reclaimAfter must be at least ttl and at most 48h",
          path: ["reclaimAfter"],
        });
      }
      if (d.stallAfter !== null && d.stallAfter < d.heartbeat) {
        ctx.addIssue({
          code: "custom",
          message: "stallAfter must be at least heartbeat",
          path: ["stallAfter"],
        });
      }
      if (d.heartbeat <= 0 || d.heartbeat >= d.ttl) {
        ctx.addIssue({ code: "custom", message: "heartbeat must be shorter than ttl", path: ["heartbeat"] });
      }
    });

const BudgetLimits = z
  .strictObject({
    /** One `budget-warn` notification when a subject's spend crosses this. */
    warnUsd: z.number().positive().nullable().default(null),
    /** What a subject's spend reaching this does to its lease (`onExhausted`), judged against a `/budget` raise when one was made. */
    maxUsd: z.number().positive().nullable().default(null),
    /**
     * `pause` (default): the lease stays held, paused, until a person raises the subject's limit with
     * `/budget`; `end`: the lease ends `410 budget_exhausted`.
     */
    onExhausted: z.enum(["end", "pause"]).default("pause"),
  })
  .prefault({});

/** The notification events (docs/deploy.md#what-a-sink-receives). */
export const NotifyEvent = z.enum([
  "takeover",
  "superseded-pr",
  "stale",
  "reaped",
  "needs-human",
  "budget-warn",
  "budget-exhausted",
  "janitor-halted",
  "stalled",
]);
export type NotifyEvent = z.infer<typeof NotifyEvent>;
const defaultNotifyEvents: NotifyEvent[] = [
  "takeover",
  "superseded-pr",
  "reaped",
  "needs-human",
  "budget-exhausted",
  "janitor-halted",
  "stalled",
];

export const RepoConfig = z.strictObject({
  /** Names of the managed labels. */
  labels: z
    .strictObject({
      claimed: z.string().min(1).max(50).default("agent:claimed"),
      stale: z.string().min(1).max(50).default("agent:stale"),
      /** Shown while the holder asks for a person (heartbeat `needsHuman`). */
      needsHuman: z.string().min(1).max(50).default("agent:needs-human"),
      /** Set when a subject's spend reached `budgets.<class>.maxUsd`; `claims/next` skips it until a human removes it. */
      overBudget: z.string().min(1).max(50).default("agent:over-budget"),
    })
    .prefault({}),
  /**
   * Durations per task class ("Durations" in docs/reference/config.md#per-repository-githubclaim-holdyml).
   */
  taskClasses: z
    .strictObject({
      author: TaskClassDurations("30m", "60m", "5m"),
      reviewer: TaskClassDurations("15m", "30m", "3m"),
      merger: TaskClassDurations("10m", "20m", "2m"),
      "conflict-fix": TaskClassDurations("20m", "40m", "4m"),
    })
    .prefault({}),
  janitor: z
    .strictObject({
      /** Turns the janitor off for this repository. */
      enabled: z.boolean().default(true),
      /** `relabel` only marks stale claims; `unassign` also reaps reclaimable ones. */
      mode: z.enum(["relabel", "unassign"]).default("unassign"),
      /** Report what would be done, change nothing on GitHub. */
      dryRun: z.boolean().default(false),
      /** A sweep that would reap more than this fraction (and more than 5) of the claims halts. */
      maxReapFraction: z.number().min(0).max(1).default(0.55),
      /** Subjects carrying one of these labels are never touched. */
      exemptLabels: z.array(z.string().min(1)).max(20).default(["claim-hold:pinned"]),
      /** GitHub writes per minute per installation. */
      maxWritesPerMinute: z.number().int().min(1).max(600).default(60),
    })
    .prefault({}),
  limits: z
    .strictObject({
      /** Live claims one agent session may hold at once. */
      claimsPerSession: z.number().int().min(1).max(100).default(1),
      /** Live claims one GitHub login may hold at once (all its sessions together). */
      claimsPerLogin: z.number().int().min(1).max(10_000).default(50),
    })
    .prefault({}),
  reclaim: z
    .strictObject({
      /** Repository permission a commenter needs for `/reclaim`. */
      permission: z.enum(["read", "triage", "write", "maintain", "admin"]).default("write"),
    })
    .prefault({}),
  check: z
    .strictObject({
      /** Fail PR heads on an agent branch that the current holder has not attested. */
      requireAttestation: z.boolean().default(true),
      /** Branches starting with this belong to agent sessions (kept for older files: `<prefix>**` joins `agentBranches`). */
      agentBranchPrefix: z.string().min(1).default("agent/"),
      /**
       * Globs of the branches agent claims may name (`422 branch_not_allowed` otherwise); a person's
       * PR on a branch outside them is never judged by a claim (docs/security.md#trust-model).
       */
      agentBranches: z.array(z.string().min(1).max(255)).min(1).max(20).default(["agent/**"]),
    })
    .prefault({}),
  /** Fleet logins beyond those learned from agent claims: accounts that run agents, never people. */
  agents: z
    .strictObject({
      logins: z.array(z.string().min(1).max(39)).max(500).default([]),
    })
    .prefault({}),
  /** Days without activity after which a human-held subject is reported `human-idle`. */
  humanIdleDays: z.number().min(0).max(365).default(3),
  /** Longest `waitUntil` a holder may report, counted from now. */
  maxWait: DurationMs.prefault("24h"),
  /**
   * What `claims/next` offers and in which order
   * (docs/reference/http-api.md#post-apiv1claimsnext--claim-the-best-free-issue).
   */
  queue: z
    .strictObject({
      /** Priority labels, most urgent first; an issue without one ranks after all of them. */
      priority: z.array(z.string().min(1).max(50)).max(20).default(["p0", "p1", "p2", "p3"]),
      /** Within one priority: `oldest` (created first) or `newest` first; ties by issue number. */
      order: z.enum(["oldest", "newest"]).default("oldest"),
      /** An issue must carry all of these to be offered. */
      labels: z.array(z.string().min(1).max(50)).max(20).default([]),
      /** An issue carrying any of these is never offered. */
      excludeLabels: z.array(z.string().min(1).max(50)).max(20).default([]),
      /**
       * An issue labelled `<capabilityPrefix><capability>` (`needs:gpu`) goes only to a `claims/next`
       * caller that declares the capability (docs/reference/http-api.md#capabilities).
       */
      capabilityPrefix: z
        .string()
        .min(1)
        .max(30)
        .refine((v) => v.trim() === v, "must not start or end with spaces")
        .default("needs:"),
      /** A direct claim refreshes an index older than this before deciding (its blockers must be known). */
      maxIndexAge: DurationMs.prefault("15m"),
      /**
       * Failed generations (reaped, revoked for lost permission, stalled and taken over, released
       * `failed`) after which the subject leaves the queue for a person (`agent:needs-human`).
       */
      maxFailures: z.number().int().min(1).max(10).default(3),
      /** The wait before a failed subject is offered again; it doubles per failure. */
      retryBackoff: DurationMs.prefault("10m"),
    })
    .prefault({}),
  /**
   * Spend limits per task class, per subject, summed across generations (docs/agents.md#spend-and-budgets).
   */
  budgets: z
    .strictObject({
      author: BudgetLimits,
      reviewer: BudgetLimits,
      merger: BudgetLimits,
      "conflict-fix": BudgetLimits,
    })
    .prefault({}),
  /** Which notification events this repository sends, and whom they mention (sinks live in env). */
  notify: z
    .strictObject({
      events: z
        .array(NotifyEvent)
        .max(NotifyEvent.options.length)
        .default([...defaultNotifyEvents]),
      /** A `@user` or `@org/team` mentioned in needs-human comments; null: nobody. */
      mention: z
        .string()
        .regex(/^@[A-Za-z0-9-]+(\/[A-Za-z0-9._-]+)?$/, "must be @user or @org/team")
        .nullable()
        .default(null),
      /** At most one needs-human mention comment and one notification per subject within this. */
      needsHumanCooldown: DurationMs.prefault("30m"),
    })
    .prefault({}),
});
export type RepoConfig = z.infer<typeof RepoConfig>;

export const defaultRepoConfig: RepoConfig = RepoConfig.parse({});

export function durationsOf(config: RepoConfig, taskClass: TaskClass): Durations {
  const d = config.taskClasses[taskClass];
  return { ttlMs: d.ttl, reclaimAfterMs: d.reclaimAfter, heartbeatMs: d.heartbeat };
}

/** The stall rule a claim of `taskClass` is held to (docs/reference/config.md), or undefined when off. */
export function stallOf(
  config: RepoConfig,
  taskClass: TaskClass,
): { afterMs: number; onStall: OnStall } | undefined {
  const d = config.taskClasses[taskClass];
  return d.stallAfter === null ? undefined : { afterMs: d.stallAfter, onStall: d.onStall };
}

/** The failure breaker's settings (src/domain/failure-breaker.ts) of a repository. */
export function breakerSettingsOf(config: RepoConfig): { maxFailures: number; retryBackoffMs: number } {
  return { maxFailures: config.queue.maxFailures, retryBackoffMs: config.queue.retryBackoff };
}

export type RepoConfigResult = { config: RepoConfig; error?: string };

/** Validates a loaded config read from `path`; an invalid one falls back to the defaults and says why. */
export function parseRepoConfig(raw: unknown, path = ".github/claim-hold.yml"): RepoConfigResult {
  if (raw === null || raw === undefined) return { config: defaultRepoConfig };
  const parsed = RepoConfig.safeParse(raw);
  if (parsed.success) return { config: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join(".") : "(top level)";
  return { config: defaultRepoConfig, error: `${path}: ${where}: ${issue?.message}` };
}
