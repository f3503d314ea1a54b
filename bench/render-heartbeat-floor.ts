// The heartbeat-floor section of docs/benchmarks.md: issue 24's heartbeat targets judged, and where each microsecond of a heartbeat goes beside its floor and baselines.
import type { TargetFigures } from "./fleet-targets.js";
import type { ClosedLoopRun, FloorFigures, FloorTarget, OpenLoopRun } from "./heartbeat-floor.js";
import type { CommandStat } from "./redis-commandstats.js";
import { fixed, mean, ms, range } from "./render-targets.js";

const label: Record<FloorTarget, string> = {
  bare: "bare `node:http`",
  probot: "no-op Probot route",
  floor: "floor (HMAC + EVALSHA)",
  heartbeat: "App heartbeat",
};
/** The targets in the order they run in a round (`floorTargets`'; types only are imported from the benchmark). */
const floorTargets = Object.keys(label) as FloorTarget[];

const us = (n: number) => fixed(n, n < 10 ? 2 : 1);
const signed = (n: number, format: (n: number) => string) => `${n < 0 ? "−" : "+"}${format(Math.abs(n))}`;

/** EVALSHA's time in Redis per completed request (µs): its usec ÷ the requests. */
export function evalshaPerRequest(run: ClosedLoopRun | OpenLoopRun): number {
  return (run.commands.evalsha?.usec ?? 0) / Math.max(1, run.requests);
}

/** EVALSHA's usec as a share of redis-server's CPU time over the same measurement (the rest: its network and event loop). */
function evalshaShare(run: ClosedLoopRun | OpenLoopRun, ticksPerSecond: number): number {
  const redisUsec = (run.ticks.redis * 1e6) / ticksPerSecond;
  return redisUsec > 0 ? (run.commands.evalsha?.usec ?? 0) / redisUsec : 0;
}

/** One row of the targets table. */
interface FloorTargetRow {
  path: string;
  target: string;
  measured: string;
  met: boolean;
  missedBy: string;
  /** What the floor and the steps between the targets say about a miss (shown only beside one). */
  why: string;
}

