// The Action's main step: claim the issue (or the best free one), export the lease and the `claim-hold`
// command to the job's later steps, and start a keepalive that heartbeats it until the post step
// (action/post.js) ends it.
import { spawn } from "node:child_process";
import { openSync } from "node:fs";
import { join } from "node:path";
import {
  appendRunnerFile,
  booleanInput,
  cliCommand,
  cliEnv,
  command,
  exposeCli,
  input,
  runCli,
  sessionIdOf,
} from "./runner.js";

/** Exit code 3 of the CLI: held by another, a pending takeover, or (for `next`) nothing free. */
const heldExit = 3;

function listInput(name) {
  return input(name)
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
}

/** `claim owner/repo#n …` or `next owner/repo …`, from the inputs. */
function claimArgs(repo) {
  const issue = input("issue");
  const next = booleanInput("next", false);
  if (next === (issue !== "")) throw new Error("set exactly one of the inputs issue and next");
  const taskClass = input("task-class");
  const common = [
    ...(taskClass ? ["--class", taskClass] : []),
    ...listInput("scope").flatMap((glob) => ["--scope", glob]),
    "--show-token",
  ];
  if (next) {
    return [
      "next",
      repo,
      ...listInput("labels").flatMap((label) => ["--label", label]),
      ...listInput("exclude-labels").flatMap((label) => ["--exclude-label", label]),
      ...(booleanInput("takeover", false) ? ["--takeovers"] : []),
      ...common,
    ];
  }
  const subject = /^\d+$/.test(issue) ? `${repo}#${issue}` : issue;
  const branch = input("branch");
  return [
    "claim",
    subject,
    ...(branch ? ["--branch", branch] : []),
    ...(booleanInput("takeover", false) ? ["--takeover"] : []),
    ...common,
  ];
}

async function main() {
  const url = input("url");
  const token = input("github-token");
  if (!url) throw new Error("input url is required (the claim-hold App's base URL)");
  if (!token) throw new Error("input github-token is required (a token of the agent's GitHub account)");
  command("add-mask", token);
  const repo = input("repo") || process.env.GITHUB_REPOSITORY || "";
  const cwd = input("working-directory") || process.env.GITHUB_WORKSPACE || process.cwd();
  const settings = { url, token, sessionId: sessionIdOf(), runtime: input("runtime") || "github-actions" };
  const cli = cliCommand();
  const env = cliEnv(process.env, settings);
  const binDir = exposeCli(cli);
  console.log(`claim-hold: the job's later steps can run claim-hold (${binDir})`);

  const args = claimArgs(repo);
  const { code, body, stderr } = await runCli(cli, args, { cwd, env });
  if (code !== 0 || !body?.ok) {
    const message = body?.message ?? (stderr.trim() || `claim-hold ${args[0]} exited ${code}`);
    appendRunnerFile("GITHUB_OUTPUT", "claimed", "false");
    appendRunnerFile("GITHUB_OUTPUT", "error", body?.error ?? "failed");
    if (code === heldExit && input("if-held") === "skip") {
      command("notice", `claim-hold: nothing claimed: ${message}`);
      return 0;
    }
    command("error", `claim-hold ${args[0]}: ${message}`);
    return code || 1;
  }

  const lease = body.lease;
  command("add-mask", lease.token);
  const exported = {
    CLAIM_HOLD_URL: url,
    CLAIM_HOLD_SESSION_ID: settings.sessionId,
    CLAIM_HOLD_RUNTIME: settings.runtime,
    CLAIM_HOLD_SUBJECT: lease.subject,
    CLAIM_HOLD_LEASE_ID: lease.leaseId,
    CLAIM_HOLD_LEASE_TOKEN: lease.token,
    CLAIM_HOLD_GENERATION: lease.generation,
    CLAIM_HOLD_BRANCH: lease.branch ?? "",
  };
  for (const [name, value] of Object.entries(exported)) appendRunnerFile("GITHUB_ENV", name, value);
  const outputs = {
    claimed: "true",
    created: String(body.created),
    subject: lease.subject,
    issue: lease.issue,
    "lease-id": lease.leaseId,
    generation: lease.generation,
    branch: lease.branch ?? "",
    "expires-at": lease.expiresAt,
    resume: JSON.stringify(body.resume ?? null),
  };
  for (const [name, value] of Object.entries(outputs)) appendRunnerFile("GITHUB_OUTPUT", name, value);
  for (const [name, value] of Object.entries({
    subject: lease.subject,
    branch: lease.branch ?? "",
    cwd,
    "session-id": settings.sessionId,
    runtime: settings.runtime,
  })) {
    appendRunnerFile("GITHUB_STATE", name, value);
  }
  console.log(
    `claim-hold: ${body.created ? "claimed" : "re-claimed"} ${lease.subject} · generation ${lease.generation} · ` +
      `branch ${lease.branch ?? "(none)"} · heartbeat every ${lease.heartbeatIntervalSeconds} s`,
  );
  if (body.resume) {
    console.log(`claim-hold: takeover: continue branch ${body.resume.branch ?? lease.branch}, not a new one`);
  }

  if (booleanInput("keepalive", true)) {
    // Detached and unreferenced: it outlives this step and heartbeats until the post step stops it.
    const log = join(process.env.RUNNER_TEMP || cwd, `claim-hold-keepalive-${process.pid}.log`);
    const out = openSync(log, "a");
    const [file, ...pre] = cli;
    const child = spawn(file, [...pre, "keepalive", "--issue", lease.subject], {
      cwd,
      env: {
        ...cliEnv(process.env, { ...settings, token: "" }),
        // A lease lost mid-job (superseded, revoked) cancels the run at once, live from the App's events.
        ...(booleanInput("cancel-on-loss", true)
          ? { CLAIM_HOLD_CANCEL_RUN_ON_LOSS: "true", CLAIM_HOLD_CANCEL_TOKEN: settings.token }
          : {}),
      },
      detached: true,
      stdio: ["ignore", out, out],
    });
    child.unref();
    appendRunnerFile("GITHUB_STATE", "keepalive-pid", child.pid);
    appendRunnerFile("GITHUB_STATE", "keepalive-log", log);
    console.log(`claim-hold: keepalive running (pid ${child.pid}, log ${log})`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    command("error", `claim-hold: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
