// Letting the App pick the best free issue of a repository and claiming it: `next` and MCP `claim_next_issue`.
import type { ClaimNextResult, TakeoverPending } from "../client/index.js";
import { type AgentContext, clientFor, gitDirOf, requireGithubToken, serverUrl } from "./agent-context.js";
import { claimActor, leaseFileOf, reportTakeoverPending, warnOfOverlaps } from "./claim-issue.js";
import { type LeaseFile, leaseDir, writeLease } from "./lease-store.js";
import { resolveSession, resolveSessionKey, type Session } from "./session.js";

export interface NextChoices {
  taskClass: string;
  /** Only issues carrying every one of these labels. */
  labels?: string[];
  /** No issue carrying any of these labels. */
  excludeLabels?: string[];
  /** What this session can do: issues needing another capability are not picked. */
  capabilities?: string[];
  /** Reclaimable agent claims are eligible too (taken over, resumed on their branch). */
  takeovers: boolean;
  scope?: string[];
  onTakeoverPending?: (pending: TakeoverPending) => void;
}

/** Picks and claims through `claims/next`, then stores the lease file like a claim does. */
export async function claimNextIssue(
  ctx: AgentContext,
  repo: string,
  choices: NextChoices,
): Promise<{ lease: LeaseFile; result: ClaimNextResult; session: Session }> {
  requireGithubToken(ctx);
  const baseUrl = serverUrl(ctx);
  const gitDir = await gitDirOf(ctx);
  const session = await resolveSession(ctx.env, gitDir);
  const sessionKey = await resolveSessionKey(gitDir, session.sessionId);
  const result = await clientFor(ctx, baseUrl).claimNext(
    {
      repo,
      actor: claimActor(ctx, session, sessionKey),
      taskClass: choices.taskClass,
      ...(choices.labels?.length ? { labels: choices.labels } : {}),
      ...(choices.excludeLabels?.length ? { excludeLabels: choices.excludeLabels } : {}),
      ...(choices.capabilities?.length ? { capabilities: choices.capabilities } : {}),
      ...(choices.takeovers ? { includeTakeovers: true } : {}),
      ...(choices.scope?.length ? { scope: choices.scope } : {}),
    },
    { signal: ctx.signal, onTakeoverPending: reportTakeoverPending(ctx, `${repo} (picked)`, choices) },
  );
  warnOfOverlaps(ctx, result);
  const subject = { repo, issue: result.picked.issue };
  const lease = leaseFileOf(result, { baseUrl, subject, choices: {}, session, now: ctx.now() });
  await writeLease(leaseDir(gitDir), lease);
  return { lease, result, session };
}
