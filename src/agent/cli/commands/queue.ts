// `queue owner/repo`: the open issues the join rule says are free, with the reason for each.

import { UsageError } from "../../actions/errors.js";
import { listFreeIssues } from "../../actions/list-free-issues.js";
import { parseRepo } from "../../actions/subject.js";
import type { CommandSpec } from "../command.js";
import { stringFlag } from "../context.js";

export const queueCommand: CommandSpec = {
  name: "queue",
  summary: "list the open issues of a repository that are free to claim, with the reason",
  usage: "queue owner/repo [--limit <n>]",
  details: [
    "Joins the App's inventory with GitHub's open issues (GITHUB_API_URL, default https://api.github.com).",
    "Free: no claim and no assignee; a stale or reclaimable agent claim (claim with --takeover);",
    "a managed label with no claim record.",
    "--limit  how many open issues to read from GitHub (default 100)",
  ],
  options: { limit: { type: "string" } },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const repo = parseRepo(ctx.positionals[0] ?? "");
    const limitText = stringFlag(ctx, "limit") ?? "100";
    const limit = Number(limitText);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
      throw new UsageError(`--limit must be a number from 1 to 1000, got "${limitText}"`);
    }
    const { free, truncated } = await listFreeIssues(ctx, repo, { limit });
    const lines = free.map(
      (f) => `${f.subject}\t${f.reason}${f.takeover ? " (--takeover)" : ""}\t${f.title ?? ""}\t${f.detail}`,
    );
    if (free.length === 0) lines.push(`no free issue in ${repo}`);
    if (truncated) ctx.out.info("warning: the inventory was truncated; some held issues may be missing");
    ctx.out.result({ ok: true, command: "queue", repo, free, truncated }, lines);
    return 0;
  },
};
