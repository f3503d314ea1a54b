// `claims/next` under load: picks/s and p50/p99 pick latency for 1, 20 and 100 concurrent callers over 1,000 open issues,
// GitHub requests per pick beside a direct claim's, and the index refresh an installation runs for 1,000 issues.
//
// `npx tsx bench/claim-next.ts [--smoke]`: each level gets a stack of its own (a fresh index of 1,000 open issues):
// the App (`src/main.ts` on a private Redis, janitor off) and the load generator (this file with `--load`) are
// child processes; this process holds the GitHub simulator and prints the figures as JSON. Every pick is a new
// session (the per-session cap is 1). `--smoke` uses 60 issues and a few picks, to prove the script works.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClaimHoldClient, isClaimHoldError } from "../src/agent/client/index.js";
import { freePort } from "../tools/local-stack/free-port.js";
import { killAppProcess } from "../tools/local-stack/start-app-process.js";
import { type StartApp, startLocalStack } from "../tools/local-stack/start-local-stack.js";
import type { RunningApp } from "../tools/local-stack/start-stack-app.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * `src/main.ts` as its own process, configured through its environment as deployed (like the stack's
 * `appProcess`), given up to a minute to answer `/healthz`: on a loaded machine tsx needs more than 15 s.
 */
function patientAppProcess(): StartApp<RunningApp> {
  return async (wiring) => {
    if (!wiring.redis) throw new Error("the benchmark's App needs the stack's Redis");
    const port = await freePort();
    const github = new URL(wiring.githubBaseUrl);
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "production",
        APP_ID: String(wiring.credentials.appId),
        PRIVATE_KEY: wiring.credentials.privateKey,
        WEBHOOK_SECRET: wiring.credentials.webhookSecret,
        GHE_HOST: github.host,
        GHE_PROTOCOL: github.protocol.replace(":", ""),
        HOST: "127.0.0.1",
        PORT: String(port),
        REDIS_URL: wiring.redis.url,
        CLAIM_HOLD_KEY_PREFIX: wiring.redis.keyPrefix,
        CLAIM_HOLD_TOKEN_SECRET: randomBytes(32).toString("hex"),
        CLAIM_HOLD_ADMIN_TOKEN: randomBytes(16).toString("hex"),
        CLAIM_HOLD_DISABLE_JOBS: "janitor",
        LOG_LEVEL: "error",
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const url = `http://127.0.0.1:${port}`;
    const close = () => killAppProcess(child);
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && child.exitCode === null; ) {
      if (
        await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return { url, close };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await close();
    throw new Error("the App process did not start within a minute");
  };
}
const self = fileURLToPath(import.meta.url);
const repo = "bench/next";

interface LoadSpec {
  url: string;
  token: string;
  repo: string;
  callers: number;
  picksPerCaller: number;
  /** Session ids are `<tag>-<caller>-<pick>`: every pick is a new session (the per-session cap is 1). */
  tag: string;
}

interface LoadResult {
  picks: number;
  wallMs: number;
  latenciesMs: number[];
  issues: number[];
  errors: Record<string, number>;
}

/** The load generator (a child process): `callers` loops of `picksPerCaller` picks each, all at once. */
async function load(spec: LoadSpec): Promise<LoadResult> {
  // A pick waits its turn behind the installation's write limiter; it is timed, not cut off at 30 s.
  const client = createClaimHoldClient({
    baseUrl: spec.url,
    githubToken: spec.token,
    retries: 0,
    timeoutMs: 300_000,
  });
  const latenciesMs: number[] = [];
  const issues: number[] = [];
  const errors: Record<string, number> = {};
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.callers }, async (_, caller) => {
      for (let pick = 0; pick < spec.picksPerCaller; pick++) {
        const begun = performance.now();
        try {
          const result = await client.claimNext({
            repo: spec.repo,
            actor: { runtime: "bench", sessionId: `${spec.tag}-${caller}-${pick}` },
          });
          latenciesMs.push(performance.now() - begun);
          issues.push(result.picked.issue);
        } catch (error) {
          const code = isClaimHoldError(error) ? error.code : String(error);
          errors[code] = (errors[code] ?? 0) + 1;
        }
      }
    }),
  );
  return { picks: latenciesMs.length, wallMs: performance.now() - started, latenciesMs, issues, errors };
}

async function loadInChild(spec: LoadSpec): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", self, "--load", JSON.stringify(spec)], {
    maxBuffer: 1 << 26,
  });
  return JSON.parse(stdout) as LoadResult;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

