// `next owner/repo [-- <cmd…>]`: the App picks and claims the best free issue; with a command, run it like `run`.
import { actorName } from "../../actions/actor-name.js";
import { describeLease } from "../../actions/agent-context.js";
import { claimNextIssue } from "../../actions/claim-next-issue.js";
import { formatSubject, parseRepo } from "../../actions/subject.js";
import {
  ClaimHoldError,
  isClaimHoldError,
  type Picked,
  QueueSkippedCountsSchema,
} from "../../client/index.js";
import type { CommandSpec } from "../command.js";
import type { CommandContext } from "../context.js";
import { taskClassFlag } from "./claim.js";
import { superviseCommand } from "./run.js";

export const nextCommand: CommandSpec = {
  name: "next",
  summary: "claim the best free issue of a repository (the App picks it); with -- <cmd…>, run it like run",
  usage:
    "next owner/repo [--label <l>…] [--exclude-label <l>…] [--class …] [--takeovers] [--scope <glob>…] [-- <cmd…>]",
  details: [
    "The App picks atomically: concurrent sessions never get the same issue, so a fleet needs no",
    "coordination. Order: the repository's priority labels, then oldest first, then number.",
    "--label          only issues carrying this label (repeatable: all of them)",
    "--exclude-label  no issue carrying this label (repeatable)",
    "--class          task class: author (default), reviewer, merger, conflict-fix",
    "--takeovers      reclaimable agent claims are eligible too (taken over, resumed on their branch)",
    "--scope          a glob of the files the work expects to touch (repeatable)",
    "--show-token     include the lease token in --json output",
    "With -- <cmd…>: the command gets CLAIM_HOLD_SUBJECT, CLAIM_HOLD_LEASE_ID and CLAIM_HOLD_BRANCH, is",
    "kept alive while it runs and released on exit (completed on 0, else handoff), as with run.",
    "exit 3: nothing eligible (queue_empty; the counts say why) or this session is at its claim cap",
  ],
  options: {
    label: { type: "string", multiple: true },
    "exclude-label": { type: "string", multiple: true },
    class: { type: "string" },
    takeovers: { type: "boolean" },
    scope: { type: "string", multiple: true },
  },
  positionals: { min: 1, max: 1 },
  rest: true,
  async run(ctx) {
    const repo = parseRepo(ctx.positionals[0] ?? "");
    const { lease, result, session } = await claimNextIssue(ctx, repo, {
      taskClass: taskClassFlag(ctx),
      labels: listFlag(ctx, "label"),
      excludeLabels: listFlag(ctx, "exclude-label"),
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
        `heartbeat every ${lease.heartbeatIntervalSeconds} s · expires ${lease.expiresAt}`,
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
  const value = ctx.flags[name] as unknown;
  return Array.isArray(value) && value.length > 0 ? (value as string[]) : undefined;
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
