// What the Action's two entry points share: the runner's inputs and files, and the claim-hold CLI as a child process.
// Plain Node (no dependencies): the runner executes this file from the Action's checkout as it is, and
// the CLI is the bundle committed next to it (action/dist/).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const actionRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/** An input as the runner passes it (`INPUT_<NAME>`, spaces as underscores), trimmed; "" when unset. */
export function input(name, env = process.env) {
  return (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
}

export function booleanInput(name, fallback, env = process.env) {
  const value = input(name, env).toLowerCase();
  if (value === "") return fallback;
  if (["true", "yes", "1"].includes(value)) return true;
  if (["false", "no", "0"].includes(value)) return false;
  throw new Error(`input ${name} must be true or false, got "${value}"`);
}

/** Appends `name=value` to one of the runner's files (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE). */
export function appendRunnerFile(variable, name, value, env = process.env) {
  const file = env[variable];
  if (!file) throw new Error(`${variable} is not set: run this inside a GitHub Actions job`);
  const text = String(value);
  if (!text.includes("\n")) {
    appendFileSync(file, `${name}=${text}\n`);
    return;
  }
  const delimiter = `claim_hold_${randomBytes(8).toString("hex")}`;
  appendFileSync(file, `${name}<<${delimiter}\n${text}\n${delimiter}\n`);
}

/** Workflow commands (`::error::…`), with the characters the runner needs escaped. */
export function command(name, message) {
  const escaped = String(message).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  process.stdout.write(`::${name}::${escaped}\n`);
}

/**
 * The CLI bundled into this Action (action/dist/, committed; `npm run build:action`). The Action runs
 * nothing else: no package is installed or fetched at run time, so pinning the Action's tag or SHA pins
 * every line of code it runs.
 */
export const bundledCli = join(actionRoot, "action", "dist", "bin", "claim-hold.js");

/** How the CLI is run: the Node running this Action, on the bundle. */
export function cliCommand(bundle = bundledCli) {
  if (!existsSync(bundle)) {
    throw new Error(
      `the Action's CLI bundle ${bundle} is missing: this ref of the Action carries no action/dist/. ` +
        "Use a release tag or a commit of main, or run npm run build:action in a fork",
    );
  }
  return [process.execPath, bundle];
}

/**
 * Puts `claim-hold` on the PATH of the job's later steps: a shim in `dir` that runs the bundle with the
 * Node running this Action (the runner's own, whatever `node` a later step finds), and `dir` on GITHUB_PATH.
 */
export function exposeCli(cli, env = process.env) {
  const dir = join(env.RUNNER_TEMP || tmpdir(), "claim-hold-bin");
  mkdirSync(dir, { recursive: true });
  const quote = (text) => `'${text.replace(/'/g, "'\\''")}'`;
  writeFileSync(join(dir, "claim-hold"), `#!/bin/sh\nexec ${cli.map(quote).join(" ")} "$@"\n`);
  chmodSync(join(dir, "claim-hold"), 0o755);
  if (process.platform === "win32") {
    writeFileSync(join(dir, "claim-hold.cmd"), `@${cli.map((part) => `"${part}"`).join(" ")} %*\r\n`);
  }
  const file = env.GITHUB_PATH;
  if (!file) throw new Error("GITHUB_PATH is not set: run this inside a GitHub Actions job");
  appendFileSync(file, `${dir}\n`);
  return dir;
}

/** Runs the CLI with `args` and `--json`; resolves with its exit code and the JSON it printed. */
export function runCli(cli, args, options) {
  return new Promise((resolve, reject) => {
    const [file, ...pre] = cli;
    const child = spawn(file, [...pre, ...args, "--json"], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      let body;
      try {
        body = JSON.parse(stdout.trim().split("\n").pop() || "null");
      } catch {
        body = null;
      }
      resolve({ code: code ?? 1, body, stderr });
    });
  });
}

/**
 * The CLI's environment: the runner's, plus the App URL, the agent's token and the session. The CLI
 * reads GH_TOKEN before GITHUB_TOKEN, so the `token` input is set as both: a GH_TOKEN the job set for
 * `gh` must not override the identity the workflow gave the Action.
 */
export function cliEnv(base, settings) {
  return {
    ...base,
    CLAIM_HOLD_URL: settings.url,
    ...(settings.token ? { GH_TOKEN: settings.token, GITHUB_TOKEN: settings.token } : {}),
    CLAIM_HOLD_SESSION_ID: settings.sessionId,
    CLAIM_HOLD_RUNTIME: settings.runtime,
    ...(base.RUNNER_NAME ? { CLAIM_HOLD_HOST: base.RUNNER_NAME } : {}),
  };
}

/** The session id of this job: one per run attempt and job, unless the workflow names one. */
export function sessionIdOf(env = process.env) {
  const given = input("session-id", env);
  if (given) return given;
  return ["gha", env.GITHUB_RUN_ID, env.GITHUB_RUN_ATTEMPT, env.GITHUB_JOB].filter(Boolean).join("-");
}
