// `npm run bench` (full, writes docs/benchmarks.md) and `npm run bench:smoke` (tiny sizes, proves the scripts work).
//
// 1. Issue 14's targets (`bench/fleet-targets.ts`): the App as its own process beside its baselines,
//    open- and closed-loop heartbeat load, claim latency and bursts with production throttling,
//    `/metrics` with many claims, the claim script's Redis time as a login's claims grow.
// 2. Issue 24's heartbeat targets (`bench/heartbeat-floor.ts`): the App's heartbeat beside its floor
//    (HMAC + one EVALSHA) and its baselines, compiled, with each process's CPU per request and Redis'
//    time per call, and the Redis commands a claim sends.
// 3. Janitor sweep over many live claims with 0 and 100 due.
// 4. GitHub requests per transition, and what that means against GitHub's content-creation limits.
// 5. Resident memory with many claims.
// Everything listens on 127.0.0.1; every load is bounded in count or time.
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { benchAppMemory, type MemoryFigures } from "./app-memory.js";
import { startBenchWorld } from "./bench-world.js";
import {
  benchFleetTargets,
  fullTargetSizes,
  smokeTargetSizes,
  type TargetFigures,
  type TargetSizes,
} from "./fleet-targets.js";
import {
  benchHeartbeatFloor,
  type FloorFigures,
  type FloorSizes,
  fullFloorSizes,
  smokeFloorSizes,
} from "./heartbeat-floor.js";
import { benchJanitorSweep, type SweepFigures } from "./janitor-sweep.js";
import { machineDescription } from "./machine.js";
import { renderHeartbeatFloor } from "./render-heartbeat-floor.js";
import { renderTargets } from "./render-targets.js";
import { benchTransitionCosts, type TransitionCosts } from "./transition-costs.js";

export interface BenchSizes {
  targets: TargetSizes;
  floor: FloorSizes;
  claims: number;
  due: number;
}

export const fullSizes: BenchSizes = {
  targets: fullTargetSizes,
  floor: fullFloorSizes,
  claims: 10_000,
  due: 100,
};
export const smokeSizes: BenchSizes = {
  targets: smokeTargetSizes,
  floor: smokeFloorSizes,
  claims: 60,
  due: 5,
};

export interface BenchResults {
  sizes: BenchSizes;
  targets: TargetFigures;
  floor: FloorFigures;
  sweep: { none: SweepFigures; some: SweepFigures };
  transitions: TransitionCosts;
  memory: MemoryFigures;
  /** The machine's 1-minute load average when the run began and ended (other work shares its cores). */
  load: { start: number; end: number };
}

export async function runBenchmarks(sizes: BenchSizes): Promise<BenchResults> {
  const loadAtStart = loadavg()[0]!;
  const targets = await benchFleetTargets(sizes.targets);
  const floor = await benchHeartbeatFloor(sizes.floor);
  let world = await startBenchWorld({ issues: sizes.due });
  const sweep = await benchJanitorSweep(world, sizes).finally(() => world.close());
  world = await startBenchWorld({ issues: 6 });
  const transitions = await benchTransitionCosts(world).finally(() => world.close());
  world = await startBenchWorld({ issues: 1 });
  const memory = await benchAppMemory(world, sizes.claims).finally(() => world.close());
  return {
    sizes,
    targets,
    floor,
    sweep,
    transitions,
    memory,
    load: { start: loadAtStart, end: loadavg()[0]! },
  };
}

const round = (n: number, digits = 0) => Number(n.toFixed(digits)).toLocaleString("en-US");

/** Agents one installation supports under GitHub's content-creation limits (80/min, 500/h). */
export function agentsPerInstallation(creationsPerAgentHour: number): number {
  return Math.floor(500 / creationsPerAgentHour);
}

