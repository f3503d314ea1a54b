// `npm run demo`: claim-hold without a GitHub account — the simulator, the App and a small fleet of agent sessions.
//
// 1. Start the GitHub simulator and the App against it (credentials generated on the fly).
// 2. Seed octo/widgets with eleven issues (one p0, one assigned to a human, one needing design, one needing a GPU), a short
//    `.github/claim-hold.yml`, and install the App.
// 3. Run the scripted sessions while a watcher prints GitHub's changes and checks the invariants. The
//    sessions ask for work with `claims/next` (the fleet loop of docs/agents.md); nobody names an issue.
//    Among them: a session asks for a person and is answered, a zombie's PR waits in the merge queue
//    (its group passes while attested, fails once it is taken over), and a local sink given to the
//    App through `CLAIM_HOLD_NOTIFY` prints every notification it receives. Three issues are pinned to
//    named sessions: a `claim-hold run` that stalls, is taken over and has its command stopped by the
//    lease's event stream before its next heartbeat; one that fails three times and lands with a person;
//    and one whose spend reaches its budget: the lease pauses and asks, a person's `/budget +5` resumes it.
//    A `needs:gpu` issue is skipped by a `next` without the capability and given to one declaring `gpu`.
// 4. Print the summary (claims, takeovers, reaps, check verdicts, notifications, GitHub requests); exit 1 on a
//    broken invariant or a moment that did not happen.
// `npm run demo -- --forge gitea`: the story as far as Gitea supports it, on the Gitea simulator (scripts/demo/gitea-story.ts).
import { randomBytes } from "node:crypto";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import type { LocalStack } from "../tools/local-stack/start-local-stack.js";
import { AgentSession } from "./demo/agent-session.js";
import { runGiteaDemo } from "./demo/gitea-story.js";
import { budgetIssue, failingIssue, gpuIssue, runIssue, runLiveStories } from "./demo/live-stories.js";
import { type NotifySink, startNotifySink } from "./demo/notify-sink.js";
import { runStories } from "./demo/run-stories.js";
import { chooseStore, type DemoStore, dashboardUrl, startDemoStack } from "./demo/start-demo-stack.js";
import { Timeline } from "./demo/timeline.js";
import { watchGitHub } from "./demo/watch-github.js";

const repo = "octo/widgets";
const fleet = { login: "fleet-bot", token: `ghp_demo${randomBytes(12).toString("hex")}` };
const maintainer = "alice";
const config = [
  "# Demo durations: stale after 10 s of silence, reclaimable after 20 s, heartbeat every 3 s.",
  "taskClasses:",
  "  author: { ttl: 10s, reclaimAfter: 20s, heartbeat: 3s }",
  "  # Stalled after 6 s of heartbeats without progress; then another session may take it over.",
  "  reviewer: { ttl: 10s, reclaimAfter: 20s, heartbeat: 3s, stallAfter: 6s, onStall: reclaimable }",
  "limits: { claimsPerSession: 1 }",
  "# A reaped issue is offered again after 5 s (the failure breaker's backoff, 10 min by default).",
  "queue: { retryBackoff: 5s }",
  "# A session's spend pauses its lease at $2 (author work) until a person answers /budget.",
  "budgets: { author: { maxUsd: 2, onExhausted: pause } }",
  'notify: { mention: "@alice" }',
  "",
].join("\n");

async function startStack(sink: NotifySink): Promise<{ stack: LocalStack; store: DemoStore }> {
  // Every notification event (docs/deploy.md#9-notifications) goes to the sink; the repository's `notify.events` (the defaults) filters them.
  process.env.CLAIM_HOLD_NOTIFY = JSON.stringify([
    {
      url: sink.url,
      format: "json",
      events: ["takeover", "superseded-pr", "reaped", "needs-human", "budget-exhausted", "stalled"],
    },
  ]);
  const store = await chooseStore(process.env.REDIS_URL);
  if (store.warning) process.stderr.write(`${store.warning}\n`);
  const stack = await startDemoStack(store, {
    notify: process.env.CLAIM_HOLD_NOTIFY,
    logLevel: process.env.LOG_LEVEL ?? "error",
    janitorIntervalSeconds: 2,
    reconcileEvery: 1_000,
  });
  return { stack, store };
}

