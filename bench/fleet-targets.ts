// The figures issue 14 sets targets for, with the App, the baselines and every load generator in processes of their own.
//
//   npx tsx bench/fleet-targets.ts [--smoke]   → prints the figures as JSON (`bench/run.ts` renders them)
//
// This process holds the GitHub simulator (and seeds the store); the App runs as deployed
// (`src/main.ts` via `appProcess`: production Octokit with the write limiter shared through Redis,
// write coalescing on, janitor off) on a private redis-server; the bare `node:http` server and the
// no-op Probot route are `bench/baseline-server.ts` processes; open-loop load (`bench/open-loop.ts`),
// autocannon and the claims (`bench/claim-load.ts`) each run as a child process per measurement.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { freePort } from "../tools/local-stack/free-port.js";
import { appProcess } from "../tools/local-stack/start-app-process.js";
import { startLocalStack } from "../tools/local-stack/start-local-stack.js";
import { noopPath } from "./baseline-server.js";
import { benchClaimCount, type ClaimCountFigures } from "./claim-count.js";
import type { ClaimLoadResult, ClaimPlan } from "./claim-load.js";
import type { OpenLoopPlan, OpenLoopResult } from "./open-loop.js";
import { seedClaims } from "./seed-claims.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const repo = "bench/queue";
const fleet = { login: "fleet-bot", token: `ghp_bench${randomBytes(12).toString("hex")}` };

export interface TargetSizes {
  /** `warmSeconds`: one open-loop run per target before the rounds (0: none). */
  openLoop: { rate: number; connections: number; seconds: number; rounds: number; warmSeconds: number };
  closedLoop: { connections: number; seconds: number; rounds: number };
  /** Claims one at a time, this far apart (the write limiter idle before each, as at a fleet's usual pace). */
  spacedClaims: { count: number; gapMs: number };
  burst: { claims: number; rounds: number };
  /** Live claims in the store while `/metrics` is scraped (seeded before the App starts). */
  metricsClaims: number;
  /** Wait for the claims gauge's first count before scraping (the smoke run does not). */
  awaitFirstCount: boolean;
  scrapes: number;
  count: { sizes: number[]; samples: number };
}

export const fullTargetSizes: TargetSizes = {
  openLoop: { rate: 1_000, connections: 10, seconds: 10, rounds: 2, warmSeconds: 2 },
  closedLoop: { connections: 50, seconds: 10, rounds: 2 },
  spacedClaims: { count: 40, gapMs: 1_100 },
  burst: { claims: 30, rounds: 3 },
  metricsClaims: 10_000,
  awaitFirstCount: true,
  scrapes: 200,
  count: { sizes: [10, 1_000, 10_000], samples: 200 },
};

export const smokeTargetSizes: TargetSizes = {
  openLoop: { rate: 100, connections: 10, seconds: 1, rounds: 1, warmSeconds: 0 },
  closedLoop: { connections: 4, seconds: 1, rounds: 1 },
  spacedClaims: { count: 2, gapMs: 1_100 },
  burst: { claims: 5, rounds: 1 },
  metricsClaims: 60,
  awaitFirstCount: false,
  scrapes: 5,
  count: { sizes: [10], samples: 20 },
};

export interface ClosedLoopResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface Spread {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

export interface BurstFigures {
  wallMs: number;
  statuses: number[];
  /** Subjects per mutation request, in the simulator's answer order. */
  subjectsPerMutation: number[];
  /** GitHub requests of the burst by kind. */
  requests: Record<string, number>;
}

export interface TargetFigures {
  sizes: TargetSizes;
  /** Per round, each target's open-loop result. */
  openLoop: { bare: OpenLoopResult; probot: OpenLoopResult; heartbeat: OpenLoopResult }[];
  closedLoop: { bare: ClosedLoopResult; probot: ClosedLoopResult; heartbeat: ClosedLoopResult }[];
  githubRequestsDuringHeartbeats: number;
  spacedClaims: Spread & {
    statuses: number[];
    requests: Record<string, number>;
    /** Per claim: GitHub's server time (the simulator's, arrival to answer, of the requests answered during it) and the rest, the App's share. */
    githubMs: Spread;
    appShareMs: Spread;
  };
  bursts: BurstFigures[];
  /** `firstCountMs`: from starting the App until its claims gauge had its first (background) count. */
  metrics: Spread & { claimsInGauge: number; bytes: number; firstCountMs: number };
  count: ClaimCountFigures[];
}

/** Runs `script` (a `bench/` file) as a child process with one JSON argument; its last stdout line, parsed. */
async function child<T>(script: string, plan: unknown): Promise<T> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", script, JSON.stringify(plan)], {
    cwd: repoRoot,
    maxBuffer: 1 << 24,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "null") as T;
}

