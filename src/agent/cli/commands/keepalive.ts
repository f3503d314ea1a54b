// `keepalive`: heartbeat at the advised interval until released, superseded, gone or stopped.
import { actorName } from "../../actions/actor-name.js";
import { cancelWorkflowRun } from "../../actions/cancel-workflow-run.js";
import type { LoopEnd } from "../../actions/keep-lease-alive.js";
import { keepLeaseFileAlive } from "../../actions/keep-lease-file-alive.js";
import type { LeaseFile } from "../../actions/lease-store.js";
import { formatSubject } from "../../actions/subject.js";
import { ActorSchema, isClaimHoldError } from "../../client/index.js";
import { type CommandSpec, issueOption } from "../command.js";
import { currentLease } from "../context.js";
import { exitCodes } from "../exit-codes.js";

export const keepaliveCommand: CommandSpec = {
  name: "keepalive",
  summary: "heartbeat the lease until it is released, superseded or gone (run it in the background)",
  arguments: [],
  options: { ...issueOption },
  notes: [
    "Stops with exit 0 on SIGTERM/SIGINT (the lease is left to go stale, not released)",
    "or when `claim-hold release` removed the lease; exit 4 when superseded, gone, or",
    "the server stayed unreachable until the lease expired. The lease's live events (when the",
    "server has them) end it at once on superseded or revoked. With CLAIM_HOLD_CANCEL_RUN_ON_LOSS=true",
    "(the GitHub Action) a loss also cancels the workflow run.",
  ],
  async run(ctx) {
    const { dir, lease } = await currentLease(ctx);
    const end = await keepLeaseFileAlive(ctx, dir, lease);
    const line = keepaliveEndLine(lease, end);
    const code = loopExitCode(end);
    const body = {
      ok: code === 0,
      command: "keepalive",
      subject: formatSubject(lease),
      end: end.kind,
      message: line,
    };
    if (ctx.out.json || code === 0) ctx.out.result(body, [line]);
    else ctx.out.info(line);
    if (code === exitCodes.lost && ctx.env.CLAIM_HOLD_CANCEL_RUN_ON_LOSS === "true") {
      ctx.out.info(`keepalive: ${await cancelWorkflowRun(ctx.env, ctx.fetch)}`);
    }
    return code;
  },
};

export function loopExitCode(end: LoopEnd): number {
  switch (end.kind) {
    case "released":
    case "stopped":
      return exitCodes.ok;
    case "superseded":
    case "gone":
    case "expired":
      return exitCodes.lost;
    case "failed":
      return exitCodes.other;
  }
}

export function keepaliveEndLine(lease: LeaseFile, end: LoopEnd): string {
  const subject = formatSubject(lease);
  const why = "error" in end && end.error instanceof Error ? `: ${end.error.message}` : "";
  switch (end.kind) {
    case "released":
      return `keepalive: ${subject} was released by this session; stopping`;
    case "stopped":
      return `keepalive: stopped; ${subject} was not released and will go stale unless heartbeated`;
    case "superseded":
      return `keepalive: ${subject} was superseded${successorOf(end.error)}; stop working on it`;
    case "gone":
      return `keepalive: the lease on ${subject} is gone${why}; claim again to continue`;
    case "expired":
      return `keepalive: the server stayed unreachable until the lease on ${subject} expired${why}`;
    case "failed":
      return `keepalive: heartbeat failed${why}`;
  }
}

/** " by <holder> (generation n)" from a `409 superseded`'s details, when the server named them. */
function successorOf(error: unknown): string {
  if (!isClaimHoldError(error)) return "";
  const parsed = ActorSchema.safeParse(error.details.by);
  const generation = error.details.generation;
  const by = parsed.success ? ` by ${actorName(parsed.data)}` : "";
  return `${by}${typeof generation === "number" ? ` (generation ${generation})` : ""}`;
}