function seed(stack: LocalStack): void {
  stack.sim.seed({
    users: [{ login: fleet.login, tokens: [fleet.token] }, { login: maintainer }],
    repos: [
      {
        fullName: repo,
        files: { ".github/claim-hold.yml": config },
        collaborators: { [fleet.login]: "write", [maintainer]: "maintain" },
        issues: [
          { number: 1, title: "Fix the parser" },
          { number: 2, title: "Add retries to the uploader" },
          { number: 3, title: "Flaky test in CI", labels: ["p0"] },
          { number: 4, title: "Document the config" },
          { number: 5, title: "Redesign the logo", assignees: [maintainer] },
          { number: 6, title: "Bump dependencies" },
          { number: 7, title: "Rewrite it in Rust", labels: ["needs-design"] },
          // Pinned to named sessions (scripts/demo/live-stories.ts), never the fleet's `next`.
          { number: runIssue, title: "Review the importer", labels: ["pinned"] },
          { number: failingIssue, title: "Migrate the session store", labels: ["pinned"] },
          { number: budgetIssue, title: "Port the exporter", labels: ["pinned"] },
          // Only for a session that declares the `gpu` capability (`queue.capabilityPrefix` is `needs:`).
          { number: gpuIssue, title: "Benchmark the model on a GPU", labels: ["needs:gpu"] },
        ].map((issue) => ({ ...issue, author: maintainer })),
      },
    ],
    installations: [{ account: "octo", repos: [repo] }],
  });
}