export function floorTargetRows(figures: FloorFigures): FloorTargetRow[] {
  const closed = figures.rounds.map((r) => r.closed);
  const open = figures.rounds.map((r) => r.open);
  const { closedLoop, openLoop } = figures.sizes;
  const ratios = (name: FloorTarget) => closed.map((r) => r[name].rps / r.bare.rps);
  const ratio = mean(ratios("heartbeat"));
  const redisPerHeartbeat = mean(closed.map((r) => evalshaPerRequest(r.heartbeat)));
  const usecPerCall = closed.map((r) => {
    const evalsha = r.heartbeat.commands.evalsha;
    return evalsha ? evalsha.usec / evalsha.calls : 0;
  });
  const appCpu = mean(closed.map((r) => r.heartbeat.cpu.server));
  const deltas = (name: FloorTarget) => open.map((r) => r[name].p99 - r.bare.p99);
  const delta = mean(deltas("heartbeat"));
  const serverCpu = (name: FloorTarget) => mean(closed.map((r) => r[name].cpu.server));
  const aboveFloor = us(serverCpu("heartbeat") - serverCpu("floor"));
  const floorWork = us(serverCpu("floor") - serverCpu("bare"));
  const floorEvalsha = mean(closed.map((r) => evalshaPerRequest(r.floor)));
  const usecPerCallOf = (stat: CommandStat | undefined) => (stat ? stat.usec / Math.max(1, stat.calls) : 0);
  const aloneEmpty = usecPerCallOf(figures.scriptAlone.emptyScript.evalsha);
  const aloneHeartbeat = usecPerCallOf(figures.scriptAlone.heartbeatScript.evalsha);
  const cpuRange = (runs: Record<FloorTarget, ClosedLoopRun | OpenLoopRun>[], name: FloorTarget) =>
    range(
      runs.map((r) => r[name].cpu.server),
      us,
    );
  return [
    {
      path: `heartbeat req/s ÷ bare \`node:http\` POST (autocannon, ${closedLoop.connections} connections, ${closedLoop.seconds} s, same round)`,
      target: "≥ 0.40",
      measured: `${range(ratios("heartbeat"), (n) => fixed(n, 2))}; floor ${range(ratios("floor"), (n) => fixed(n, 2))}, no-op Probot ${range(ratios("probot"), (n) => fixed(n, 2))}`,
      met: ratio >= 0.4,
      missedBy: fixed(0.4 - ratio, 2),
      why:
        `The floor itself reaches ${fixed(mean(ratios("floor")), 2)}: each heartbeat adds a Redis round trip (redis-server's ` +
        `CPU ${us(mean(closed.map((r) => r.heartbeat.cpu.redis)))} µs per heartbeat, a third busy process on shared cores) and ` +
        `${floorWork} µs of the floor's own server CPU (the HMAC, ioredis' EVALSHA and its reply); the App adds ${aboveFloor} µs above the floor.`,
    },
    {
      path: "Redis CPU per heartbeat: EVALSHA's usec (INFO commandstats) ÷ heartbeats, closed loop",
      target: "≤ 8 µs",
      measured: `${range(
        closed.map((r) => evalshaPerRequest(r.heartbeat)),
        us,
      )} µs (usec_per_call ${range(usecPerCall, us)}); floor ${range(
        closed.map((r) => evalshaPerRequest(r.floor)),
        us,
      )} µs; redis-server's whole CPU per heartbeat ${range(
        closed.map((r) => r.heartbeat.cpu.redis),
        us,
      )} µs`,
      met: redisPerHeartbeat <= 8,
      missedBy: `${us(redisPerHeartbeat - 8)} µs`,
      why:
        `The script's own time: the floor, which sends only the script with the App's keys and arguments, spends ` +
        `${us(floorEvalsha)} µs in EVALSHA per heartbeat; alone, one call at a time, it takes ${us(aloneHeartbeat)} µs, and a ` +
        `script that only returns ${us(aloneEmpty)} µs (below: the commands inside it, and Lua's share).`,
    },
    {
      path: "App CPU per heartbeat: the App process's utime+stime ÷ heartbeats, closed loop",
      target: "≤ 40 µs",
      measured: `${cpuRange(closed, "heartbeat")} µs (at ${fixed(openLoop.rate, 0)} req/s: ${cpuRange(open, "heartbeat")}); floor ${cpuRange(closed, "floor")}, no-op Probot ${cpuRange(closed, "probot")}, bare ${cpuRange(closed, "bare")} µs`,
      met: appCpu <= 40,
      missedBy: `${us(appCpu - 40)} µs`,
      why:
        `The floor already takes ${us(serverCpu("floor"))} µs (bare ${us(serverCpu("bare"))}: ${floorWork} µs for the HMAC, ` +
        `ioredis' EVALSHA and its reply, a second socket's reads and writes); the App adds ${aboveFloor} µs. CPU time per ` +
        "request also grows with the machine's load (shared caches and cores).",
    },
    {
      path: `heartbeat p99 at ${fixed(openLoop.rate, 0)} req/s evenly spaced over ${openLoop.connections} connections, minus bare p99 in the same round`,
      target: "≤ +1 ms",
      measured: `${range(deltas("heartbeat"), (n) => signed(n, ms))} ms; floor ${range(deltas("floor"), (n) => signed(n, ms))} ms`,
      met: delta <= 1,
      missedBy: `${ms(delta - 1)} ms`,
      why:
        `The floor's p99 is ${signed(mean(deltas("floor")), ms)} ms over bare's: a heartbeat waits for Redis, another ` +
        "process on the same shared cores, and the open loop counts every wait for a core in full.",
    },
  ];
}

/**
 * Issue 24's claim rows: the App's share of a claim at a fleet's pace (its latency less GitHub's server
 * time, both from fleet-targets' spaced claims), the Redis commands a claim sends (this run's MONITOR
 * count) and the 30-claim burst (fleet-targets').
 */
