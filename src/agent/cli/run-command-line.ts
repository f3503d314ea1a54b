// The `claim-hold` command line: parses arguments (commander; help comes from the definitions), dispatches to
// one command, maps errors to exit codes.

import { constants } from "node:os";
import { Command, CommanderError, Option } from "commander";
import { isOtherForgesToken } from "../../domain/forge.js";
import type { AgentDeps } from "../actions/agent-context.js";
import { UsageError } from "../actions/errors.js";
import { repoOfClone } from "../actions/git-remote.js";
import { githubTokenFromEnv, resolveGithubToken, tokensInEnv } from "../actions/github-token.js";
import { packageVersion } from "../actions/package-version.js";
import { sessionEnvVars } from "../actions/session.js";
import { abortableSleep, isClaimHoldError, redactSecrets } from "../client/index.js";
import type { CommandSpec, OptionDefs } from "./command.js";
import { claimCommand } from "./commands/claim.js";
import { installHookCommand } from "./commands/install-hook.js";
import { keepaliveCommand } from "./commands/keepalive.js";
import { attestCommand, heartbeatCommand, releaseCommand, verifyCommand } from "./commands/lease-calls.js";
import { nextCommand } from "./commands/next.js";
import { queueCommand } from "./commands/queue.js";
import { runCommand } from "./commands/run.js";
import { statusCommand } from "./commands/status.js";
import { type CommandContext, createOutput, type FlagValue } from "./context.js";
import { describeError } from "./describe-error.js";
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

/** Options every command takes. */
const commonOptions: OptionDefs = {
  json: { description: "machine-readable output on stdout (errors too)" },
  debug: { description: "stack traces on errors" },
  forge: {
    value: "<forge>",
    description:
      "the forge your token is for (github, gitea, or gitea:<host> when the App serves several Gitea instances), when the App serves more than one (CLAIM_HOLD_FORGE)",
  },
};

const environmentHelp = [
  "Environment:",
  "  CLAIM_HOLD_URL  URL of the claim-hold App (lease commands fall back to the URL stored with the lease)",
  "  CLAIM_HOLD_FORGE  github or gitea: the forge of your token, only when the App serves more than one",
  "                  (--forge wins); with gitea, GH_TOKEN is an access token of the agent's Gitea account;",
  "                  with several Gitea instances, gitea:<host> (host[:port] of the instance's URL) names one",
  "  GH_TOKEN        token of the agent's GitHub account (claim, next, run, queue, mcp);",
  "  GITHUB_TOKEN    read when GH_TOKEN is not set; with neither, `gh auth token` when gh is on PATH",
  "                  (GitHub only: never asked with --forge gitea)",
  `  session id      first of ${sessionEnvVars.map((v) => v.name).join(", ")},`,
  "                  else a random id kept in .git/claim-hold/session-id",
  "",
  "Repository: `claim 12`, `next` and `queue` inside a clone read owner/repo from its origin remote",
  "(https or ssh, github.com or a GitHub Enterprise host); --repo or a full owner/repo#12 wins.",
  "",
  "Exit codes: 0 ok, 1 other error, 2 usage, 3 held by another (next: nothing eligible), 4 superseded or gone",
];

export interface MainOptions extends Partial<AgentDeps> {
  /** Absolute path of `bin/claim-hold.js` (written into git hooks; its package.json gives --version). */
  binPath: string;
}

interface Invocation {
  spec: CommandSpec;
  flags: Record<string, FlagValue>;
  positionals: string[];
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
  // `--` ends the CLI's arguments: what follows is the command of `run` / `next`, never parsed here.
  const split = argv.indexOf("--");
  const before = split === -1 ? argv : argv.slice(0, split);
  const rest = split === -1 ? [] : argv.slice(split + 1);
  const json = before.includes("--json");
  const debug = before.includes("--debug");
  const envToken = githubTokenFromEnv(deps.env)?.token;
  const name = before[0] ?? "";

  let invocation: Invocation | undefined;
  const program = buildProgram(commands, packageVersion(options.binPath), deps, (chosen) => {
    invocation = chosen;
  });
  if (argv.length === 0) {
    deps.stderr.write(program.helpInformation());
    return exitCodes.usage;
  }

  const removeSignalHandlers = options.signal ? () => {} : forwardSignals(stop);
  let secrets: (string | undefined)[] = tokensInEnv(deps.env);
  try {
    if (!parseCommandLine(program, before)) return exitCodes.ok; // help or version, already written
    if (!invocation) throw new UsageError("no command given; see claim-hold --help");
    const { spec } = invocation;
    if (split !== -1 && !spec.rest) throw new UsageError(`${spec.name} takes no command after --`);
    if (spec.rest?.required && rest.length === 0) {
      throw new UsageError(
        `${spec.name} needs a command after --, e.g. claim-hold ${spec.name} … -- npm test`,
      );
    }
    const forge = forgeOf(invocation.flags, deps.env);
    // gh keeps one token per host: a clone of a GitHub Enterprise repository asks for that host's.
    // Its token is GitHub's: another forge's account token comes from the environment only.
    const host = async () => (await repoOfClone(deps.cwd))?.host;
    const onGitHub = forge.forge === undefined || forge.forge.toLowerCase() === "github";
    if (spec.needsGithubToken && !onGitHub && envToken === undefined) {
      throw new UsageError(
        `no ${forge.forge} token: set GH_TOKEN or GITHUB_TOKEN to a token of the agent's ${forge.forge} account (\`gh auth token\` is GitHub's and is not asked)`,
      );
    }
    if (
      spec.needsGithubToken &&
      !onGitHub &&
      envToken !== undefined &&
      isOtherForgesToken("gitea", envToken)
    ) {
      throw new UsageError(
        `GH_TOKEN or GITHUB_TOKEN holds a GitHub token: set it to a token of the agent's ${forge.forge} account`,
      );
    }
    const githubToken =
      spec.needsGithubToken && onGitHub ? (await resolveGithubToken(deps.env, { host }))?.token : envToken;
    secrets = [...secrets, githubToken];
    const ctx: CommandContext = {
      ...deps,
      out: createOutput(json, deps, secrets),
      binPath: options.binPath,
      githubToken,
      ...forge,
      secrets,
      flags: invocation.flags,
      positionals: invocation.positionals,
      rest,
    };
    return await spec.run(ctx);
  } catch (error) {
    return reportError(error, { json, debug, deps, command: name, secrets });
  } finally {
    removeSignalHandlers();
  }
}

