// `claim owner/repo#12`: claim (or take over) an issue and keep its lease in this worktree.
import { taskClasses } from "../../../contract/claim-vocabulary.js";
import { actorName } from "../../actions/actor-name.js";
import { describeLease } from "../../actions/agent-context.js";
import { claimIssue } from "../../actions/claim-issue.js";
import { UsageError } from "../../actions/errors.js";
import { formatSubject, parseSubject } from "../../actions/subject.js";
import type { CommandSpec } from "../command.js";
import { type CommandContext, stringFlag } from "../context.js";

/** `--class`, checked against the task classes of the contract (default author). */
export function taskClassFlag(ctx: CommandContext): string {
  const taskClass = stringFlag(ctx, "class") ?? "author";
  if (!(taskClasses as readonly string[]).includes(taskClass)) {
    throw new UsageError(`--class must be one of ${taskClasses.join(", ")}, got "${taskClass}"`);
  }
  return taskClass;
}

export const claimCommand: CommandSpec = {
  name: "claim",
  summary: "claim an issue (or take it over) and store its lease in this worktree",
  usage:
    "claim owner/repo#12 [--class author] [--branch <name>] [--takeover] [--scope <glob>…] [--artifacts <url>]\n" +
    "                   [--ignore-blockers] [--allow-open-pr]",
  details: [
    "--class       task class: author (default), reviewer, merger, conflict-fix",
    "--branch      branch of the work (default: the App's agent/<sessionId>/<issue>-<slug>,",
    "              or on a takeover the incumbent's branch)",
    "--takeover    take over a stale or reclaimable claim; waits out the incumbent's grace beat",
    "--scope       a glob of the files the work expects to touch (repeatable)",
    "--artifacts   URL or path of the session's handoff material",
    "--ignore-blockers  claim although the issue has open blockers (else exit 3, blocked)",
    "--allow-open-pr    claim although someone else's open pull request closes it (else exit 3, pr_open)",
    "--show-token  include the lease token in --json output",
    "exit 3: held by another or not free to work on (held, human_held, cap_reached, blocked, pr_open)",
  ],
  options: {
    class: { type: "string" },
    branch: { type: "string" },
    takeover: { type: "boolean" },
    scope: { type: "string", multiple: true },
    artifacts: { type: "string" },
    "ignore-blockers": { type: "boolean" },
    "allow-open-pr": { type: "boolean" },
  },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const subject = parseSubject(ctx.positionals[0] ?? "");
    const { lease, result, session } = await claimIssue(ctx, subject, {
      taskClass: taskClassFlag(ctx),
      branch: stringFlag(ctx, "branch"),
      takeover: ctx.flags.takeover === true,
      scope: ctx.flags.scope as unknown as string[] | undefined,
      artifacts: stringFlag(ctx, "artifacts"),
      ignoreBlockers: ctx.flags["ignore-blockers"] === true,
      allowOpenPullRequest: ctx.flags["allow-open-pr"] === true,
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
