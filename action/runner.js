// What the Action's two entry points share: the runner's inputs and files, and the claim-hold CLI as a child process.
// Plain Node (no dependencies): the runner executes this file from the Action's checkout as it is.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
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
 * How the CLI is run: the `cli` input (a command line, e.g. `node /path/bin/claim-hold.js`); else the
 * Action's own checkout when it carries a build (dist/); else the published package of the Action's version.
 */
export function cliCommand(env = process.env) {
  const given = input("cli", env);
  if (given) return given.split(/\s+/);
  if (existsSync(join(actionRoot, "dist", "agent", "main.js"))) {
    return [process.execPath, join(actionRoot, "bin", "claim-hold.js")];
  }
  const { version } = JSON.parse(readFileSync(join(actionRoot, "package.json"), "utf8"));
  return ["npx", "--yes", `claim-hold@${version}`];
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

/** The CLI's environment: the runner's, plus the App URL, the agent's token and the session. */
export function cliEnv(base, settings) {
  return {
    ...base,
    CLAIM_HOLD_URL: settings.url,
    ...(settings.token ? { GITHUB_TOKEN: settings.token } : {}),
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
