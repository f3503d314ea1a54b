// `claim owner/repo#12`: claim (or take over) an issue and keep its lease in this worktree.
import { taskClasses } from "../../../contract/claim-vocabulary.js";
import { actorName } from "../../actions/actor-name.js";
import { describeLease } from "../../actions/agent-context.js";
import { claimIssue } from "../../actions/claim-issue.js";
import { UsageError } from "../../actions/errors.js";
import { formatSubject, type SubjectRef } from "../../actions/subject.js";
import { ClaimHoldError, isClaimHoldError } from "../../client/index.js";
import { type CommandSpec, repoOption, showTokenOption } from "../command.js";
import { type CommandContext, listFlag, stringFlag } from "../context.js";
import { relativeTime } from "../relative-time.js";
import { resolveSubject } from "../target.js";

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
  arguments: [
    {
      name: "issue",
      description: "owner/repo#12, or 12 inside a clone (repository from --repo or the origin remote)",
      required: true,
    },
  ],
  options: {
    class: { value: "<name>", description: `task class: ${taskClasses.join(", ")} (default author)` },
    branch: {
      value: "<name>",
      description:
        "branch of the work (default: the App's agent/<sessionId>/<issue>-<slug>, or on a takeover the incumbent's branch)",
    },
    takeover: { description: "take over a stale or reclaimable claim; waits out the incumbent's grace beat" },
    scope: {
      value: "<glob>",
      description: "a glob of the files the work expects to touch",
      repeatable: true,
    },
    artifacts: { value: "<url>", description: "URL or path of the session's handoff material" },
    "ignore-blockers": { description: "claim although the issue has open blockers (else exit 3, blocked)" },
    "allow-open-pr": {
      description: "claim although someone else's open pull request closes it (else exit 3, pr_open)",
    },
    override: {
      description: "claim although the issue failed too often and waits for a person (else exit 3, failing)",
    },
    ...repoOption,
    ...showTokenOption,
  },
  notes: [
    "Exit 3: held by another or not free to work on (held, human_held, cap_reached, blocked, pr_open, failing);",
    "a held issue's line names the holder, when it becomes reclaimable and whether --takeover applies.",
  ],
  needsGithubToken: true,
  async run(ctx) {
    const subject = await resolveSubject(ctx, ctx.positionals[0]);
    const { lease, result, session } = await claimIssue(ctx, subject, {
      taskClass: taskClassFlag(ctx),
      branch: stringFlag(ctx, "branch"),
      takeover: ctx.flags.takeover === true,
      scope: listFlag(ctx, "scope"),
      artifacts: stringFlag(ctx, "artifacts"),
      ignoreBlockers: ctx.flags["ignore-blockers"] === true,
      allowOpenPullRequest: ctx.flags["allow-open-pr"] === true,
      override: ctx.flags.override === true,
    }).catch(naming(subject));
    const lines = [
      `${result.created ? "claimed" : "re-claimed"} ${formatSubject(subject)} · generation ${lease.generation} · ` +
        `branch ${lease.branch ?? "(none)"} · heartbeat every ${lease.heartbeatIntervalSeconds} s · ` +
        `expires ${relativeTime(lease.expiresAt, ctx.now())}`,
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

/** A refusal of the claim of `subject`, carrying the subject in its details (the held line's takeover hint). */
export function naming(subject: SubjectRef): (error: unknown) => never {
  return (error) => {
    if (!isClaimHoldError(error) || "subject" in error.details) throw error;
    throw new ClaimHoldError({
      status: error.status,
      code: error.code,
      message: error.message,
      details: { ...error.details, subject: formatSubject(subject) },
      cause: error,
    });
  };
}