function summarize(stack: LocalStack, timeline: Timeline): void {
  const c = (name: string) => timeline.counts.get(name) ?? 0;
  const requests = stack.sim.requests.counts();
  const total = Object.values(requests).reduce((sum, n) => sum + n, 0);
  const top = Object.entries(requests)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([route, n]) => `${n} ${route}`)
    .join(", ");
  const refused = [...timeline.counts]
    .filter(([name]) => name.startsWith("refused:"))
    .map(([name, n]) => `${n} ${name.slice("refused:".length)}`)
    .join(", ");
  const notices = [...timeline.counts]
    .filter(([name]) => name.startsWith("notify:"))
    .map(([name, n]) => `${n} ${name.slice("notify:".length)}`)
    .join(", ");
  const lines = [
    "",
    `── summary (${timeline.elapsed().toFixed(0)} s) ──────────────────────────────────────────`,
    `claims              ${c("claims")} new (${c("picks")} picked by next), ${c("re-claims")} re-claims, ${c("takeovers")} takeovers; refused: ${refused || "none"}`,
    `heartbeats          ${c("heartbeats")} accepted, ${c("heartbeat:superseded")} superseded, ${c("heartbeat:gone")} gone (heartbeats write only to the store)`,
    `releases            ${c("releases")}`,
    `janitor             ${c("janitor:relabel-stale")} marked stale, ${c("janitor:reap")} reaped, ${c("janitor:repair")} repaired, ${c("janitor:deferred")} deferred`,
    `check verdicts      ${c("check:success")} success, ${c("check:failure")} failure, ${c("check:neutral")} neutral (${c("merge-groups")} merge groups)`,
    `notifications       ${notices || "none"} (received by the local sink)`,
    `GitHub requests     ${total} in all (sim request log); most: ${top}`,
    `invariants          ${timeline.violations.length === 0 ? "held (one holder per issue, generations only go up, humans untouched)" : `BROKEN: ${timeline.violations.join("; ")}`}`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

async function main(): Promise<number> {
  const timeline = new Timeline();
  const sink = await startNotifySink(timeline);
  const { stack, store } = await startStack(sink).catch(async (error: unknown) => {
    await sink.close();
    throw error;
  });
  try {
    seed(stack);
    await stack.sim.flush();
    timeline.restart();
    timeline.line("setup", `GitHub simulator at ${stack.sim.url}, App at ${stack.app.url} (${store.label})`);
    timeline.line(
      "setup",
      `${repo}: 11 issues (#3 is p0, #5 assigned to @${maintainer}, #7 needs design, #${runIssue}, #${failingIssue} and #${budgetIssue} pinned to named sessions, #${gpuIssue} needs:gpu), ttl 10 s, reclaimAfter 20 s, heartbeat 3 s, budget $2`,
    );
    const dashboard = await dashboardUrl(stack);
    if (dashboard) timeline.line("setup", `dashboard: ${dashboard} (admin token ${stack.app.adminToken})`);
    timeline.line(
      "setup",
      "CLAIM_HOLD_NOTIFY: one local JSON sink (its URL is a secret, not printed); lines `notify → sink` are what it received",
    );

    const sessions: AgentSession[] = [];
    const heads = new Map<string, string>();
    const watcher = watchGitHub({
      sim: stack.sim,
      repo,
      timeline,
      sessions,
      lastReport: () => stack.app.services.janitor.lastReport(),
      humanHeld: new Map([[5, maintainer]]),
      heads,
    });
    const stories = runStories({
      sim: stack.sim,
      repo,
      timeline,
      fleetLogin: fleet.login,
      maintainer,
      heads,
      heartbeatSeconds: 3,
      session(name, runtime) {
        const client = createClaimHoldClient({
          baseUrl: stack.app.url,
          githubToken: fleet.token,
          retries: 2,
        });
        const session = new AgentSession(name, runtime, client, timeline);
        sessions.push(session);
        return session;
      },
    });
    const live = runLiveStories({
      sim: stack.sim,
      repo,
      timeline,
      appUrl: stack.app.url,
      fleetToken: fleet.token,
      maintainer,
      heartbeatSeconds: 3,
      session(name, runtime) {
        const client = createClaimHoldClient({
          baseUrl: stack.app.url,
          githubToken: fleet.token,
          retries: 2,
        });
        const session = new AgentSession(name, runtime, client, timeline);
        sessions.push(session);
        return session;
      },
    });
    const settled = await Promise.allSettled([...stories, ...live]);
    for (const outcome of settled)
      if (outcome.status === "rejected") timeline.violation(`a story failed: ${String(outcome.reason)}`);
    // A few more janitor sweeps and heartbeats after the last story, then stop.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, 55_000 - (Date.now() - timeline.started))),
    );
    for (const session of sessions) session.stopBeating();
    await stack.sim.flush();
    await watcher.stop();
    // The moments the demo is there to show; one missing is a broken demo, not a quiet success.
    const moments: [string, string][] = [
      ["notify:needs-human", "the sink never received a needs-human notification"],
      ["notify:takeover", "the sink never received a takeover notification"],
      ["moment:zombie-group-passed", "the zombie's merge group did not pass while its head was attested"],
      ["moment:zombie-group-failed", "the zombie's next merge group did not fail as a superseded holder"],
      ["notify:stalled", "the sink never received a stalled notification"],
      ["moment:run-stopped-by-stream", "the superseded `claim-hold run` was not stopped by its event stream"],
      ["moment:failing-landed", "the issue that failed three times did not land with a person"],
      ["moment:budget-paused", "the lease over its budget was not paused with agent:over-budget"],
      [
        "moment:budget-resumed",
        "the paused lease did not resume after /budget (label off, budget_raised heard)",
      ],
      [
        "moment:capability-routed",
        "the needs:gpu issue was not skipped without the capability and taken with it",
      ],
    ];
    for (const [count, missing] of moments) if (!timeline.counts.get(count)) timeline.violation(missing);
    summarize(stack, timeline);
  } finally {
    await stack.stop();
    await sink.close();
  }
  return timeline.violations.length === 0 ? 0 : 1;
}

/** `--forge gitea` (or `--forge=gitea`): the story on the Gitea simulator; default GitHub's. */
function forgeArgument(args: string[]): string {
  const at = args.findIndex((arg) => arg === "--forge" || arg.startsWith("--forge="));
  if (at < 0) return "github";
  const arg = args[at]!;
  return arg.includes("=") ? arg.slice("--forge=".length) : (args[at + 1] ?? "");
}

async function giteaMain(): Promise<number> {
  const store = await chooseStore(process.env.REDIS_URL);
  if (store.warning) process.stderr.write(`${store.warning}\n`);
  return runGiteaDemo({ timeline: new Timeline(), store, logLevel: process.env.LOG_LEVEL ?? "error" });
}

const forge = forgeArgument(process.argv.slice(2));
if (forge !== "github" && forge !== "gitea") {
  console.error(`demo: --forge is github or gitea, not "${forge}"`);
  process.exit(2);
}
(forge === "gitea" ? giteaMain() : main()).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
