// The Action's post step (runs whatever the job's outcome): stop the keepalive, attest the head pushed
// to the lease's branch, and release the claim with an outcome that follows the job's status.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { booleanInput, cliCommand, cliEnv, command, input, runCli } from "./runner.js";

const run = promisify(execFile);
const state = (name) => (process.env[`STATE_${name}`] ?? "").trim();

async function stopKeepalive(pid) {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return "the keepalive had already stopped";
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return "keepalive stopped";
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.kill(pid, "SIGKILL");
  return "keepalive killed after 10 s";
}

/** The commit at the head of `branch` on the remote, or null when nothing was pushed there. */
async function pushedHead(cwd, branch) {
  const remote = input("remote") || "origin";
  const { stdout } = await run("git", ["ls-remote", "--heads", remote, `refs/heads/${branch}`], {
    cwd,
  }).catch(() => ({ stdout: "" }));
  const sha = stdout.split(/\s/)[0];
  return /^[0-9a-f]{40}$/.test(sha ?? "") ? sha : null;
}

/** success → outcome-on-success (completed); failure or cancelled → outcome-on-failure (handoff). */
function releaseOutcome() {
  const status = (input("job-status") || "success").toLowerCase();
  const outcome =
    status === "success"
      ? input("outcome-on-success") || "completed"
      : input("outcome-on-failure") || "handoff";
  const run = process.env.GITHUB_RUN_ID
    ? `${process.env.GITHUB_SERVER_URL ?? "https://github.com"}/${process.env.GITHUB_REPOSITORY}/actions/runs/${process.env.GITHUB_RUN_ID}`
    : "the workflow run";
  return {
    status,
    outcome,
    note: `GitHub Actions job ${process.env.GITHUB_JOB ?? ""} ended ${status}: ${run}`,
  };
}

async function main() {
  const subject = state("subject");
  if (!subject) {
    console.log("claim-hold: no claim was made in this job; nothing to release");
    return 0;
  }
  const cwd = state("cwd") || process.cwd();
  const settings = {
    url: input("url"),
    token: "",
    sessionId: state("session-id"),
    runtime: state("runtime"),
  };
  const env = cliEnv(process.env, settings);
  const cli = cliCommand();

  let lost = false;
  const pid = Number(state("keepalive-pid"));
  if (pid > 0) {
    console.log(`claim-hold: ${await stopKeepalive(pid)}`);
    const log = state("keepalive-log");
    const tail = log ? readFileSync(log, "utf8").trim().split("\n").slice(-3).join("\n") : "";
    if (/superseded|gone|expired/.test(tail)) {
      command("error", `claim-hold: the lease was lost during the job; its work must not be used: ${tail}`);
      lost = true;
    }
  }

  const status = await runCli(cli, ["status", "--issue", subject], { cwd, env });
  const held = status.body?.leases?.some((lease) => lease.subject === subject);
  if (!held) {
    console.log(`claim-hold: ${subject} was already released in this job`);
    return lost ? 1 : 0;
  }

  const branch = state("branch");
  if (booleanInput("attest", true) && branch) {
    const sha = await pushedHead(cwd, branch);
    if (!sha) {
      console.log(`claim-hold: nothing pushed to ${branch}; no attestation`);
    } else {
      const attested = await runCli(cli, ["attest", sha, "--issue", subject], { cwd, env });
      if (attested.code === 0) console.log(`claim-hold: attested ${sha} (the head of ${branch})`);
      else
        command("warning", `claim-hold attest ${sha}: ${attested.body?.message ?? attested.stderr.trim()}`);
    }
  }

  const { status: jobStatus, outcome, note } = releaseOutcome();
  const released = await runCli(cli, ["release", "--issue", subject, "--outcome", outcome, "--note", note], {
    cwd,
    env,
  });
  if (released.code === 0) {
    console.log(`claim-hold: released ${subject} (${outcome}; the job ended ${jobStatus})`);
    return lost ? 1 : 0;
  }
  // Superseded or gone: someone else holds the issue now; the lease is forgotten all the same.
  command("warning", `claim-hold release: ${released.body?.message ?? released.stderr.trim()}`);
  if (lost) return 1;
  return released.code === 4 ? 0 : released.code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    command("error", `claim-hold: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