/** One autocannon run (closed loop, its CLI in a process of its own); its JSON summary. */
async function autocannon(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string> },
): Promise<ClosedLoopResult> {
  const args = ["-j", "-c", String(options.connections), "-d", String(options.seconds)];
  args.push("-m", "POST", "-b", "{}");
  const headers = { "content-type": "application/json", ...options.headers };
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  const { stdout } = await run("node_modules/.bin/autocannon", [...args, url], {
    cwd: repoRoot,
    maxBuffer: 1 << 24,
  });
  const result = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function startBaseline(kind: "bare" | "probot"): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const server = spawn(
    process.execPath,
    ["--import", "tsx", "bench/baseline-server.ts", kind, String(port)],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.stdout?.once("data", () => resolve());
    server.once("exit", (code) => reject(new Error(`baseline ${kind} exited with ${code}`)));
  });
  const path = kind === "probot" ? noopPath : "/";
  return { url: `http://127.0.0.1:${port}${path}`, stop: () => server.kill() };
}

/**
 * GitHub's server time in each claim: the simulator's time (arrival to answer) of the requests it
 * answered while the claim was open. The claims go one at a time, so every such request is the claim's
 * (a webhook's follow-up call included); both clocks are this machine's.
 */
function githubTimeOf(
  claims: ClaimLoadResult["claims"],
  logged: { answeredAt?: number; serverMs?: number }[],
): number[] {
  return claims.map(({ sentAt, ms }) =>
    logged
      .filter((r) => r.answeredAt !== undefined && r.answeredAt >= sentAt && r.answeredAt <= sentAt + ms)
      .reduce((sum, r) => sum + (r.serverMs ?? 0), 0),
  );
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0, n: sorted.length };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function scrape(appUrl: string): Promise<string> {
  return (await fetch(`${appUrl}/metrics`)).text();
}