export function claimTargetRows(figures: FloorFigures, targets: TargetFigures): FloorTargetRow[] {
  const { appShareMs, githubMs } = targets.spacedClaims;
  const sent = figures.claims.map((c) => Object.values(c.commands).reduce((sum, n) => sum + n, 0));
  const most = Math.max(...sent);
  const walls = targets.bursts.map((b) => b.wallMs / 1000);
  const worst = Math.max(...walls);
  return [
    {
      path: `claim at a fleet's pace (${appShareMs.n} claims ${fixed(targets.sizes.spacedClaims.gapMs, 0)} ms apart, production throttling): the App's share, latency − GitHub's server time, p50 / p99`,
      target: "≤ 15 / 40 ms",
      measured: `${ms(appShareMs.p50)} / ${ms(appShareMs.p99)} ms (latency ${ms(targets.spacedClaims.p50)} / ${ms(targets.spacedClaims.p99)}, GitHub's server time ${ms(githubMs.p50)} / ${ms(githubMs.p99)} ms)`,
      met: appShareMs.p50 <= 15 && appShareMs.p99 <= 40,
      missedBy: `${ms(Math.max(0, appShareMs.p50 - 15))} / ${ms(Math.max(0, appShareMs.p99 - 40))} ms`,
      why:
        "The App's share is on-loop work of the App's process (the claim's decisions, two GitHub round trips' " +
        "request and response handling, the webhooks the claim's own write sets off arriving mid-claim, GC) plus " +
        "its Redis round trips, on two cores shared with the simulator, Redis and the load generator.",
    },
    {
      path: "Redis round trips per claim (store + fence + write limiter), commands the App sent (MONITOR)",
      target: "≤ 6",
      measured: `${range(sent, (n) => fixed(n, 0))} (test/claim-redis-round-trips.test.ts pins a warm claim's at 6, one of them after the answer)`,
      met: most <= 6,
      missedBy: fixed(most - 6, 0),
      why:
        "A warm claim sends: the previous claim's record (its branch, which must be known before GitHub's read " +
        "asks for that branch's open PRs), the candidate's blockers (queue index), the claim script (epoch, " +
        "repository index and write lock in it), the write spacing's one script call (shared across replicas: one " +
        "mutation a second per installation) and the write's finish (commit and unlock): five before the answer; " +
        "after it, the merge fence's note, which answers the subject's linked PRs and cross-repository links: 6, as " +
        "the test pins with the claim's webhooks held. Counted here the claim's own webhooks arrive while it is " +
        "watched (issues.assigned and issues.labeled): each patches the queue index once (a queuePatch script on " +
        "the repository's order), so a claim shows 8.",
    },
    {
      path: `${targets.sizes.burst.claims}-claim burst, one installation: wall time`,
      target: "≤ 1.2 s (keep)",
      measured: `${range(walls, (n) => fixed(n, 2))} s`,
      met: worst <= 1.2,
      missedBy: `${fixed(worst - 1.2, 2)} s`,
      why:
        "The first claim's mutation goes alone and the rest join the next request one write spacing (1 s) later; " +
        "claims whose read answers after that go in a third request.",
    },
  ];
}

/** Mean over the rounds of one figure of one target's closed-loop runs. */
function closedMean(figures: FloorFigures, name: FloorTarget, figure: (run: ClosedLoopRun) => number) {
  return mean(figures.rounds.map((r) => figure(r.closed[name])));
}

/** Where the microseconds go: each target's mean per-request CPU, and the steps between them. */
function breakdownRows(figures: FloorFigures): string[] {
  const server = (name: FloorTarget) => closedMean(figures, name, (r) => r.cpu.server);
  const rows = floorTargets.map((name) => {
    const ratio = closedMean(figures, name, (r) => r.rps) / closedMean(figures, "bare", (r) => r.rps);
    return `| ${label[name]} | ${fixed(
      closedMean(figures, name, (r) => r.rps),
      0,
    )} | ${fixed(ratio, 2)} | ${us(server(name))} | ${us(closedMean(figures, name, (r) => r.cpu.redis))} | ${us(closedMean(figures, name, evalshaPerRequest))} | ${us(closedMean(figures, name, (r) => r.cpu.generator))} |`;
  });
  const step = (from: FloorTarget, to: FloorTarget) => signed(server(to) - server(from), us);
  return [
    "| target | req/s | ÷ bare | server CPU µs/req | redis-server CPU µs/req | EVALSHA µs/req | load generator CPU µs/req |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `Server CPU per request, step by step: bare → no-op Probot route ${step("bare", "probot")} µs (Probot's middleware);`,
    `bare → floor ${step("bare", "floor")} µs (JSON.parse, the HMAC, ioredis' EVALSHA and its reply);`,
    `floor → App heartbeat ${step("floor", "heartbeat")} µs (the App's routing and request handling, the body's schema,`,
    "the lease core's heartbeat and the record's decoding, above what the floor does).",
  ];
}

function closedRow(round: number, name: FloorTarget, run: ClosedLoopRun, bare: ClosedLoopRun, hz: number) {
  const evalsha = run.commands.evalsha;
  const perCall = evalsha ? us(evalsha.usec / evalsha.calls) : "—";
  const callsPerRequest = evalsha ? fixed(evalsha.calls / Math.max(1, run.requests), 3) : "0";
  return `| ${round} | ${label[name]} | ${fixed(run.rps, 0)} | ${fixed(run.rps / bare.rps, 2)} | ${run.p50} | ${run.p99} | ${run.non2xx + run.errors} | ${us(run.cpu.server)} | ${us(run.cpu.redis)} | ${us(run.cpu.generator)} | ${callsPerRequest} | ${perCall} | ${evalsha ? `${fixed(100 * evalshaShare(run, hz), 0)} %` : "—"} |`;
}

