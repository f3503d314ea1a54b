// `run owner/repo#12 -- <cmd…>`: claim, keep alive while the command runs, release when it ends.
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import { clientFor, leaseCredentials, serverUrl } from "../../actions/agent-context.js";
import { claimIssue } from "../../actions/claim-issue.js";
import { UsageError } from "../../actions/errors.js";
import { findGitDir } from "../../actions/git.js";
import type { LoopEnd } from "../../actions/keep-lease-alive.js";
import { keepLeaseFileAlive } from "../../actions/keep-lease-file-alive.js";
import { type LeaseFile, leaseDir, removeLease } from "../../actions/lease-store.js";
import { formatSubject } from "../../actions/subject.js";
import { redactSecrets } from "../../client/index.js";
import { type CommandSpec, repoOption } from "../command.js";
import { type CommandContext, stringFlag } from "../context.js";
import { exitCodes } from "../exit-codes.js";
import { resolveSubject } from "../target.js";
import { naming, taskClassFlag } from "./claim.js";
import { keepaliveEndLine } from "./keepalive.js";

const tailLines = 20;
const noteLimit = 4000;

export const runCommand: CommandSpec = {
  name: "run",
  summary: "claim an issue, run a command while heartbeating, release when it exits",
  arguments: [
    {
      name: "issue",
      description: "owner/repo#12, or 12 inside a clone (repository from --repo or the origin remote)",
      required: true,
    },
  ],
  options: {
    class: { value: "<name>", description: "task class: author (default), reviewer, merger, conflict-fix" },
    branch: { value: "<name>", description: "branch of the work (default: the App's)" },
    takeover: { description: "take over a stale or reclaimable claim" },
    ...repoOption,
  },
  rest: {
    required: true,
    description: "the command; it gets CLAIM_HOLD_LEASE_ID, CLAIM_HOLD_BRANCH and CLAIM_HOLD_SUBJECT",
  },
  notes: [
    "Exit 0 → release completed; non-zero → release handoff (note: the last lines of output).",
    "With --json the command's stdout is written to stderr, so stdout holds only the result.",
    "SIGINT/SIGTERM → forwarded to the command, then release handoff.",
    "Superseded or gone while running → SIGTERM to the command, SIGKILL after a grace",
    "(CLAIM_HOLD_KILL_GRACE_MS, default 10000), exit 4. Otherwise exits with the command's code.",
  ],
  needsGithubToken: true,
  async run(ctx) {
    const subject = await resolveSubject(ctx, ctx.positionals[0]);
    const [command, ...args] = ctx.rest;
    if (!command)
      throw new UsageError("run needs a command after --, e.g. claim-hold run o/r#12 -- npm test");
    const { lease } = await claimIssue(ctx, subject, {
      taskClass: taskClassFlag(ctx),
      branch: stringFlag(ctx, "branch"),
      takeover: ctx.flags.takeover === true,
    }).catch(naming(subject));
    ctx.out.info(
      `claimed ${formatSubject(subject)} (generation ${lease.generation}, branch ${lease.branch ?? "none"})`,
    );
    return superviseCommand(ctx, lease, [command, ...args], { command: "run" });
  },
};

/** How the supervised run reports itself: the CLI command's name, and fields to add to its `--json` result. */
export interface RunReport {
  command: string;
  extra?: Record<string, unknown>;
}

/**
 * Runs `argv` while heartbeating `lease`, then releases it (completed on exit 0, else handoff with the
 * output's last lines); stops the command when the lease is lost. Resolves with the exit code.
 */
