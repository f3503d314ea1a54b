// The demo's stories on the issues pinned to named sessions: a `claim-hold run` that stalls, is taken over and has its command stopped by the live event stream; an issue that fails three times and lands with a person.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import type { AgentSession } from "./agent-session.js";
import type { Timeline } from "./timeline.js";

export interface LiveStage {
  sim: GitHubSimulator;
  repo: string;
  timeline: Timeline;
  appUrl: string;
  fleetToken: string;
  maintainer: string;
  session(name: string, runtime: string): AgentSession;
  heartbeatSeconds: number;
}

/** The issue a `claim-hold run` works on (class `reviewer`: stalled after 6 s without progress, then reclaimable). */
export const runIssue = 8;
/** The issue that fails three times in a row. */
export const failingIssue = 9;

const bin = resolve(import.meta.dirname, "../../bin/claim-hold.js");

function at(timeline: Timeline, seconds: number): Promise<void> {
  const wait = Math.max(0, seconds - timeline.elapsed()) * 1000;
  return new Promise((done) => setTimeout(done, wait));
}

/** The command `run` supervises: works until stopped, and says so when SIGTERM comes. */
const childScript = [
  "console.log('reviewing the importer…');",
  "process.on('SIGTERM', () => { console.log('got SIGTERM: stops before pushing anything'); process.exit(143); });",
  "setInterval(() => {}, 1000);",
].join(" ");

/** Every heartbeat the App answered `409 superseded` so far (its own /metrics). */
async function supersededBeats(appUrl: string): Promise<number> {
  const text = await (await fetch(`${appUrl}/metrics`)).text();
  return Number(/^claim_hold_heartbeats_total\{outcome="superseded"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

export function runLiveStories(stage: LiveStage): Promise<void>[] {
  return [storyRunTakenOver(stage), storyFailingThrice(stage)];
}

/**
 * A `claim-hold run` holds #8 and heartbeats, but its command makes no progress: stalled after 6 s,
 * and with `onStall: reclaimable` another session takes it over although the heartbeats go on. The
 * run hears `superseded` on the lease's event stream and stops its command — before its next
 * heartbeat, which would have been answered `409 superseded` (the App's metric says none was).
 */
async function storyRunTakenOver(stage: LiveStage): Promise<void> {
  const { timeline, repo } = stage;
  const label = "cli/r8 (claim-hold run)";
  const worktree = mkdtempSync(join(tmpdir(), "claim-hold-demo-run-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: worktree, stdio: "ignore" });
  let run: ChildProcess | undefined;
  try {
    git("init", "-q", "-b", "main");
    writeFileSync(join(worktree, "README.md"), "importer\n");
    git("add", ".");
    git("-c", "user.email=r8@example.com", "-c", "user.name=r8", "commit", "-q", "-m", "initial");
    await at(timeline, 1.5);
    timeline.line(label, `claim-hold run ${repo}#${runIssue} --class reviewer -- node review.js`, "info");
    run = spawn(
      process.execPath,
      [bin, "run", `${repo}#${runIssue}`, "--class", "reviewer", "--", process.execPath, "-e", childScript],
      {
        cwd: worktree,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          GIT_CONFIG_NOSYSTEM: "1",
          CLAIM_HOLD_URL: stage.appUrl,
          GITHUB_TOKEN: stage.fleetToken,
          CLAIM_HOLD_SESSION_ID: "r8",
          CLAIM_HOLD_RUNTIME: "cli",
          CLAIM_HOLD_HOST: "demo",
        },
      },
    );
    let claimedAt: number | null = null;
    let stoppedAt: number | null = null;
    const onClaimed: (() => void)[] = [];
    const print = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (!line.trim()) continue;
        if (line.startsWith("claimed ")) {
          claimedAt = timeline.elapsed();
          for (const done of onClaimed.splice(0)) done();
        }
        if (line.startsWith("got SIGTERM")) stoppedAt = Date.now();
        timeline.line(
          label,
          line.trim(),
          line.includes("superseded") || line.startsWith("got") ? "bad" : "info",
        );
      }
    };
    run.stdout?.on("data", print);
    run.stderr?.on("data", print);
    const exited = new Promise<number | null>((done) => run!.once("exit", (code) => done(code)));
    const claimed = new Promise<boolean>((done) => {
      onClaimed.push(() => done(true));
      void exited.then(() => done(false));
    });
    if (!(await claimed) || claimedAt === null) {
      timeline.line(label, "the run never claimed its issue", "bad");
      return;
    }

    // Heartbeats come every 3 s but nothing progresses: stalled 6 s after the claim.
    await at(timeline, claimedAt + 7);
    const k = stage.session("k8", "codex");
    timeline.line(
      k.label,
      `sees #${runIssue} stalled (heartbeats, no progress), asks to take it over`,
      "info",
    );
    const beatsBefore = await supersededBeats(stage.appUrl);
    const taken = await k.claim({ repo, issue: runIssue, takeover: true });
    const takenAt = Date.now();
    const code = await Promise.race([
      exited,
      new Promise<"running">((done) => setTimeout(() => done("running"), 5_000)),
    ]);
    const beatsAfter = await supersededBeats(stage.appUrl);
    if (taken && code === 4 && stoppedAt !== null && beatsAfter === beatsBefore) {
      const ms = Math.max(0, stoppedAt - takenAt);
      timeline.count("moment:run-stopped-by-stream");
      timeline.line(
        label,
        `its command was stopped ${ms} ms after the takeover, from the lease's event stream — before its next heartbeat (every ${stage.heartbeatSeconds} s); exit 4`,
        "warn",
      );
    } else {
      timeline.line(label, `still running or not stopped by the stream (exit ${String(code)})`, "bad");
    }
    if (taken) {
      k.startBeating(stage.heartbeatSeconds);
      await at(timeline, timeline.elapsed() + 3);
      await k.release("handoff", "review notes attached; the fix is its own issue");
    }
  } finally {
    if (run && run.exitCode === null) run.kill("SIGKILL");
    rmSync(worktree, { recursive: true, force: true });
  }
}

/**
 * Three sessions in turn claim #9 and release it `failed`; the third failure trips the failure
 * breaker: #9 leaves the queue with `agent:needs-human` and one summary comment for a person.
 */
async function storyFailingThrice(stage: LiveStage): Promise<void> {
  const { timeline, repo, sim } = stage;
  const attempts: [string, string, number, string][] = [
    ["g9", "claude-code", 12, "the migration times out against the staging snapshot"],
    ["h9", "codex", 14, "raised the timeout: still fails on the same table"],
    ["i9", "opencode", 16, "fails on rows from 2019: the legacy format needs a decision"],
  ];
  for (const [name, runtime, second, note] of attempts) {
    await at(timeline, second);
    const session = stage.session(name, runtime);
    if (!(await session.claim({ repo, issue: failingIssue }))) return;
    await at(timeline, second + 1);
    await session.release("failed", note);
  }
  await sim.flush();
  await at(timeline, 18.5);
  const issue = sim.issue(repo, failingIssue);
  const summary = issue.comments.find((comment) => comment.body.startsWith("🧯"));
  if (issue.labels.includes("agent:needs-human") && summary) {
    timeline.count("moment:failing-landed");
    timeline.line(
      `human/@${stage.maintainer}`,
      `#${failingIssue} failed 3 times: out of the queue, labelled agent:needs-human, one summary comment to read`,
      "warn",
    );
  }
}
