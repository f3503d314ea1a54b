// The demo's stories on the issues pinned to named sessions — a `claim-hold run` that stalls, is taken over and has its command stopped by the live event stream; an issue that fails three times and lands with a person; a budget that pauses and asks — and a GPU issue only a session declaring the capability gets.
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
/** The issue whose spend reaches its class's `maxUsd`: the lease pauses until a person answers `/budget`. */
export const budgetIssue = 10;
/** The issue labelled `needs:gpu`, not pinned: the fleet's `next` skips it, a session declaring `gpu` gets it. */
export const gpuIssue = 11;

const bin = resolve(import.meta.dirname, "../../bin/claim-hold.js");

function at(timeline: Timeline, seconds: number): Promise<void> {
  const wait = Math.max(0, seconds - timeline.elapsed()) * 1000;
  return new Promise((done) => setTimeout(done, wait));
}

/** Whether `check` holds within `ms` (asked every 100 ms): GitHub's side of a moment lands a webhook later. */
async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<boolean> {
  for (const until = Date.now() + ms; ; ) {
    if (await check()) return true;
    if (Date.now() >= until) return false;
    await new Promise((done) => setTimeout(done, 100));
  }
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
  return [
    storyRunTakenOver(stage),
    storyFailingThrice(stage),
    storyBudgetPaused(stage),
    storyGpuIssue(stage),
  ];
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

/**
 * j10 holds #10 (class `author`, `maxUsd: 2`) and reports its spend on its heartbeats. At $2.10 the
 * lease pauses instead of ending: the answer says `paused: "budget"`, #10 gets `agent:over-budget`
 * and a person is asked. Alice answers `/budget +5`: the label comes off, j10 hears `budget_raised`
 * on its lease's event stream, and its next heartbeat is no longer paused.
 */
async function storyBudgetPaused(stage: LiveStage): Promise<void> {
  const { timeline, repo, sim } = stage;
  const overBudget = "agent:over-budget";
  const labelled = () => sim.issue(repo, budgetIssue).labels.includes(overBudget);
  await at(timeline, 20);
  const j = stage.session("j10", "goose");
  if (!(await j.claim({ repo, issue: budgetIssue }))) return;
  const lease = j.lease!;
  j.startBeating(stage.heartbeatSeconds);
  // The lease's live events, as an agent listening for news between its heartbeats.
  const listening = new AbortController();
  const raises: Record<string, unknown>[] = [];
  const heard = (async () => {
    for await (const { event, data } of await j.client.leaseEvents(lease, { signal: listening.signal })) {
      if (event !== "budget_raised") continue;
      raises.push(data);
      const from = data.fromUsd === null ? "its class's limit" : `$${String(data.fromUsd)}`;
      timeline.line(
        j.label,
        `hears budget_raised on its lease's stream: ${from} → $${String(data.toUsd)} by @${String(data.by)}${data.resumed ? ", resumed" : ""}`,
        "ok",
      );
    }
  })().catch(() => undefined);
  try {
    await at(timeline, 21);
    await j.reportSpend(1.4);
    await at(timeline, 23);
    await j.reportSpend(2.1);
    const pausedAsked =
      j.pausedBy === "budget" && j.lastState === "waiting" && (await within(2_000, labelled));
    // Printed after the watcher's GitHub lines for the label and the ask.
    await at(timeline, 24);
    if (pausedAsked) {
      timeline.count("moment:budget-paused");
      timeline.line(
        `human/@${stage.maintainer}`,
        `#${budgetIssue} reached its $2 budget: the lease paused (not ended), labelled ${overBudget}, asked to answer /budget`,
        "warn",
      );
    }
    await at(timeline, 26);
    sim.comment({ repo, issue: budgetIssue, login: stage.maintainer, body: "/budget +5" });
    timeline.line(`human/@${stage.maintainer}`, `commented /budget +5 on #${budgetIssue}`, "warn");
    const answered = await within(2_500, () => raises.length > 0 && !labelled());
    await at(timeline, 28);
    await j.beat();
    const resumed = answered && j.pausedBy === null && j.lastState === "active";
    if (pausedAsked && resumed) {
      timeline.count("moment:budget-resumed");
      timeline.line(
        j.label,
        `#${budgetIssue} raised to $${String(raises[0]?.toUsd)} by /budget: ${overBudget} off, budget_raised heard on the stream, heartbeat no longer paused: carries on`,
        "ok",
      );
    }
    await at(timeline, 30);
    await j.reportSpend(3.2);
    await j.release("completed", "exporter ported");
  } finally {
    listening.abort();
    await heard;
  }
}

/**
 * #11 is labelled `needs:gpu`. m11 declares no capability: its `next` skips #11 (`missingCapability`)
 * and the queue view says what it lacks. n11 declares `capabilities: ["gpu"]` and is given #11.
 */
async function storyGpuIssue(stage: LiveStage): Promise<void> {
  const { timeline, repo } = stage;
  const work = { repo, excludeLabels: ["needs-design", "pinned"] };
  // After the fleet's first picks (0–2 s), so the capability decides, not the queue's order.
  await at(timeline, 2.5);
  const m = stage.session("m11", "aider");
  timeline.line(m.label, "declares no capability, asks for work", "info");
  const cpuPick = await m.next(work);
  const skippedByNext = cpuPick === null && (m.lastSkipped?.missingCapability ?? 0) > 0;
  const view = await m.client.queue(repo);
  const row = view.skipped.find((skip) => skip.issue === gpuIssue);
  if (row)
    timeline.line(
      m.label,
      `queue view: #${gpuIssue} skipped (${row.reason}${row.missing ? `, missing ${row.missing.join(", ")}` : ""})`,
      "info",
    );
  await at(timeline, 3.5);
  const n = stage.session("n11", "pi");
  timeline.line(n.label, `declares capabilities ["gpu"], asks for work`, "info");
  const gpuPick = await n.next({ ...work, capabilities: ["gpu"] });
  if (skippedByNext && row?.reason === "missingCapability" && gpuPick?.picked.issue === gpuIssue) {
    timeline.count("moment:capability-routed");
    timeline.line(
      n.label,
      `#${gpuIssue} (needs:gpu) went to the session declaring gpu; the one without skipped it`,
      "ok",
    );
  }
  if (!gpuPick) return;
  n.startBeating(stage.heartbeatSeconds);
  await at(timeline, 9);
  await n.release("handoff", "benchmarks attached; the slow kernel is its own issue");
}