export async function superviseCommand(
  ctx: CommandContext,
  lease: LeaseFile,
  argv: string[],
  report: RunReport,
): Promise<number> {
  const [command = "", ...args] = argv;
  const dir = leaseDir(await findGitDir(ctx.cwd));
  const tail = createTail();
  const child = spawn(command, args, {
    cwd: ctx.cwd,
    stdio: ["inherit", "pipe", "pipe"],
    env: {
      ...ctx.env,
      CLAIM_HOLD_LEASE_ID: lease.leaseId,
      CLAIM_HOLD_BRANCH: lease.branch ?? "",
      CLAIM_HOLD_SUBJECT: formatSubject(lease),
    },
  });
  // With --json, stdout carries only the result line: the command's own output goes to stderr.
  const commandOut = ctx.out.json ? ctx.stderr : ctx.stdout;
  child.stdout?.on("data", (chunk: Buffer) => {
    commandOut.write(chunk);
    tail.push(chunk);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    ctx.stderr.write(chunk);
    tail.push(chunk);
  });
  const exited = waitForExit(child);

  const loopStop = new AbortController();
  const loop = keepLeaseFileAlive(ctx, dir, lease, loopStop.signal);
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = () => {
    interrupted = (ctx.signal.reason as NodeJS.Signals | undefined) ?? "SIGTERM";
    child.kill(interrupted);
  };
  ctx.signal.addEventListener("abort", onSignal, { once: true });

  const first = await Promise.race([exited.then((exit) => ({ exit })), loop.then((end) => ({ end }))]);
  if ("end" in first && first.end.kind !== "released" && first.end.kind !== "stopped") {
    // The lease is lost (or cannot be kept): the work must stop before it pushes over a successor.
    ctx.out.info(keepaliveEndLine(lease, first.end));
    await stopChild(ctx, child, exited);
    ctx.signal.removeEventListener("abort", onSignal);
    return finish(ctx, lease, report, { lost: first.end });
  }

  const exit = "exit" in first ? first.exit : await exited;
  loopStop.abort();
  const end = await loop;
  ctx.signal.removeEventListener("abort", onSignal);
  if (end.kind !== "released" && end.kind !== "stopped") return finish(ctx, lease, report, { lost: end });
  // The command released the lease itself (`claim-hold release`): nothing left to do.
  if (end.kind === "released") return finish(ctx, lease, report, { exit, interrupted, released: true });

  const outcome = exit.code === 0 && !interrupted ? "completed" : "handoff";
  const what = interrupted
    ? `interrupted by ${interrupted}`
    : `exited with ${exit.signal ?? `code ${exit.code}`}`;
  const output = tail.text();
  const note = redactSecrets(
    `\`${[command, ...args].join(" ")}\` ${what}${output ? `; last output:\n${output}` : ""}`,
    [...ctx.secrets, lease.token],
  ).slice(0, noteLimit);
  try {
    await clientFor(ctx, serverUrl(ctx, lease)).release(leaseCredentials(lease), {
      outcome,
      ...(outcome === "handoff" ? { note } : {}),
    });
    await removeLease(dir, lease);
    ctx.out.info(`released ${formatSubject(lease)} (${outcome})`);
  } catch (error) {
    ctx.out.info(`could not release ${formatSubject(lease)}: ${(error as Error).message}`);
    return finish(ctx, lease, report, { exit, interrupted, released: false, releaseError: error });
  }
  return finish(ctx, lease, report, { exit, interrupted, released: true, outcome });
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function finish(
  ctx: CommandContext,
  lease: LeaseFile,
  report: RunReport,
  result:
    | { lost: LoopEnd }
    | {
        exit: Exit;
        interrupted?: NodeJS.Signals;
        released: boolean;
        outcome?: string;
        releaseError?: unknown;
      },
): number {
  const subject = formatSubject(lease);
  if ("lost" in result) {
    const code = result.lost.kind === "failed" ? exitCodes.other : exitCodes.lost;
    ctx.out.result(
      { ok: false, command: report.command, subject, ...report.extra, end: result.lost.kind },
      [],
    );
    return code;
  }
  const { exit, interrupted } = result;
  const code = interrupted
    ? 128 + (constants.signals[interrupted] ?? 15)
    : exit.signal
      ? 128 + (constants.signals[exit.signal] ?? 15)
      : (exit.code ?? exitCodes.other);
  ctx.out.result(
    {
      ok: code === 0,
      command: report.command,
      subject,
      ...report.extra,
      exitCode: exit.code,
      signal: exit.signal ?? interrupted ?? null,
      released: result.released,
      ...(result.outcome ? { outcome: result.outcome } : {}),
    },
    [],
  );
  return code;
}

function waitForExit(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    let exit: Exit | undefined;
    child.once("error", (error) => {
      child.stderr?.emit("data", Buffer.from(`claim-hold: could not start the command: ${error.message}\n`));
      resolve({ code: 127, signal: null });
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      // Give the pipes a moment to drain; a grandchild holding them open must not keep us waiting.
      setTimeout(() => resolve(exit as Exit), 500).unref();
    });
    child.once("close", (code, signal) => resolve(exit ?? { code, signal }));
  });
}

async function stopChild(ctx: CommandContext, child: ChildProcess, exited: Promise<Exit>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const grace = Number(ctx.env.CLAIM_HOLD_KILL_GRACE_MS);
  const timer = setTimeout(
    () => child.kill("SIGKILL"),
    Number.isFinite(grace) && grace >= 0 ? grace : 10_000,
  );
  await exited;
  clearTimeout(timer);
}

function createTail() {
  let buffer = "";
  return {
    push(chunk: Buffer) {
      buffer = (buffer + chunk.toString("utf8")).slice(-noteLimit * 2);
    },
    text() {
      return buffer.trimEnd().split("\n").slice(-tailLines).join("\n");
    },
  };
}
