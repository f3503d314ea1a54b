// `claim owner/repo#12`: claim (or take over) an issue and keep its lease in this worktree.
import { hostname } from "node:os";
import type { ClaimResult, TakeoverPending } from "../../client/index.js";
import type { CommandSpec } from "../command.js";
import {
  type CommandContext,
  clientFor,
  describeLease,
  gitDirOf,
  requireGithubToken,
  serverUrl,
  stringFlag,
} from "../context.js";
import { UsageError } from "../errors.js";
import { type LeaseFile, leaseDir, readLease, writeLease } from "../lease-store.js";
import { resolveSession, resolveSessionKey, type Session } from "../session.js";
import { formatSubject, parseSubject, type SubjectRef } from "../subject.js";

export const taskClassNames = ["author", "reviewer", "merger", "conflict-fix"];

export const claimCommand: CommandSpec = {
  name: "claim",
  summary: "claim an issue (or take it over) and store its lease in this worktree",
  usage:
    "claim owner/repo#12 [--class author] [--branch <name>] [--takeover] [--scope <glob>…] [--artifacts <url>]",
  details: [
    "--class       task class: author (default), reviewer, merger, conflict-fix",
    "--branch      branch of the work (default: the App's agent/<sessionId>/<issue>-<slug>,",
    "              or on a takeover the incumbent's branch)",
    "--takeover    take over a stale or reclaimable claim; waits out the incumbent's grace beat",
    "--scope       a glob of the files the work expects to touch (repeatable)",
    "--artifacts   URL or path of the session's handoff material",
    "--show-token  include the lease token in --json output",
    "exit 3: held by another (held, human_held, cap_reached)",
  ],
  options: {
    class: { type: "string" },
    branch: { type: "string" },
    takeover: { type: "boolean" },
    scope: { type: "string", multiple: true },
    artifacts: { type: "string" },
  },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const subject = parseSubject(ctx.positionals[0] ?? "");
    const taskClass = stringFlag(ctx, "class") ?? "author";
    if (!taskClassNames.includes(taskClass)) {
      throw new UsageError(`--class must be one of ${taskClassNames.join(", ")}, got "${taskClass}"`);
    }
    const { lease, result, session } = await claimSubject(ctx, subject, {
      taskClass,
      branch: stringFlag(ctx, "branch"),
      takeover: ctx.flags.takeover === true,
      scope: ctx.flags.scope as unknown as string[] | undefined,
      artifacts: stringFlag(ctx, "artifacts"),
    });
    const lines = [
      `${result.created ? "claimed" : "re-claimed"} ${formatSubject(subject)} · generation ${lease.generation} · ` +
        `branch ${lease.branch ?? "(none)"} · heartbeat every ${lease.heartbeatIntervalSeconds} s · expires ${lease.expiresAt}`,
    ];
    if (result.resume) {
      lines.push(
        `takeover: resume branch ${result.resume.branch ?? lease.branch} of ${actorName(result.resume.previousActor)} ` +
          `(generation ${result.resume.previousGeneration ?? "?"}); do not start a parallel branch`,
      );
    }
    ctx.out.result(
      {
        ok: true,
        command: "claim",
        created: result.created,
        sessionId: session.sessionId,
        lease: describeLease(lease, ctx.flags["show-token"] === true),
        resume: result.resume,
        overlaps: result.overlaps,
      },
      lines,
    );
    return 0;
  },
};

export interface ClaimChoices {
  taskClass: string;
  branch?: string;
  takeover: boolean;
  scope?: string[];
  artifacts?: string;
  /** Told before each wait for a pending takeover's grace beat (the MCP server reports progress). */
  onTakeoverPending?: (pending: TakeoverPending) => void;
}

/** Claims through the API and stores the lease file; shared by `claim` and `run`. */
export async function claimSubject(
  ctx: CommandContext,
  subject: SubjectRef,
  choices: ClaimChoices,
): Promise<{ lease: LeaseFile; result: ClaimResult; session: Session }> {
  requireGithubToken(ctx);
  const baseUrl = serverUrl(ctx);
  const gitDir = await gitDirOf(ctx);
  const session = await resolveSession(ctx.env, gitDir);
  // Proof for a re-claim of this session's live claim (SPEC invariant 14): the session key, and the
  // lease token this worktree holds for the subject (the only proof left after the App's store loss).
  const sessionKey = await resolveSessionKey(gitDir, session.sessionId);
  const held = await readLease(leaseDir(gitDir), subject).catch(() => null);
  const leaseToken = held?.status === "held" && held.sessionId === session.sessionId ? held.token : undefined;
  const client = clientFor(ctx, baseUrl);
  const result = await client.claim(
    {
      repo: subject.repo,
      issue: subject.issue,
      actor: {
        sessionId: session.sessionId,
        ...(session.runtime ? { runtime: session.runtime } : {}),
        host: (ctx.env.CLAIM_HOLD_HOST || hostname()).slice(0, 100),
        sessionKey,
      },
      ...(leaseToken ? { leaseToken } : {}),
      taskClass: choices.taskClass,
      // Without --branch the App names it: a successor must continue the incumbent's branch.
      ...(choices.branch ? { branch: choices.branch } : {}),
      takeover: choices.takeover,
      ...(choices.scope?.length ? { scope: choices.scope } : {}),
      ...(choices.artifacts ? { artifacts: choices.artifacts } : {}),
    },
    {
      signal: ctx.signal,
      onTakeoverPending: (pending) => {
        ctx.out.info(
          `takeover of ${formatSubject(subject)} pending: waiting ${pending.retryAfterSeconds} s ` +
            `for ${actorName(pending.incumbent)} to miss its grace beat`,
        );
        choices.onTakeoverPending?.(pending);
      },
    },
  );
  for (const overlap of result.overlaps) {
    ctx.out.info(
      `warning: ${overlap.subject} (${actorName(overlap.holder)}) declared overlapping files: ${overlap.paths.join(", ")}`,
    );
  }
  const { lease: issued } = result;
  const lease: LeaseFile = {
    version: 1,
    baseUrl,
    repo: subject.repo,
    issue: subject.issue,
    leaseId: issued.id,
    token: issued.token,
    generation: issued.generation,
    taskClass: issued.taskClass,
    // The App's choice: on a takeover without --branch, the incumbent's branch.
    branch: issued.branch ?? choices.branch ?? result.resume?.branch ?? null,
    ttlSeconds: issued.ttlSeconds,
    heartbeatIntervalSeconds: issued.heartbeatIntervalSeconds,
    expiresAt: issued.expiresAt,
    claimedAt: new Date(ctx.now()).toISOString(),
    sessionId: session.sessionId,
    status: "held",
  };
  await writeLease(leaseDir(gitDir), lease);
  return { lease, result, session };
}

export function actorName(
  actor: { login?: string; runtime?: string | null; sessionId?: string | null } | null | undefined,
) {
  if (!actor) return "the holder";
  const who = [actor.runtime, actor.sessionId ? `session ${actor.sessionId}` : undefined]
    .filter(Boolean)
    .join(" ");
  return actor.login ? `${actor.login}${who ? ` (${who})` : ""}` : who || "the holder";
}