function openRow(round: number, name: FloorTarget, run: OpenLoopRun, bare: OpenLoopRun) {
  return `| ${round} | ${label[name]} | ${ms(run.p50)} | ${ms(run.p99)} | ${signed(run.p99 - bare.p99, ms)} | ${ms(run.max)} | ${run.non2xx + run.errors} | ${us(run.cpu.server)} | ${us(run.cpu.redis)} | ${us(evalshaPerRequest(run))} | ${us(run.cpu.generator)} | ${ms(run.lagMax)} |`;
}

/**
 * EVALSHA's time per call split into the commands the script ran (their commandstats usec) and the
 * rest (Lua itself: the script's call, its tables, cjson), in µs per call (`calls`: the divisor).
 */
function scriptTime(commands: Record<string, CommandStat>, calls: number): string {
  const perCall = (usec: number) => usec / Math.max(1, calls);
  const evalsha = perCall(commands.evalsha?.usec ?? 0);
  const inner = Object.entries(commands).filter(([name]) => !name.startsWith("eval"));
  const innerTotal = perCall(inner.reduce((sum, [, stat]) => sum + stat.usec, 0));
  const byCommand = inner
    .sort(([, a], [, b]) => b.usec - a.usec)
    .filter(([, stat]) => perCall(stat.usec) >= 0.01)
    .map(([name, stat]) => `${name} ${us(perCall(stat.usec))}`)
    .join(", ");
  return `EVALSHA ${us(evalsha)} µs = its commands ${us(innerTotal)} µs (${byCommand}) + Lua and the rest ${us(evalsha - innerTotal)} µs`;
}

function scriptAloneLines(figures: FloorFigures): string[] {
  const { calls, emptyScript, heartbeatScript } = figures.scriptAlone;
  const emptyPerCall = (emptyScript.evalsha?.usec ?? 0) / Math.max(1, emptyScript.evalsha?.calls ?? 0);
  return [
    "### The heartbeat script alone",
    "",
    `${fixed(calls, 0)} EVALSHAs of each, one at a time from one client, no HTTP load, after the rounds: a script that`,
    `only returns (\`return 1\`) takes ${us(emptyPerCall)} µs per call, what any EVALSHA costs Redis here before its first`,
    `line; the heartbeat script on the floor's lease: ${scriptTime(heartbeatScript, calls)}.`,
    "",
  ];
}

/** Commands per request in Redis' commandstats (a script's own commands included), most called first. */
function commandsPerRequest(run: ClosedLoopRun): string {
  return (
    Object.entries(run.commands)
      .sort(([, a], [, b]) => b.calls - a.calls)
      .filter(([, stat]) => stat.calls / Math.max(1, run.requests) >= 0.005)
      .map(([name, stat]) => `${name} ${fixed(stat.calls / Math.max(1, run.requests), 2)}`)
      .join(", ") || "none"
  );
}

function claimLines(figures: FloorFigures): string[] {
  if (figures.claims.length === 0) return [];
  return [
    "### Redis round trips per claim",
    "",
    "Claims of different issues one at a time through the App, after the rounds, with a MONITOR connection on",
    "the private redis-server: the commands the App sent (lines tagged `lua`, a script's own commands, left out;",
    "the write limiter's, kept in Redis, included).",
    "",
    "| claim | answer | commands sent | by command |",
    "|---|---|---|---|",
    ...figures.claims.map((claim, n) => {
      const total = Object.values(claim.commands).reduce((sum, v) => sum + v, 0);
      const byCommand = Object.entries(claim.commands)
        .sort(([, a], [, b]) => b - a)
        .map(([name, count]) => `${count} ${name}`)
        .join(", ");
      return `| ${n + 1} | ${claim.status} | ${total} | ${byCommand || "—"} |`;
    }),
    "",
  ];
}