export function renderReport(results: BenchResults, machine: string, command: string): string {
  const { sweep, transitions, memory, sizes, load } = results;
  const sweepRow = (f: SweepFigures) =>
    `| ${round(f.claims)} | ${f.due} | ${round(f.sweepMs, 1)} | ${round(f.storeMs, 1)} | ${f.storeCalls} | ${f.redisCommands} | ${f.githubRequests} | ${
      Object.entries(f.actions)
        .map(([k, v]) => `${v} ${k}`)
        .join(", ") || "—"
    } |`;
  // claim-hold: heartbeats create nothing; a claim creates its claim comment, a release (or takeover) one note.
  const claimHoldPerAgentHour = 2 * 2; // two tasks an hour, claim + release note each
  const commentLiveness5 = 60 / 5 + 2; // one comment per 5-min heartbeat, plus claim and release
  const commentLiveness1 = 60 / 1 + 2;
  return [
    "# Benchmarks",
    "",
    "Measured by `bench/` (see `bench/run.ts`); these figures come from benchmarks, never from timed unit tests.",
    "",
    `Command: \`${command}\` — machine: ${machine}.`,
    `**Load caveat:** the machine's 2 cores are shared with other work; its 1-minute load average was ${round(load.start, 1)}`,
    `when this run began and ${round(load.end, 1)} when it ended, so absolute figures are pessimistic and vary run to run.`,
    "Compare within one run: every ratio and difference below is taken between measurements of the same run, made",
    "back to back. All traffic stays on 127.0.0.1.",
    "",
    ...renderTargets(results.targets),
    ...renderHeartbeatFloor(results.floor, command, results.targets),
    "## (b) Janitor sweep",
    "",
    "The App, the simulator and a private `redis-server` in this one process (sections b–d).",
    "",
    `${round(sizes.claims)} live claims in one installation; the due ones were made through the App and went silent`,
    "past `reclaimAfter` (no PR, no push), so each is reaped. Write spacing (1 s) is switched off here so the",
    'figure is the sweep\'s own cost. "Store time" adds up the wall time of every store call.',
    "",
    "| claims | due | sweep ms | store ms | store calls | Redis commands | GitHub requests | actions |",
    "|---|---|---|---|---|---|---|---|",
    sweepRow(sweep.none),
    sweepRow(sweep.some),
    "",
    "Nothing due costs zero GitHub requests and a handful of Redis commands whatever the number of claims;",
    "the cost grows with the due claims (one read and one batched mutation each), not with the claims.",
    "",
    "## (c) GitHub requests per transition",
    "",
    "Counted in the simulator's request log, authentication caches warm, webhook effects included:",
    "",
    "| transition | GitHub requests | of which |",
    "|---|---|---|",
    ...Object.entries(transitions).map(
      ([name, cost]) =>
        `| ${name} | ${cost.requests} | ${
          Object.entries(cost.detail)
            .map(([k, v]) => `${v} ${k}`)
            .join(", ") || "—"
        } |`,
    ),
    "",
    "### Against liveness kept as GitHub comments",
    "",
    "GitHub limits content creation (comments included) to 80 per minute and 500 per hour per installation.",
    "claim-hold creates no content on heartbeats: a claim creates its claim comment, and a release, takeover or",
    "reap adds one note. An agent finishing two tasks an hour creates about " +
      `${claimHoldPerAgentHour} comments an hour, so one installation supports about **${agentsPerInstallation(claimHoldPerAgentHour)} agents**`,
    "(and any number of heartbeats).",
    `Keeping liveness as comments instead (one comment per heartbeat): every 5 min → ${commentLiveness5} comments/agent/hour → **${agentsPerInstallation(commentLiveness5)} agents**;`,
    `every minute (needed for a short ttl) → ${commentLiveness1}/agent/hour → **${agentsPerInstallation(commentLiveness1)} agents** per installation, before any claim`,
    "or review comment — and every heartbeat also pings each watcher of the issue.",
    "",
    "## (d) Memory",
    "",
    `Process RSS (App + simulator, Redis store) before claims: ${memory.rssBeforeMb} MB; with ${round(memory.claims)} live claims:`,
    `${memory.rssAfterMb} MB (heap used ${memory.heapAfterMb} MB). The claims live in Redis; the App keeps only caches.`,
    `An inventory read with them present took ${round(memory.inventoryMs, 1)} ms.`,
    "",
    "## claims/next",
    "",
    "Picks per second and pick latency for 1, 20 and 100 concurrent callers over 1,000 open issues, GitHub requests",
    "per pick and the index refresh's cost: [benchmarks-claim-next.md](benchmarks-claim-next.md), made by",
    "`npx tsx bench/claim-next.ts` (a run of its own: each level starts a stack of its own).",
    "",
    "## Notes",
    "",
    "- A login's and a session's live claims are counted for `limits.*` from sorted sets scored by live-until",
    "  (`ZCOUNT`, `src/providers/redis/lua/includes/indexes.lua`), so the claim script's cost no longer grows with",
    "  them (it was 12.4–13.2 ms at 10,000 live claims of one login when it read every claim).",
    "- The claims gauge is counted in the background (at start-up, then every 30 s while scraped) by reading every",
    "  claim, so a scrape reads none; that read itself still grows with the claims and runs in the App's process.",
    "- The no-op Probot route is the floor of the App's own server stack (Probot's middleware, its handler list);",
    "  the heartbeat is answered in front of Hono on that stack (`src/http/heartbeat-route.ts`).",
    "- Sizes and durations: `fullSizes` / `smokeSizes` in `bench/run.ts`; `test/bench-smoke.test.ts` runs the smoke",
    "  sizes in CI to prove the scripts still work (it asserts request counts, never speed).",
    "",
  ].join("\n");
}

const invokedDirectly = process.argv[1]?.endsWith("bench/run.ts");
if (invokedDirectly) {
  const smoke = process.argv.includes("--smoke");
  const results = await runBenchmarks(smoke ? smokeSizes : fullSizes);
  const report = renderReport(results, machineDescription(), smoke ? "npm run bench:smoke" : "npm run bench");
  if (smoke) process.stdout.write(report);
  else {
    writeFileSync(new URL("../docs/benchmarks.md", import.meta.url), report);
    process.stdout.write(`${report}\nwritten to docs/benchmarks.md\n`);
  }
  process.exit(0);
}
