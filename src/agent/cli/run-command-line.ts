// The `claim-hold` command line: parses arguments, dispatches to one command, maps errors to exit codes.
import { constants } from "node:os";
import { parseArgs } from "node:util";
import type { AgentDeps } from "../actions/agent-context.js";
import { UsageError } from "../actions/errors.js";
import { sessionEnvVars } from "../actions/session.js";
import { abortableSleep, isClaimHoldError, redactSecrets } from "../client/index.js";
import type { CommandSpec, OptionSpec } from "./command.js";
import { claimCommand } from "./commands/claim.js";
import { installHookCommand } from "./commands/install-hook.js";
import { keepaliveCommand } from "./commands/keepalive.js";
import { attestCommand, heartbeatCommand, releaseCommand, verifyCommand } from "./commands/lease-calls.js";
import { nextCommand } from "./commands/next.js";
import { queueCommand } from "./commands/queue.js";
import { runCommand } from "./commands/run.js";
import { statusCommand } from "./commands/status.js";
import { type CommandContext, createOutput, type FlagValue } from "./context.js";
import { exitCodeFor, exitCodes } from "./exit-codes.js";

/** The CLI's own commands; the bin entry (src/agent/main.ts) adds `mcp`. */
export const cliCommands: readonly CommandSpec[] = [
  claimCommand,
  nextCommand,
  heartbeatCommand,
  keepaliveCommand,
  runCommand,
  verifyCommand,
  attestCommand,
  installHookCommand,
  releaseCommand,
  statusCommand,
  queueCommand,
];

const commonOptions: OptionSpec = {
  json: { type: "boolean" },
  debug: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  issue: { type: "string" },
  "show-token": { type: "boolean" },
};

const commonHelp = [
  "--json        machine-readable output on stdout (errors too)",
  "--debug       stack traces on errors",
  "-h, --help    this help",
];

export interface MainOptions extends Partial<AgentDeps> {
  /** Absolute path of `bin/claim-hold.js` (written into git hooks). */
  binPath: string;
}

/** Runs one invocation of one of `commands` and resolves with its exit code; never calls `process.exit`. */
export async function runCommandLine(
  commands: readonly CommandSpec[],
  argv: string[],
  options: MainOptions,
): Promise<number> {
  const stop = new AbortController();
  const deps: AgentDeps = {
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    signal: options.signal ?? stop.signal,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    fetch: options.fetch ?? globalThis.fetch,
  };
  const json = argv.includes("--json");
  const debug = argv.includes("--debug");
  const out = createOutput(json, deps);
  const [name, ...args] = argv;

  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const spec = commands.find((c) => c.name === args[0]);
    deps[name === undefined ? "stderr" : "stdout"].write(
      `${spec ? commandHelp(spec) : globalHelp(commands)}\n`,
    );
    return name === undefined ? exitCodes.usage : exitCodes.ok;
  }
  const spec = commands.find((c) => c.name === name);

  const removeSignalHandlers = options.signal ? () => {} : forwardSignals(stop);
  try {
    if (!spec) throw new UsageError(`unknown command "${name}"; see claim-hold --help`);
    const ctx = parseCommandLine(spec, args, { ...deps, out, binPath: options.binPath });
    if (ctx.flags.help === true) {
      deps.stdout.write(`${commandHelp(spec)}\n`);
      return exitCodes.ok;
    }
    return await spec.run(ctx);
  } catch (error) {
    return reportError(error, { out, json, debug, deps, command: name });
  } finally {
    removeSignalHandlers();
  }
}

function parseCommandLine(
  spec: CommandSpec,
  args: string[],
  base: Omit<CommandContext, "flags" | "positionals" | "rest">,
): CommandContext {
  const split = args.indexOf("--");
  const before = split === -1 ? args : args.slice(0, split);
  const rest = split === -1 ? [] : args.slice(split + 1);
  if (split !== -1 && !spec.rest) throw new UsageError(`${spec.name} takes no command after --`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: before,
      options: { ...commonOptions, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; see claim-hold ${spec.name} --help`);
  }
  const flags = parsed.values as Record<string, FlagValue>;
  if (flags.help !== true) {
    const count = parsed.positionals.length;
    if (count < spec.positionals.min || count > spec.positionals.max) {
      throw new UsageError(`usage: claim-hold ${spec.usage}`);
    }
  }
  return { ...base, flags, positionals: parsed.positionals, rest };
}

function reportError(
  error: unknown,
  context: {
    out: ReturnType<typeof createOutput>;
    json: boolean;
    debug: boolean;
    deps: AgentDeps;
    command: string;
  },
): number {
  const { deps, json, debug, command } = context;
  const secrets = [deps.env.GITHUB_TOKEN];
  if (deps.signal.aborted && (error === deps.signal.reason || (error as Error)?.name === "AbortError")) {
    const signal = String(deps.signal.reason) as NodeJS.Signals;
    deps.stderr.write(`claim-hold ${command}: interrupted by ${signal}\n`);
    return 128 + (constants.signals[signal] ?? 15);
  }
  const code = exitCodeFor(error);
  const message = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
  if (json) {
    const body = isClaimHoldError(error)
      ? { ok: false, error: error.code, status: error.status, message, ...error.details }
      : { ok: false, error: error instanceof UsageError ? "usage" : "internal", message };
    deps.stdout.write(`${redactSecrets(JSON.stringify(body), secrets)}\n`);
  } else {
    deps.stderr.write(`claim-hold ${command}: ${message}\n`);
  }
  if (debug && error instanceof Error && error.stack)
    deps.stderr.write(`${redactSecrets(error.stack, secrets)}\n`);
  return code;
}

/** First SIGINT/SIGTERM asks the command to stop; a second one ends the process at once. */
function forwardSignals(stop: AbortController): () => void {
  const handler = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(128 + (constants.signals[signal] ?? 15));
    stop.abort(signal);
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}

function globalHelp(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "claim-hold — claim GitHub issues for agent sessions, keep the claim alive, prove it before pushing",
    "",
    "usage: claim-hold <command> [options]",
    "",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "environment:",
    "  CLAIM_HOLD_URL   URL of the claim-hold App (lease commands fall back to the URL stored with the lease)",
    "  GITHUB_TOKEN     token of the agent's GitHub account (claim, next, run, queue)",
    `  session id       first of ${sessionEnvVars.map((v) => v.name).join(", ")},`,
    "                   else a random id kept in .git/claim-hold/session-id",
    "",
    "exit codes: 0 ok, 1 other error, 2 usage, 3 held by another (next: nothing eligible), 4 superseded or gone",
    "run `claim-hold <command> --help` for a command's options",
  ].join("\n");
}

function commandHelp(spec: CommandSpec): string {
  return [
    `usage: claim-hold ${spec.usage}`,
    "",
    spec.summary,
    "",
    ...(spec.details ?? []),
    ...commonHelp,
  ].join("\n");
}
