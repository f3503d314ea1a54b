// `queue owner/repo`: the App's ranked queue of the repository — what `next` would pick, in order, and what it skips and why.
import { clientFor, requireGithubToken, serverUrl } from "../../actions/agent-context.js";
import { UsageError } from "../../actions/errors.js";
import { type CommandSpec, repoOption } from "../command.js";
import { listFlag, stringFlag } from "../context.js";
import { formatTable } from "../table.js";
import { resolveRepo } from "../target.js";

export const queueCommand: CommandSpec = {
  name: "queue",
  summary:
    "show the App's ranked queue of a repository: eligible issues best first, then skipped ones and why",
  arguments: [
    {
      name: "repo",
      description: "owner/repo (default: --repo, else this clone's origin remote)",
      required: false,
    },
  ],
  options: {
    limit: { value: "<n>", description: "how many eligible issues to show, 1–200 (default 50)" },
    capability: {
      value: "<name>",
      description: "show the queue as a session that can do <name> sees it (as `next --capability`)",
      repeatable: true,
    },
    ...repoOption,
  },
  notes: [
    "The App's own ranking (GET /api/v1/repos/{owner}/{repo}/queue), the order `next` picks in:",
    "priority labels, then the repository's queue.order, then number. Skipped issues carry their",
    "reason: held, human, blocked, pr-open, filtered, missingCapability, exempt, over-budget, failing.",
  ],
  needsGithubToken: true,
  async run(ctx) {
    const repo = await resolveRepo(ctx, ctx.positionals[0]);
    const limitText = stringFlag(ctx, "limit");
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > 200)) {
      throw new UsageError(`--limit must be a number from 1 to 200, got "${limitText}"`);
    }
    requireGithubToken(ctx);
    const capabilities = listFlag(ctx, "capability");
    const answer = await clientFor(ctx, serverUrl(ctx)).queue(
      repo,
      { ...(limit === undefined ? {} : { limit }), ...(capabilities.length > 0 ? { capabilities } : {}) },
      { signal: ctx.signal },
    );
    const lines =
      answer.queue.length === 0
        ? [`no eligible issue in ${repo}`]
        : formatTable(
            ["RANK", "ISSUE", "REASONS", "TITLE"],
            answer.queue.map((entry) => [
              String(entry.rank),
              `${repo}#${entry.issue}`,
              entry.reasons.join(", "),
              entry.title ?? "",
            ]),
          );
    if (answer.truncated) lines.push("… (more eligible issues: raise --limit)");
    if (answer.skipped.length > 0) {
      lines.push("");
      lines.push(
        ...formatTable(
          ["SKIPPED", "WHY"],
          answer.skipped.map((skip) => [`${repo}#${skip.issue}`, skipWhy(skip)]),
        ),
      );
    }
    ctx.out.result(
      {
        ok: true,
        command: "queue",
        repo,
        queue: answer.queue,
        skipped: answer.skipped,
        truncated: answer.truncated,
      },
      lines,
    );
    return 0;
  },
};

/** The skip's reason, with the capabilities the issue needs that were not declared. */
function skipWhy(skip: { reason: string; missing?: string[] | undefined }): string {
  return skip.missing?.length ? `${skip.reason} (${skip.missing.join(", ")})` : skip.reason;
}
