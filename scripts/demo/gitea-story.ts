// `npm run demo -- --forge gitea`: the demo's story on the Gitea simulator — direct claims and a `claims/next` pick, heartbeats, a refused duplicate, a reap, `/reclaim` and the fence's commit status.
import { randomBytes } from "node:crypto";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import type { SweepReport } from "../../src/janitor/janitor.js";
import {
  type GiteaSimulator,
  type SimIssue,
  type SimRepo,
  startGiteaSimulator,
} from "../../tools/gitea-sim/index.js";
import type { LocalStack } from "../../tools/local-stack/start-local-stack.js";
import { AgentSession } from "./agent-session.js";
import { type DemoStore, startDemoStack } from "./start-demo-stack.js";
import type { Timeline } from "./timeline.js";

const repoName = "octo/widgets";
const botLogin = "claim-hold-bot";
const fleetLogin = "fleet-bot";
const maintainer = "alice";
const beatSeconds = 2;
/** The store's installation record of the instance the App serves with `installationId: 1`. */
const giteaRecord = giteaInstallationRecordId(1);
const config = [
  "# Demo durations: stale after 10 s of silence, reclaimable (reaped) after 20 s, heartbeat every 2 s.",
  "taskClasses:",
  "  author: { ttl: 10s, reclaimAfter: 20s, heartbeat: 2s }",
  "limits: { claimsPerSession: 1 }",
  "",
].join("\n");

/** The moments the Gitea story is there to show; one missing is a broken demo. */
export const giteaMoments: [string, string][] = [
  ["claims", "no agent claimed a Gitea issue"],
  ["picks", "no session asked claims/next for its Gitea issue"],
  ["heartbeats", "no heartbeat was accepted"],
  ["refused:held", "the duplicate claim of a held issue was not refused 409 held"],
  ["janitor:reap", "the janitor did not reap the silent agent's claim"],
  ["moment:reclaimed", "the maintainer's /reclaim did not take the issue back"],
  ["heartbeat:superseded", "the superseded holder's heartbeat was not answered superseded"],
  ["moment:status-red-superseded", "the superseded holder's PR did not get a red `Superseded holder` status"],
  ["moment:status-green-attested", "the current holder's attested PR did not get a green status"],
  ["moment:reaped-claimed-again", "the reaped issue was not claimed again"],
  ["releases", "no lease was released"],
];

interface GiteaStage {
  gitea: GiteaSimulator;
  repo: SimRepo;
  stack: LocalStack;
  timeline: Timeline;
}

