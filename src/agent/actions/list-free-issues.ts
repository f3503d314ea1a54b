// The free issues of a repository, as the App ranks them (`GET …/queue`): MCP `list_free_issues`. The agent side
// never reads GitHub itself; the App's queue already joins claims, assignees, blockers and open pull requests.
import { type AgentContext, clientFor, requireGithubToken, serverUrl } from "./agent-context.js";

export interface FreeIssue {
  subject: string;
  issue: number;
  title: string;
  /** 1 = what `claim_next_issue` would pick first. */
  rank: number;
  /** Why it ranks where it does: `priority:p0`, `oldest`, `takeover`… */
  reasons: string[];
}

export interface SkippedIssue {
  subject: string;
  issue: number;
  /** `held`, `human`, `blocked`, `pr-open`, `filtered`, `missingCapability`, `exempt`, `over-budget`, `failing`… */
  reason: string;
  /** With `missingCapability`: what the issue needs that was not declared. */
  missing?: string[];
}

export interface FreeIssues {
  repo: string;
  free: FreeIssue[];
  skipped: SkippedIssue[];
  /** More eligible issues exist than `limit` let through. */
  truncated: boolean;
}

/** The App's ranked queue of `repo`, at most `limit` eligible issues, with the first skipped ones and why. */
export async function listFreeIssues(
  ctx: AgentContext,
  repo: string,
  query: { limit?: number; capabilities?: string[] } = {},
): Promise<FreeIssues> {
  requireGithubToken(ctx);
  const answer = await clientFor(ctx, serverUrl(ctx)).queue(
    repo,
    {
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.capabilities?.length ? { capabilities: query.capabilities } : {}),
    },
    { signal: ctx.signal },
  );
  return {
    repo,
    free: answer.queue.map((entry) => ({
      subject: `${repo}#${entry.issue}`,
      issue: entry.issue,
      title: entry.title,
      rank: entry.rank,
      reasons: entry.reasons,
    })),
    skipped: answer.skipped.map((skip) => ({
      subject: `${repo}#${skip.issue}`,
      issue: skip.issue,
      reason: skip.reason,
      ...(skip.missing ? { missing: skip.missing } : {}),
    })),
    truncated: answer.truncated,
  };
}