export async function benchFleetTargets(sizes: TargetSizes): Promise<TargetFigures> {
  const { spacedClaims, burst } = sizes;
  const tokenSecret = randomBytes(32).toString("hex");
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "bench:" },
    startApp: appProcess({ tokenSecret, adminToken: randomBytes(16).toString("hex") }),
    apps: 0,
  });
  const baselines: { stop(): void }[] = [];
  let stopped = false;
  const stop = async () => {
    for (const baseline of baselines.splice(0)) baseline.stop();
    if (!stopped) await stack.stop();
    stopped = true;
  };
  try {
    stack.sim.seed({
      users: [{ login: fleet.login, tokens: [fleet.token] }],
      repos: [
        {
          fullName: repo,
          files: {
            ".github/claim-hold.yml": [
              "taskClasses:",
              "  author: { ttl: 10m, reclaimAfter: 20m, heartbeat: 3s }",
              "limits: { claimsPerSession: 1, claimsPerLogin: 10000 }",
              "",
            ].join("\n"),
          },
          collaborators: { [fleet.login]: "write" },
        },
      ],
      installations: [{ id: 7, account: "bench", repos: [repo] }],
    });
    const target = stack.sim.state.requireRepo(repo);
    const author = stack.sim.state.requireUser("bench");
    // #1 the heartbeat's lease, #2 the warm-up claim, then the spaced claims, then the bursts.
    const issues = 2 + spacedClaims.count + burst.claims * burst.rounds;
    for (let n = 1; n <= issues; n++) stack.sim.state.createIssue(target, { title: `Task ${n}` }, author);
    await stack.sim.flush();
    const app = await stack.addApp();
    const bare = await startBaseline("bare");
    baselines.push(bare);
    const probot = await startBaseline("probot");
    baselines.push(probot);

    const client = createClaimHoldClient({ baseUrl: app.url, githubToken: fleet.token, retries: 0 });
    const { lease } = await client.claim({ repo, issue: 1, actor: { runtime: "bench", sessionId: "hb" } });
    const heartbeatUrl = `${app.url}/api/v1/leases/${encodeURIComponent(lease.id)}/heartbeat`;
    const headers = { authorization: `Bearer ${lease.token}`, "content-type": "application/json" };

    // Heartbeats: open loop, then closed loop; bare, Probot no-op and heartbeat back to back in each round.
    const heartbeatMark = stack.sim.requests.mark();
    const openLoop: TargetFigures["openLoop"] = [];
    const plan = (url: string, extra: Partial<OpenLoopPlan> = {}): OpenLoopPlan => ({
      url,
      rate: sizes.openLoop.rate,
      connections: sizes.openLoop.connections,
      seconds: sizes.openLoop.seconds,
      headers: { "content-type": "application/json" },
      ...extra,
    });
    const { warmSeconds } = sizes.openLoop;
    for (const url of warmSeconds > 0 ? [bare.url, probot.url, heartbeatUrl] : []) {
      await child<OpenLoopResult>("bench/open-loop.ts", plan(url, { headers, seconds: warmSeconds }));
    }
    for (let round = 0; round < sizes.openLoop.rounds; round++) {
      openLoop.push({
        bare: await child<OpenLoopResult>("bench/open-loop.ts", plan(bare.url)),
        probot: await child<OpenLoopResult>("bench/open-loop.ts", plan(probot.url)),
        heartbeat: await child<OpenLoopResult>("bench/open-loop.ts", plan(heartbeatUrl, { headers })),
      });
    }
    const closedLoop: TargetFigures["closedLoop"] = [];
    const closed = { connections: sizes.closedLoop.connections, seconds: sizes.closedLoop.seconds };
    for (let round = 0; round < sizes.closedLoop.rounds; round++) {
      closedLoop.push({
        bare: await autocannon(bare.url, closed),
        probot: await autocannon(probot.url, closed),
        heartbeat: await autocannon(heartbeatUrl, { ...closed, headers }),
      });
    }
    const githubRequestsDuringHeartbeats = stack.sim.requests.since(heartbeatMark).length;
    for (const baseline of baselines.splice(0)) baseline.stop();

    // Claims, one at a time: warm-up (installation token, the caller, the labels), then the samples.
    const claimPlan = (issueList: number[], mode: ClaimPlan["mode"], session: string): ClaimPlan => ({
      appUrl: app.url,
      githubToken: fleet.token,
      repo,
      issues: issueList,
      mode,
      gapMs: spacedClaims.gapMs,
      session,
    });
    await child<ClaimLoadResult>("bench/claim-load.ts", claimPlan([2], "spaced", "warm"));
    const spacedIssues = Array.from({ length: spacedClaims.count }, (_, n) => 3 + n);
    const claimMark = stack.sim.requests.mark();
    const spaced = await child<ClaimLoadResult>(
      "bench/claim-load.ts",
      claimPlan(spacedIssues, "spaced", "one"),
    );
    await stack.sim.flush();
    const spacedRequests = stack.sim.requests.counts(claimMark);
    const githubMsPerClaim = githubTimeOf(spaced.claims, stack.sim.requests.since(claimMark));

    // Bursts of concurrent claims of different issues, the write limiter idle before each.
    const bursts: BurstFigures[] = [];
    for (let round = 0; round < burst.rounds; round++) {
      const first = 3 + spacedClaims.count + round * burst.claims;
      const burstIssues = Array.from({ length: burst.claims }, (_, n) => first + n);
      await pause(spacedClaims.gapMs);
      const mark = stack.sim.requests.mark();
      const result = await child<ClaimLoadResult>(
        "bench/claim-load.ts",
        claimPlan(burstIssues, "burst", `burst${round}`),
      );
      await stack.sim.flush();
      const logged = stack.sim.requests.since(mark);
      bursts.push({
        wallMs: result.wallMs,
        statuses: result.claims.map((c) => c.status),
        subjectsPerMutation: logged
          .filter((r) => r.operationType === "mutation")
          .map((r) => (r.mutationFields ?? []).filter((f) => f === "addAssigneesToAssignable").length),
        requests: stack.sim.requests.counts(mark),
      });
    }

    // `/metrics` with many claims: seeded, then a new App, whose claims gauge counts them at start-up
    // (in the background: let that end first, the App reads them again only every 30 s while scraped).
    await seedClaims(stack.stores, {
      installationId: 7,
      repoId: 1_000_000,
      repo: "bench/background",
      first: 1,
      count: sizes.metricsClaims,
      now: Date.now(),
    });
    const countStarted = performance.now();
    const scraped = await stack.restartApp();
    while (sizes.awaitFirstCount) {
      if (/^claim_hold_claims_refreshed_timestamp_seconds (?!0$)\S+$/m.test(await scrape(scraped.url))) break;
      await pause(20);
    }
    const firstCountMs = performance.now() - countStarted;
    const scrapeMs: number[] = [];
    let text = "";
    for (let n = 0; n < sizes.scrapes; n++) {
      const started = performance.now();
      text = await scrape(scraped.url);
      scrapeMs.push(performance.now() - started);
    }
    const claimsInGauge = text
      .split("\n")
      .filter((line) => line.startsWith("claim_hold_claims{"))
      .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
    await stop();

    const count = await benchClaimCount({ sizes: sizes.count.sizes, samples: sizes.count.samples });
    return {
      sizes,
      openLoop,
      closedLoop,
      githubRequestsDuringHeartbeats,
      spacedClaims: {
        ...spread(spaced.claims.map((c) => c.ms)),
        statuses: spaced.claims.map((c) => c.status),
        requests: spacedRequests,
        githubMs: spread(githubMsPerClaim),
        appShareMs: spread(spaced.claims.map((c, i) => c.ms - githubMsPerClaim[i]!)),
      },
      bursts,
      metrics: { ...spread(scrapeMs), claimsInGauge, bytes: text.length, firstCountMs },
      count,
    };
  } finally {
    await stop().catch(() => undefined);
  }
}

if (process.argv[1]?.endsWith("bench/fleet-targets.ts")) {
  const figures = await benchFleetTargets(
    process.argv.includes("--smoke") ? smokeTargetSizes : fullTargetSizes,
  );
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  process.exit(0);
}