export function renderHeartbeatFloor(
  figures: FloorFigures,
  command: string,
  targets?: TargetFigures,
): string[] {
  const { sizes, clockTicksPerSecond: hz, load } = figures;
  const last = figures.rounds.at(-1);
  const tick = 1e6 / hz;
  const fewestClosed = Math.min(
    ...figures.rounds.flatMap((r) => floorTargets.map((n) => r.closed[n].requests)),
  );
  const fewestOpen = Math.min(...figures.rounds.flatMap((r) => floorTargets.map((n) => r.open[n].requests)));
  return [
    "## Issue 24's heartbeat targets, beside the heartbeat's floor",
    "",
    "| path | target | measured | verdict |",
    "|---|---|---|---|",
    ...[...floorTargetRows(figures), ...(targets ? claimTargetRows(figures, targets) : [])].map(
      (row) =>
        `| ${row.path} | ${row.target} | ${row.measured} | ${row.met ? "**met**" : `missed by ${row.missedBy}: ${row.why}`} |`,
    ),
    "",
    `Command: \`${command}\`${command.includes("heartbeat-floor") ? "" : " (alone: `npx tsx bench/heartbeat-floor.ts`)"} — machine: ${figures.machine}; 1-minute load average ${fixed(load.start, 1)} at the start,`,
    `${fixed(load.end, 1)} at the end (the cores are shared: absolute figures are pessimistic; compare within a round).`,
    "",
    "Four targets, each a process of its own run from compiled JavaScript (`bench/compile-modules.ts`: esbuild, one",
    "file per module, no tsx loader): the bare `node:http` POST server and the no-op Probot route",
    "(`bench/baseline-server.ts`); the **floor** (`bench/floor-server.ts`: `node:http`, JSON.parse of the body, the",
    "lease token's HMAC digest as the App makes it, one EVALSHA of the App's own heartbeat script with the keys and",
    "arguments the App's store sends, the App's answer shape); and the App as deployed (`src/main.ts`), its lease",
    "and the floor's claimed through the App. One private `redis-server`. Every load generator run (autocannon's",
    "CLI, `bench/open-loop.ts`) is a process of its own; the targets run back to back in each round.",
    "",
    "CPU per request: utime + stime from `/proc/<pid>/stat` (the server's, redis-server's; the generator's from",
    "this process's waited-for children, its start-up included) before and after each run, ÷ the requests",
    `completed. The kernel counts in clock ticks (${hz}/s: ${fixed(tick / 1000, 0)} ms each), so a figure is good to about`,
    `one tick ÷ requests: ±${us(tick / fewestClosed)} µs in the closed loop, ±${us(tick / fewestOpen)} µs in the open loop here.`,
    "Redis: `CONFIG RESETSTAT` before each run, `INFO commandstats` after; the commands a script runs (HSET,",
    "ZADD, …) appear there too and their time is inside EVALSHA's, so EVALSHA's figure is the script's whole cost.",
    "Their usec is wall time inside the command, so a Redis preempted mid-script counts the wait: on a loaded",
    "machine EVALSHA's usec can come out above redis-server's CPU time (a share over 100 %).",
    "",
    `### Where a heartbeat's microseconds go (closed loop, mean of ${figures.rounds.length} round${figures.rounds.length === 1 ? "" : "s"})`,
    "",
    ...breakdownRows(figures),
    "",
    `### Closed loop: autocannon, ${sizes.closedLoop.connections} connections, ${sizes.closedLoop.seconds} s per run`,
    "",
    "CPU in µs per request; EVALSHA share: its usec ÷ redis-server's CPU time in the same run. In the bare and",
    "Probot rows the Redis figures are the idle App's own calls (its write limiter's scripts), not the target's.",
    "",
    "| round | target | req/s | ÷ bare | p50 ms | p99 ms | failed | server CPU | redis CPU | generator CPU | EVALSHA per request | usec_per_call | EVALSHA share |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...figures.rounds.flatMap((round, n) =>
      floorTargets.map((name) => closedRow(n + 1, name, round.closed[name], round.closed.bare, hz)),
    ),
    "",
    `### Open loop: ${fixed(sizes.openLoop.rate, 0)} req/s evenly spaced, ${sizes.openLoop.connections} keep-alive connections, ${sizes.openLoop.seconds} s per run`,
    "",
    "Latency in ms from when each request was due; CPU in µs per request; lag: how late the generator sent a",
    "request at worst.",
    "",
    "| round | target | p50 | p99 | p99 − bare p99 | max | failed | server CPU | redis CPU | EVALSHA | generator CPU | lag max |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...figures.rounds.flatMap((round, n) =>
      floorTargets.map((name) => openRow(n + 1, name, round.open[name], round.open.bare)),
    ),
    "",
    ...(last
      ? [
          "Redis commands per request in the last closed-loop round (a script's own commands included; the idle",
          "App's occasional own calls, under 0.005 per request, left out):",
          `floor: ${commandsPerRequest(last.closed.floor)}; App heartbeat: ${commandsPerRequest(last.closed.heartbeat)}.`,
          "",
          "The script's time per heartbeat in that round, split into the commands it ran (their own usec in",
          "commandstats) and the rest:",
          "",
          `- floor: ${scriptTime(last.closed.floor.commands, last.closed.floor.requests)};`,
          `- App heartbeat: ${scriptTime(last.closed.heartbeat.commands, last.closed.heartbeat.requests)}.`,
          "",
        ]
      : []),
    ...scriptAloneLines(figures),
    ...claimLines(figures),
  ];
}
