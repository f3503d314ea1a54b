// `next owner/repo [-- <cmd…>]`: the App picks and claims the best free issue; with a command, run it like `run`.
import { actorName } from "../../actions/actor-name.js";
import { describeLease } from "../../actions/agent-context.js";
import { claimNextIssue } from "../../actions/claim-next-issue.js";
import { formatSubject } from "../../actions/subject.js";
import {
  ClaimHoldError,
  isClaimHoldError,
  type Picked,
  QueueSkippedCountsSchema,
} from "../../client/index.js";
import { type CommandSpec, repoOption, showTokenOption } from "../command.js";
import { type CommandContext, listFlag as listOf } from "../context.js";
import { relativeTime } from "../relative-time.js";
import { resolveRepo } from "../target.js";
import { taskClassFlag } from "./claim.js";
import { superviseCommand } from "./run.js";

export const nextCommand: CommandSpec = {
  name: "next",
  summary: "claim the best free issue of a repository (the App picks it); with -- <cmd…>, run it like run",
  arguments: [
    {
      name: "repo",
      description: "owner/repo (default: --repo, else this clone's origin remote)",
      required: false,
    },
  ],
  options: {
    label: {
      value: "<label>",
      description: "only issues carrying this label (all of them)",
      repeatable: true,
    },
    "exclude-label": { value: "<label>", description: "no issue carrying this label", repeatable: true },
    capability: {
      value: "<name>",
      description: "this session can do <name> (gpu, python): issues labelled needs:<name> become eligible",
      repeatable: true,
    },
    class: { value: "<name>", description: "task class: author (default), reviewer, merger, conflict-fix" },
    takeovers: {
      description: "reclaimable agent claims are eligible too (taken over, resumed on their branch)",
    },
    scope: {
      value: "<glob>",
      description: "a glob of the files the work expects to touch",
      repeatable: true,
    },
    ...repoOption,
    ...showTokenOption,
  },
  rest: {
    required: false,
    description:
      "run it like `run`: it gets CLAIM_HOLD_SUBJECT, CLAIM_HOLD_LEASE_ID and CLAIM_HOLD_BRANCH, is kept alive while it runs and released on exit (completed on 0, else handoff)",
  },
  notes: [
    "The App picks atomically: concurrent sessions never get the same issue, so a fleet needs no",
    "coordination. Order: the repository's priority labels, then oldest first, then number.",
    "Exit 3: nothing eligible (queue_empty; the counts say why) or this session is at its claim cap.",
  ],
  needsGithubToken: true,
  async run(ctx) {
    const repo = await resolveRepo(ctx, ctx.positionals[0]);
    const { lease, result, session } = await claimNextIssue(ctx, repo, {
      taskClass: taskClassFlag(ctx),
      labels: listFlag(ctx, "label"),
      excludeLabels: listFlag(ctx, "exclude-label"),
      capabilities: listFlag(ctx, "capability"),
      takeovers: ctx.flags.takeovers === true,
      scope: listFlag(ctx, "scope"),
    }).catch((error: unknown) => {
      throw isClaimHoldError(error) && error.code === "queue_empty" ? describeEmptyQueue(repo, error) : error;
    });
    const subject = formatSubject(lease);
    const picked = pickedLine(result.picked);
    const takeover = result.resume
      ? `takeover: resume branch ${result.resume.branch ?? lease.branch} of ${actorName(result.resume.previousActor)} ` +
        `(generation ${result.resume.previousGeneration}); do not start a parallel branch`
      : null;

    if (ctx.rest.length > 0) {
      ctx.out.info(
        `claimed ${subject} (${picked}; generation ${lease.generation}, branch ${lease.branch ?? "none"})`,
      );
      if (takeover) ctx.out.info(takeover);
      return superviseCommand(ctx, lease, ctx.rest, { command: "next", extra: { picked: result.picked } });
    }
    const lines = [
      `claimed ${subject} · ${picked} · generation ${lease.generation} · branch ${lease.branch ?? "(none)"} · ` +
        `heartbeat every ${lease.heartbeatIntervalSeconds} s · expires ${relativeTime(lease.expiresAt, ctx.now())}`,
      ...(takeover ? [takeover] : []),
    ];
    ctx.out.result(
      {
        ok: true,
        command: "next",
        created: result.created,
        sessionId: session.sessionId,
        picked: result.picked,
        lease: describeLease(lease, ctx.flags["show-token"] === true),
        resume: result.resume,
        overlaps: result.overlaps,
      },
      lines,
    );
    return 0;
  },
};

function listFlag(ctx: CommandContext, name: string): string[] | undefined {
  const values = listOf(ctx, name);
  return values.length > 0 ? values : undefined;
}

function pickedLine(picked: Picked): string {
  return `rank ${picked.rank}${picked.reasons.length > 0 ? ` (${picked.reasons.join(", ")})` : ""}`;
}

/** The server's refusal, with the skip counts in the sentence: "why is there nothing for me" in one line. */
function describeEmptyQueue(repo: string, error: ClaimHoldError): ClaimHoldError {
  const counts = QueueSkippedCountsSchema.safeParse(error.details.skipped);
  const why =
    counts.success && Object.keys(counts.data).length > 0
      ? Object.entries(counts.data)
          .filter(([, count]) => count > 0)
          .map(([reason, count]) => `${count} ${reason}`)
          .join(", ")
      : "";
  return new ClaimHoldError({
    status: error.status,
    code: error.code,
    message: `no eligible issue in ${repo}${why ? ` (skipped: ${why})` : ""}`,
    details: error.details,
    cause: error,
  });
}