/** Resolves at `seconds` after the story started. */
function at(timeline: Timeline, seconds: number): Promise<void> {
  const wait = Math.max(0, seconds - timeline.elapsed()) * 1000;
  return new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * What Gitea sends the App's webhook when something happens: through the hooks the App made on the
 * repository (each signed with its own per-repository secret), as Gitea does.
 */
async function deliver(stage: GiteaStage, event: string, payload: unknown): Promise<void> {
  const answers = await stage.gitea.deliverToHooks(stage.repo, { event, payload });
  if (answers.length === 0) throw new Error(`no hook of the App on ${repoName} takes ${event}`);
  for (const answer of answers)
    if (answer.status >= 300) throw new Error(`Gitea ${event} delivery answered ${answer.status}`);
  await stage.stack.app.settled();
}

/** The newest `claim-hold` commit status on a head, as `state: description`. */
function statusOn(stage: GiteaStage, sha: string): string | null {
  const status = (stage.repo.statuses.get(sha) ?? []).filter((s) => s.context === "claim-hold").at(-1);
  return status ? `${status.state}: ${status.description}` : null;
}

/** Prints what changed on the Gitea issues and the janitor's actions, and checks one assignee at most per issue. */
function watchGitea(stage: GiteaStage): { stop(): Promise<void> } {
  const { repo, timeline } = stage;
  const seen = new Map<number, string>();
  let lastReportAt = "";
  const labelsOf = (issue: SimIssue) =>
    issue.labelIds.map((id) => repo.labels.find((label) => label.id === id)?.name ?? "?").join(", ");
  const scan = async () => {
    for (const issue of repo.issues.filter((i) => !i.isPull)) {
      const now = `assignees [${issue.assignees.join(", ")}], labels [${labelsOf(issue)}], ${issue.state}`;
      if (seen.get(issue.number) !== now) {
        if (seen.has(issue.number)) timeline.line("Gitea", `#${issue.number}: ${now}`, "info");
        seen.set(issue.number, now);
      }
      if (issue.assignees.length > 1)
        timeline.violation(`#${issue.number} has ${issue.assignees.length} assignees`);
    }
    const report: SweepReport | null = await stage.stack.app.services.janitor.lastReport();
    if (!report || report.at === lastReportAt) return;
    lastReportAt = report.at;
    for (const action of report.actions) {
      timeline.count(`janitor:${action.action}`);
      timeline.line("janitor", `${action.action} ${action.subject} (${action.reason})`, "warn");
    }
  };
  void scan();
  const timer = setInterval(() => void scan(), 250);
  return {
    async stop() {
      clearInterval(timer);
      await scan();
    },
  };
}

/** The scripted sessions on Gitea: about 25 s, most of it waiting for the janitor to reap a silent claim. */
async function runGiteaStories(stage: GiteaStage, session: (name: string, runtime: string) => AgentSession) {
  const { gitea, repo, timeline } = stage;
  const a = session("a1", "claude-code");
  const b = session("b2", "codex");
  const c = session("c3", "opencode");
  const d = session("d4", "pi");
  const e = session("e5", "aider");
  // Three sessions name their issue; the fourth asks `claims/next` and gets the one left (#4).
  for (const [i, s] of [a, b, c].entries()) {
    if (await s.claim({ repo: repoName, issue: i + 1 })) s.startBeating(beatSeconds);
  }
  if (await d.next({ repo: repoName })) d.startBeating(beatSeconds);
  await at(timeline, 1);
  c.crash();

  /** The agent pushes its branch and opens a PR; Gitea tells the App (`pull_request` opened). */
  const openPull = async (s: AgentSession, title: string) => {
    const issue = s.issue!;
    const pull = gitea.state.addPullRequest(repo, {
      title,
      author: fleetLogin,
      body: `Closes #${issue}`,
      headRef: s.lease?.branch ?? `agent/${s.name}/${issue}`,
    });
    const head = pull.pull!.headSha;
    timeline.line(s.label, `pushed ${head.slice(0, 7)} and opened PR #${pull.number} (closes #${issue})`);
    await deliver(stage, "pull_request", gitea.payloads.pullRequest(repo, pull, fleetLogin, "opened"));
    timeline.line("Gitea", `PR #${pull.number} status claim-hold → ${statusOn(stage, head)}`, "warn");
    return { pull, head, issue };
  };
  const attest = async (s: AgentSession, pull: SimIssue, head: string) => {
    await s.attest(head);
    await stage.stack.app.settled();
    const status = statusOn(stage, head);
    timeline.line(
      "Gitea",
      `PR #${pull.number} status claim-hold → ${status}`,
      status?.startsWith("success") ? "ok" : "bad",
    );
    return status;
  };

  const storyA = async () => {
    await at(timeline, 2);
    // Another session names a1's issue: refused, nothing is written on Gitea.
    await e.claim({ repo: repoName, issue: 1 });
    await at(timeline, 3);
    const { pull, head, issue } = await openPull(a, "Fix the parser");
    await at(timeline, 4);
    if ((await attest(a, pull, head))?.startsWith("success")) timeline.count("moment:status-green-attested");
    await at(timeline, 9);
    await a.release("completed", "merged");
    pull.state = "closed";
    const closed = repo.issues.find((i) => i.number === issue)!;
    closed.state = "closed";
    closed.closedAt = Date.now();
    timeline.line(`human/@${maintainer}`, `merged PR #${pull.number}; Gitea closed #${issue}`, "ok");
    await deliver(stage, "issues", gitea.payloads.issues(repo, closed, maintainer, "closed"));
  };

  const storyB = async () => {
    await at(timeline, 3.5);
    const { pull, head, issue } = await openPull(b, "Add retries to the uploader");
    await at(timeline, 5);
    await attest(b, pull, head);
    await at(timeline, 7);
    const target = repo.issues.find((i) => i.number === issue)!;
    const command = gitea.state.addComment(target, maintainer, "/reclaim");
    timeline.line(`human/@${maintainer}`, `commented /reclaim on #${issue}`, "warn");
    await deliver(stage, "issue_comment", gitea.payloads.issueComment(repo, target, command.id, maintainer));
    const record = await stage.stack.stores.claims.get({
      installationId: giteaRecord,
      repoId: repo.id,
      issue,
    });
    if (record?.state === "human") {
      timeline.count("moment:reclaimed");
      timeline.line(
        "claim-hold",
        `#${issue} is @${maintainer}'s now (generation ${record.generation})`,
        "warn",
      );
    }
    const status = statusOn(stage, head);
    timeline.line("Gitea", `PR #${pull.number} status claim-hold → ${status}`, "bad");
    if (status === "failure: Superseded holder") timeline.count("moment:status-red-superseded");
    // b2 does not know yet: its next heartbeat (within 2 s) is answered superseded and it stops.
  };

  const storyD = async () => {
    await at(timeline, 12);
    await d.release("handoff", "partial work pushed, picking up later");
  };

  // c3 went silent at 1 s: stale at ~11 s, reaped at ~21 s; then e5 claims the issue again.
  const storyC = async () => {
    const deadline = Date.now() + 40_000;
    while (!timeline.counts.get("janitor:reap") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    if (!timeline.counts.get("janitor:reap")) return;
    const taken = await e.claim({ repo: repoName, issue: 3 });
    if (taken && taken.lease.generation > 1) timeline.count("moment:reaped-claimed-again");
    await at(timeline, timeline.elapsed() + 1);
    await e.release("completed", "done");
  };

  const settled = await Promise.allSettled([storyA(), storyB(), storyC(), storyD()]);
  for (const outcome of settled)
    if (outcome.status === "rejected") timeline.violation(`a story failed: ${String(outcome.reason)}`);
  for (const s of [a, b, c, d, e]) s.stopBeating();
}

export interface GiteaDemoOptions {
  timeline: Timeline;
  store: DemoStore;
  logLevel: string;
}

/** Runs the Gitea story; answers the exit code (1 on a broken invariant or a missing moment). */
export async function runGiteaDemo(options: GiteaDemoOptions): Promise<number> {
  const { timeline, store } = options;
  const gitea = await startGiteaSimulator();
  const botToken = `gitea_bot_${randomBytes(16).toString("hex")}`;
  const fleetToken = `gitea_fleet_${randomBytes(16).toString("hex")}`;
  const webhookSecret = randomBytes(24).toString("hex");
  gitea.state.addUser(botLogin, botToken);
  gitea.state.addUser(fleetLogin, fleetToken);
  gitea.state.addUser(maintainer);
  gitea.state.addUser("octo");
  const repo = gitea.state.addRepo(repoName, {
    [botLogin]: "admin",
    [fleetLogin]: "write",
    [maintainer]: "admin",
  });
  repo.files.set(".gitea/claim-hold.yml", config);
  for (const title of [
    "Fix the parser",
    "Add retries to the uploader",
    "Flaky test in CI",
    "Document the config",
  ])
    gitea.state.addIssue(repo, { title, author: maintainer });
  let stack: LocalStack | undefined;
  try {
    stack = await startDemoStack(store, {
      logLevel: options.logLevel,
      janitorIntervalSeconds: 2,
      // The janitor's reconcile lists GitHub installations: not in a Gitea-only story.
      reconcileEvery: 1_000_000,
      gitea: { url: gitea.url, token: botToken, webhookSecret, installationId: 1, writeSpacingMs: 0 },
    });
    const stage: GiteaStage = { gitea, repo, stack, timeline };
    const githubMark = stack.sim.requests.mark();
    timeline.restart();
    timeline.line("setup", `Gitea simulator at ${gitea.url}, App at ${stack.app.url} (${store.label})`);
    timeline.line(
      "setup",
      `${repoName} on Gitea: 4 issues, .gitea/claim-hold.yml: ttl 10 s, reclaimAfter 20 s, heartbeat 2 s; agents send X-Claim-Hold-Forge: gitea`,
    );
    timeline.line("setup", "a1, b2 and c3 claim by name; d4 asks claims/next for the best free issue");
    const watcher = watchGitea(stage);
    const app = stack.app;
    await runGiteaStories(stage, (name, runtime) => {
      const client = createClaimHoldClient({
        baseUrl: app.url,
        githubToken: fleetToken,
        forge: "gitea",
        retries: 2,
      });
      return new AgentSession(name, runtime, client, timeline);
    });
    await app.settled();
    await watcher.stop();
    await stack.sim.flush();
    const githubRequests = Object.values(stack.sim.requests.counts(githubMark)).reduce(
      (sum, n) => sum + n,
      0,
    );
    if (githubRequests > 0) timeline.violation(`the Gitea story made ${githubRequests} GitHub requests`);
    for (const [count, missing] of giteaMoments) if (!timeline.counts.get(count)) timeline.violation(missing);
    summarize(timeline, gitea, githubRequests);
  } finally {
    await stack?.stop();
    await gitea.close();
  }
  return timeline.violations.length === 0 ? 0 : 1;
}

function summarize(timeline: Timeline, gitea: GiteaSimulator, githubRequests: number): void {
  const c = (name: string) => timeline.counts.get(name) ?? 0;
  const routes: Record<string, number> = {};
  for (const request of gitea.requests) routes[request.route] = (routes[request.route] ?? 0) + 1;
  const top = Object.entries(routes)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 5)
    .map(([route, n]) => `${n} ${route}`)
    .join(", ");
  const refused = [...timeline.counts]
    .filter(([name]) => name.startsWith("refused:"))
    .map(([name, n]) => `${n} ${name.slice("refused:".length)}`)
    .join(", ");
  const lines = [
    "",
    `── summary, Gitea (${timeline.elapsed().toFixed(0)} s) ─────────────────────────────────────`,
    `claims              ${c("claims")} new, ${c("re-claims")} re-claims; refused: ${refused || "none"}`,
    `heartbeats          ${c("heartbeats")} accepted, ${c("heartbeat:superseded")} superseded, ${c("heartbeat:gone")} gone (heartbeats write only to the store)`,
    `releases            ${c("releases")}`,
    `janitor             ${c("janitor:relabel-stale")} marked stale, ${c("janitor:reap")} reaped`,
    `commit statuses     red for the superseded holder: ${c("moment:status-red-superseded") ? "yes" : "no"}, green after attest: ${c("moment:status-green-attested") ? "yes" : "no"}`,
    `Gitea requests      ${gitea.requests.length} in all (simulator log); most: ${top}`,
    `GitHub requests     ${githubRequests}`,
    `invariants          ${timeline.violations.length === 0 ? "held (one assignee per issue, every moment shown)" : `BROKEN: ${timeline.violations.join("; ")}`}`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
}
