// Claiming an issue (or taking it over) and storing its lease in this worktree: `claim`, `run` and MCP `claim_issue`.
import { hostname } from "node:os";
import type { ClaimResult, TakeoverPending } from "../client/index.js";
import { actorName } from "./actor-name.js";
import { type AgentContext, clientFor, gitDirOf, requireGithubToken, serverUrl } from "./agent-context.js";
import { type LeaseFile, leaseDir, readLease, writeLease } from "./lease-store.js";
import { resolveSession, resolveSessionKey, type Session } from "./session.js";
import { formatSubject, type SubjectRef } from "./subject.js";

export interface ClaimChoices {
  taskClass: string;
  branch?: string;
  takeover: boolean;
  scope?: string[];
  artifacts?: string;
  /** Claim although the issue has open blockers. */
  ignoreBlockers?: boolean;
  /** Claim although someone else's open pull request already closes the issue. */
  allowOpenPullRequest?: boolean;
  /** Claim although the issue failed too often and waits for a person (`409 failing`). */
  override?: boolean;
  /** Told before each wait for a pending takeover's grace beat (the MCP server reports progress). */
  onTakeoverPending?: (pending: TakeoverPending) => void;
}

/** Claims through the API and stores the lease file. */
export async function claimIssue(
  ctx: AgentContext,
  subject: SubjectRef,
  choices: ClaimChoices,
): Promise<{ lease: LeaseFile; result: ClaimResult; session: Session }> {
  requireGithubToken(ctx);
  const baseUrl = serverUrl(ctx);
  const gitDir = await gitDirOf(ctx);
  const session = await resolveSession(ctx.env, gitDir);
  // Proof for a re-claim of this session's live claim (docs/reference/http-api.md): the session key, and the
  // lease token this worktree holds for the subject (the only proof left after the App's store loss).
  const sessionKey = await resolveSessionKey(gitDir, session.sessionId);
  const held = await readLease(leaseDir(gitDir), subject).catch(() => null);
  const leaseToken = held?.status === "held" && held.sessionId === session.sessionId ? held.token : undefined;
  const client = clientFor(ctx, baseUrl);
  const result = await client.claim(
    {
      repo: subject.repo,
      issue: subject.issue,
      actor: claimActor(ctx, session, sessionKey),
      ...(leaseToken ? { leaseToken } : {}),
      taskClass: choices.taskClass,
      // Without --branch the App names it: a successor must continue the incumbent's branch.
      ...(choices.branch ? { branch: choices.branch } : {}),
      takeover: choices.takeover,
      ...(choices.scope?.length ? { scope: choices.scope } : {}),
      ...(choices.artifacts ? { artifacts: choices.artifacts } : {}),
      ...(choices.ignoreBlockers ? { ignoreBlockers: true } : {}),
      ...(choices.allowOpenPullRequest ? { allowOpenPullRequest: true } : {}),
      ...(choices.override ? { override: true } : {}),
    },
    { signal: ctx.signal, onTakeoverPending: reportTakeoverPending(ctx, formatSubject(subject), choices) },
  );
  warnOfOverlaps(ctx, result);
  const lease = leaseFileOf(result, { baseUrl, subject, choices, session, now: ctx.now() });
  await writeLease(leaseDir(gitDir), lease);
  return { lease, result, session };
}

/** Who claims: the session's id, runtime and host, and the session key that proves it. */
export function claimActor(ctx: AgentContext, session: Session, sessionKey: string) {
  return {
    sessionId: session.sessionId,
    ...(session.runtime ? { runtime: session.runtime } : {}),
    host: (ctx.env.CLAIM_HOLD_HOST || hostname()).slice(0, 100),
    sessionKey,
  };
}

export function reportTakeoverPending(
  ctx: AgentContext,
  what: string,
  choices: Pick<ClaimChoices, "onTakeoverPending">,
): (pending: TakeoverPending) => void {
  return (pending) => {
    ctx.out.info(
      `takeover of ${what} pending: waiting ${pending.retryAfterSeconds} s ` +
        `for ${actorName(pending.incumbent)} to miss its grace beat`,
    );
    choices.onTakeoverPending?.(pending);
  };
}

export function warnOfOverlaps(ctx: AgentContext, result: ClaimResult): void {
  for (const overlap of result.overlaps) {
    ctx.out.info(
      `warning: ${overlap.subject} (${actorName(overlap.holder)}) declared overlapping files: ${overlap.paths.join(", ")}`,
    );
  }
}

/** The lease file of a claim just made; `choices.branch` only where the App named none. */
export function leaseFileOf(
  result: ClaimResult,
  at: {
    baseUrl: string;
    subject: SubjectRef;
    choices: Pick<ClaimChoices, "branch">;
    session: Session;
    now: number;
  },
): LeaseFile {
  const { lease: issued } = result;
  return {
    version: 1,
    baseUrl: at.baseUrl,
    repo: at.subject.repo,
    issue: at.subject.issue,
    leaseId: issued.id,
    token: issued.token,
    generation: issued.generation,
    taskClass: issued.taskClass,
    // The App's choice: on a takeover without --branch, the incumbent's branch.
    branch: issued.branch ?? at.choices.branch ?? result.resume?.branch ?? null,
    ttlSeconds: issued.ttlSeconds,
    heartbeatIntervalSeconds: issued.heartbeatIntervalSeconds,
    expiresAt: issued.expiresAt,
    claimedAt: new Date(at.now).toISOString(),
    sessionId: at.session.sessionId,
    status: "held",
  };
}