interface Level {
  callers: number;
  picks: number;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** One level on a stack of its own: a fresh App, Redis and index over `issues` open issues. */
async function runLevel(issues: number, level: Level) {
  const fleet = { login: "fleet-bot", token: `ghp_bench${randomBytes(12).toString("hex")}` };
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "bench:" },
    startApp: patientAppProcess(),
  });
  try {
    // The issues exist before the App is installed: no `issues.opened` webhooks. The installation event
    // builds the repository's index (the bounded refresh); its delivery is answered once the refresh ended,
    // so the installation's window (install → delivery answered) holds the refresh's requests and time.
    stack.sim.seed({
      users: [{ login: fleet.login, tokens: [fleet.token] }, { login: "bench" }],
      repos: [
        {
          fullName: repo,
          files: {
            ".github/claim-hold.yml": [
              "taskClasses:",
              "  author: { ttl: 10m, reclaimAfter: 20m, heartbeat: 1m }",
              "limits: { claimsPerSession: 1, claimsPerLogin: 10000 }",
              "",
            ].join("\n"),
          },
          collaborators: { [fleet.login]: "write" },
        },
      ],
    });
    const target = stack.sim.state.requireRepo(repo);
    const author = stack.sim.state.requireUser("bench");
    for (let n = 1; n <= issues; n++) stack.sim.state.createIssue(target, { title: `Task ${n}` }, author);
    const installMark = stack.sim.requests.mark();
    const installStarted = performance.now();
    stack.sim.install({ id: 7, account: "bench", repos: [repo] });
    await stack.sim.flush();
    const installMs = performance.now() - installStarted;
    const installation = stack.sim.requests.counts(installMark);
    const client = createClaimHoldClient({ baseUrl: stack.app.url, githubToken: fleet.token, retries: 0 });

    // A direct claim of the last issue warms the authentication caches; the next one is a claim's cost.
    await client.claim({ repo, issue: issues, actor: { runtime: "bench", sessionId: "warm-claim" } });
    await stack.sim.flush();
    let mark = stack.sim.requests.mark();
    await client.claim({ repo, issue: issues - 1, actor: { runtime: "bench", sessionId: "one-claim" } });
    await stack.sim.flush();
    const claimCost = stack.sim.requests.counts(mark);
    // One single pick, warm: the steady-state cost of a pick.
    mark = stack.sim.requests.mark();
    await client.claimNext({ repo, actor: { runtime: "bench", sessionId: "one-pick" } });
    await stack.sim.flush();
    const pickCost = stack.sim.requests.counts(mark);

    mark = stack.sim.requests.mark();
    const result = await loadInChild({
      url: stack.app.url,
      token: fleet.token,
      repo,
      callers: level.callers,
      picksPerCaller: level.picks,
      tag: `c${level.callers}`,
    });
    await stack.sim.flush();
    const requests = stack.sim.requests.since(mark).length;
    const sorted = [...result.latenciesMs].sort((a, b) => a - b);
    return {
      callers: level.callers,
      picks: result.picks,
      errors: result.errors,
      distinctIssues: new Set(result.issues).size,
      picksPerSecond: round((result.picks / result.wallMs) * 1000),
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      githubRequestsPerPick: round(requests / Math.max(1, result.picks), 2),
      singleClaim: { githubRequests: total(claimCost), byRoute: claimCost },
      singlePick: { githubRequests: total(pickCost), byRoute: pickCost },
      installation: { ms: round(installMs), githubRequests: total(installation), byRoute: installation },
    };
  } finally {
    await stack.stop();
  }
}

async function main(smoke: boolean): Promise<void> {
  const issues = smoke ? 60 : 1_000;
  // 100, 300 and 300 picks: each level starts on a fresh index of `issues` open issues.
  const levels: Level[] = smoke
    ? [
        { callers: 1, picks: 5 },
        { callers: 20, picks: 1 },
        { callers: 25, picks: 1 },
      ]
    : [
        { callers: 1, picks: 100 },
        { callers: 20, picks: 15 },
        { callers: 100, picks: 3 },
      ];
  const results = [];
  for (const level of levels) results.push(await runLevel(issues, level));
  process.stdout.write(`${JSON.stringify({ issues, levels: results }, null, 2)}\n`);
}

if (process.argv[2] === "--load") {
  process.stdout.write(JSON.stringify(await load(JSON.parse(process.argv[3] ?? "{}") as LoadSpec)));
  process.exit(0);
}
await main(process.argv.includes("--smoke")).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
process.exit(0);