/** `--forge`, else `CLAIM_HOLD_FORGE`: sent to the App as is (it answers an unknown forge with 422). */
function forgeOf(flags: Record<string, FlagValue>, env: NodeJS.ProcessEnv): { forge?: string } {
  const named = typeof flags.forge === "string" ? flags.forge : env.CLAIM_HOLD_FORGE;
  const forge = named?.trim();
  return forge ? { forge } : {};
}

/** The program with one subcommand per spec; output goes to `deps`, errors are thrown, never exit the process. */
function buildProgram(
  commands: readonly CommandSpec[],
  version: string,
  deps: AgentDeps,
  onInvoke: (invocation: Invocation) => void,
): Command {
  const program = new Command("claim-hold")
    .description("claim GitHub issues for agent sessions, keep the claim alive, prove it before pushing")
    .version(version, "-V, --version", "print the version of claim-hold")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show help of a command")
    .addHelpText(
      "after",
      `\n${environmentHelp.join("\n")}\nRun \`claim-hold <command> --help\` for a command's options.`,
    );
  for (const spec of commands) program.addCommand(commandOf(spec, onInvoke));
  configure(program, deps);
  return program;
}

function commandOf(spec: CommandSpec, onInvoke: (invocation: Invocation) => void): Command {
  const command = new Command(spec.name).description(spec.summary).helpOption("-h, --help", "show help");
  for (const argument of spec.arguments) {
    command.argument(argument.required ? `<${argument.name}>` : `[${argument.name}]`, argument.description);
  }
  if (spec.rest) {
    command.usage(
      `[options]${spec.arguments.map((a) => (a.required ? ` <${a.name}>` : ` [${a.name}]`)).join("")} ${spec.rest.required ? "-- <cmd…>" : "[-- <cmd…>]"}`,
    );
  }
  for (const [name, def] of Object.entries({ ...spec.options, ...commonOptions })) {
    const flags = `${def.short ? `-${def.short}, ` : ""}--${name}${def.value ? ` ${def.value}` : ""}`;
    const option = new Option(flags, `${def.description}${def.repeatable ? " (repeatable)" : ""}`);
    if (def.repeatable)
      option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(option);
  }
  const notes = [...(spec.rest ? [`-- <cmd…>  ${spec.rest.description}`, ""] : []), ...(spec.notes ?? [])];
  if (notes.length > 0) command.addHelpText("after", `\n${notes.join("\n")}`);
  command.action(function (this: Command) {
    const values = this.opts() as Record<string, FlagValue>;
    const flags: Record<string, FlagValue> = {};
    for (const option of this.options)
      flags[option.long?.replace(/^--/, "") ?? ""] = values[option.attributeName()];
    onInvoke({ spec, flags, positionals: this.args.map(String) });
  });
  return command;
}

function configure(program: Command, deps: AgentDeps): void {
  for (const command of [program, ...program.commands]) {
    command.exitOverride();
    command.allowExcessArguments(false);
    command.configureOutput({
      writeOut: (text) => deps.stdout.write(text),
      writeErr: (text) => deps.stderr.write(text),
      // Parse errors are reported like every other error (exit 2, --json aware), not by commander.
      outputError: () => {},
    });
  }
}

/** Parses `args` (the chosen command's action records it); false when help or the version was printed instead. */
function parseCommandLine(program: Command, args: string[]): boolean {
  try {
    program.parse(args, { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.exitCode === 0) return false;
    const command = program.commands.find((c) => c.name() === args[0]);
    const see = command ? `claim-hold ${command.name()} --help` : "claim-hold --help";
    throw new UsageError(`${error.message.replace(/^error: /, "")}; see ${see}`);
  }
  return true;
}

function reportError(
  error: unknown,
  context: {
    json: boolean;
    debug: boolean;
    deps: AgentDeps;
    command: string;
    secrets: readonly (string | undefined)[];
  },
): number {
  const { deps, json, debug, command, secrets } = context;
  if (deps.signal.aborted && (error === deps.signal.reason || (error as Error)?.name === "AbortError")) {
    const signal = String(deps.signal.reason) as NodeJS.Signals;
    deps.stderr.write(`claim-hold ${command}: interrupted by ${signal}\n`);
    return 128 + (constants.signals[signal] ?? 15);
  }
  const code = exitCodeFor(error);
  if (json) {
    const message = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
    const body = isClaimHoldError(error)
      ? { ok: false, error: error.code, status: error.status, message, ...error.details }
      : { ok: false, error: error instanceof UsageError ? "usage" : "internal", message };
    deps.stdout.write(`${redactSecrets(JSON.stringify(body), secrets)}\n`);
  } else {
    const message = redactSecrets(describeError(error, deps.now()), secrets);
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
