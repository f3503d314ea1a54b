// `npm run playground`: the demo's simulator and App, seeded with a small org and left running until Ctrl-C.
//
// 1. Start the GitHub simulator, the App against it and a store (Redis at REDIS_URL when it answers,
//    else the embedded memory store) — the same start-up as `npm run demo`.
// 2. Seed the org `octo`: two repositories, ten open issues with priority labels, one blocked by
//    another, two agent accounts and a maintainer, the App installed on both repositories.
// 3. Print what a shell needs to drive it (exports for each account, the dashboard and its admin
//    token, a claim and a `/reclaim` to paste), then wait for SIGINT or SIGTERM and stop cleanly.
import { randomBytes } from "node:crypto";
import { EnvError, parseEnv } from "../src/config/env.js";
import { logFormatOf } from "../src/logger.js";
import type { LocalStack } from "../tools/local-stack/start-local-stack.js";
import { chooseStore, dashboardUrl, startDemoStack } from "./demo/start-demo-stack.js";

const org = "octo";
const widgets = `${org}/widgets`;
const gadgets = `${org}/gadgets`;
const playToken = () => `ghp_play${randomBytes(14).toString("hex")}`;
const agents = [
  { login: "agent-one", token: playToken() },
  { login: "agent-two", token: playToken() },
];
const person = { login: "alice", token: playToken() };
const config = [
  "# Playground durations: stale after 1 min of silence, reclaimable after 2 min, heartbeat every 20 s.",
  "taskClasses:",
  "  author: { ttl: 60s, reclaimAfter: 120s, heartbeat: 20s }",
  `agents: { logins: [${agents.map((a) => a.login).join(", ")}] }`,
  `notify: { mention: "@${person.login}" }`,
  "",
].join("\n");

function seed(stack: LocalStack): void {
  const collaborators = {
    ...Object.fromEntries(agents.map((a) => [a.login, "write" as const])),
    [person.login]: "maintain" as const,
  };
  const files = { ".github/claim-hold.yml": config };
  const issues = (list: { number: number; title: string; labels?: string[] }[]) =>
    list.map((issue) => ({ ...issue, author: person.login }));
  stack.sim.seed({
    users: [...agents, person].map(({ login, token }) => ({ login, tokens: [token] })),
    repos: [
      {
        fullName: widgets,
        files,
        collaborators,
        issues: issues([
          { number: 1, title: "Crash when the config file is empty", labels: ["p0"] },
          { number: 2, title: "Add retries to the uploader", labels: ["p1"] },
          { number: 3, title: "Flaky test: the watcher times out", labels: ["p1"] },
          { number: 4, title: "Document the uploader's retry settings", labels: ["p2"] },
          { number: 5, title: "Support Windows paths", labels: ["p2"] },
          { number: 6, title: "Bump dependencies" },
        ]),
      },
      {
        fullName: gadgets,
        files,
        collaborators,
        issues: issues([
          { number: 1, title: "The login page forgets the return URL", labels: ["p0"] },
          { number: 2, title: "Cache avatar images", labels: ["p1"] },
          { number: 3, title: "Dark mode", labels: ["p2", "needs-design"] },
          { number: 4, title: "Remove the deprecated v1 endpoints", labels: ["p3"] },
        ]),
      },
    ],
    installations: [{ account: org, repos: [widgets, gadgets] }],
  });
  // The docs wait for the retries: #4 is blocked until #2 is closed, so claims/next skips it.
  stack.sim.setBlockedBy({ repo: widgets, issue: 4, blockedBy: 2, login: person.login });
}

function exportLine(appUrl: string, token: string): string {
  // GH_TOKEN too: the CLI reads it before GITHUB_TOKEN, and a shell signed in to gh may already have one.
  return `export CLAIM_HOLD_URL=${appUrl} GITHUB_TOKEN=${token} GH_TOKEN=${token}`;
}

function banner(stack: LocalStack, storeLabel: string, dashboard: string | null): string {
  const app = stack.app.url;
  const reclaim = [
    `curl -sS -X POST ${stack.sim.baseUrl}/repos/${widgets}/issues/1/comments \\`,
    `  -H "Authorization: token ${person.token}" -H "content-type: application/json" \\`,
    `  -d '{"body":"/reclaim"}'`,
  ];
  const claim = [
    `curl -sS -X POST "$CLAIM_HOLD_URL/api/v1/claims" -H "Authorization: Bearer $GITHUB_TOKEN" \\`,
    `  -H "content-type: application/json" -d '{"repo":"${widgets}","issue":1,"actor":{"sessionId":"try-1"}}'`,
  ];
  return [
    "",
    "── claim-hold playground ─────────────────────────────────────────────",
    `GitHub simulator  ${stack.sim.url} (REST at ${stack.sim.baseUrl})`,
    `App               ${app} (${storeLabel})`,
    dashboard
      ? `dashboard         ${dashboard} (admin token ${stack.app.adminToken})`
      : "dashboard         not served by this build",
    `repositories      ${widgets} (#1–#6, #4 blocked by #2), ${gadgets} (#1–#4); priorities p0–p3`,
    "durations         stale after 60 s without a heartbeat, reclaimable after 120 s",
    "",
    `# agent 1 (${agents[0]!.login}, write on both repositories)`,
    exportLine(app, agents[0]!.token),
    `# agent 2 (${agents[1]!.login}, write on both repositories)`,
    exportLine(app, agents[1]!.token),
    `# the person (${person.login}, maintainer)`,
    exportLine(app, person.token),
    "",
    "# claim an issue as an agent (or with the CLI from this clone: node bin/claim-hold.js next octo/widgets)",
    ...claim,
    `# then take it back as ${person.login} with /reclaim, a comment posted through the simulator's REST API`,
    ...reclaim,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  // The App's own names and checks for the few settings the playground reads.
  const { REDIS_URL, LOG_LEVEL, LOG_FORMAT } = process.env;
  const env = parseEnv({ REDIS_URL, LOG_LEVEL, LOG_FORMAT });
  const store = await chooseStore(env.REDIS_URL);
  if (store.warning) process.stderr.write(`${store.warning}\n`);
  const stack = await startDemoStack(store, {
    logLevel: env.LOG_LEVEL ?? "warn",
    // The App's lines go to stderr: pretty when that is a terminal.
    logFormat: logFormatOf(env.LOG_FORMAT, process.stderr.isTTY === true),
    janitorIntervalSeconds: 10,
    reconcileEvery: 12,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the playground…\n`);
    try {
      await stack.stop();
      process.stdout.write("stopped\n");
      process.exit(0);
    } catch (error) {
      process.stderr.write(
        `playground: stop failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    }
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  seed(stack);
  await stack.sim.flush();
  process.stdout.write(banner(stack, store.label, await dashboardUrl(stack)));
  // Since the process started (tsx's start-up included).
  const seconds = (performance.now() / 1000).toFixed(1);
  process.stdout.write(`\nready in ${seconds} s; Ctrl-C stops everything\n`);
}

main().catch((error: unknown) => {
  if (error instanceof EnvError) {
    process.stderr.write(`playground: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `playground failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
