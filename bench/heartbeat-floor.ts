// Issue 24's heartbeat figures: the App's heartbeat beside its floor and its baselines, each a compiled process of its own, with each process's CPU per request and Redis' time per call.
//
//   npx tsx bench/heartbeat-floor.ts [--smoke] [--rounds=N] [--seconds=S] [--json]
//       → prints the docs/benchmarks.md section (`--json`: the figures)
//
// Four targets, each a process of its own run from compiled JavaScript (bench/compile-modules.ts):
// the bare `node:http` server and the no-op Probot route (bench/baseline-server.ts), the floor
// (bench/floor-server.ts: node:http, JSON.parse, the token's HMAC, one EVALSHA of the App's heartbeat
// script) and the App as deployed (`src/main.ts`), on a private redis-server. In each round every
// target gets autocannon's closed loop, then `bench/open-loop.ts`'s evenly spaced load; each load
// generator is a process of its own too. Around each measurement: utime+stime of the server and of
// redis-server from /proc/<pid>/stat, the generator's from this process's waited-for children, and
// Redis' INFO commandstats after CONFIG RESETSTAT.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Redis } from "ioredis";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { parseLeaseId } from "../src/domain/claim.js";
import { createTokenMinter } from "../src/lease/tokens.js";
import { StoreKeys } from "../src/providers/redis/keys.js";
import { runScript } from "../src/providers/redis/script-runner.js";
import { heartbeatScript } from "../src/providers/redis/store-scripts.js";
import { freePort } from "../tools/local-stack/free-port.js";
import { type AppProcess, appProcess } from "../tools/local-stack/start-app-process.js";
import { type LocalStack, startLocalStack } from "../tools/local-stack/start-local-stack.js";
import { noopPath } from "./baseline-server.js";
import { type CompiledModules, compileModules } from "./compile-modules.js";
import { plainHeartbeatCall } from "./floor-server.js";
import { machineDescription } from "./machine.js";
import type { OpenLoopPlan, OpenLoopResult } from "./open-loop.js";
import { clockTicksPerSecond, processTicks, waitedChildrenTicks } from "./process-cpu.js";
import {
  type CommandStat,
  readCommandStats,
  redisServerPid,
  resetCommandStats,
} from "./redis-commandstats.js";
import { renderHeartbeatFloor } from "./render-heartbeat-floor.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const repo = "bench/floor";
const fleet = { login: "fleet-bot", token: `ghp_bench${randomBytes(12).toString("hex")}` };

export interface FloorSizes {
  rounds: number;
  closedLoop: { connections: number; seconds: number };
  openLoop: { rate: number; connections: number; seconds: number };
  /** One closed-loop run of this many seconds per target before the rounds (0: none), so each is measured warm. */
  warmSeconds: number;
  /** Claims whose Redis commands are counted (MONITOR) after the rounds (0: none). */
  claims: number;
  /** EVALSHAs of each script run one at a time after the rounds (`ScriptAlone`). */
  scriptCalls: number;
}

export const fullFloorSizes: FloorSizes = {
  rounds: 3,
  closedLoop: { connections: 50, seconds: 5 },
  openLoop: { rate: 1_000, connections: 10, seconds: 5 },
  warmSeconds: 2,
  claims: 3,
  scriptCalls: 5_000,
};

export const smokeFloorSizes: FloorSizes = {
  rounds: 1,
  closedLoop: { connections: 4, seconds: 1 },
  openLoop: { rate: 100, connections: 10, seconds: 1 },
  warmSeconds: 0,
  claims: 1,
  scriptCalls: 50,
};

export const floorTargets = ["bare", "probot", "floor", "heartbeat"] as const;
export type FloorTarget = (typeof floorTargets)[number];

/** CPU time per completed request, in µs, of each process of one measurement. */
export interface CpuPerRequest {
  server: number;
  redis: number;
  generator: number;
}

export interface Measurement {
  /** Requests completed (the divisor of every per-request figure). */
  requests: number;
  cpu: CpuPerRequest;
  /** The clock ticks measured: one tick ÷ requests is the resolution of the CPU figures. */
  ticks: CpuPerRequest;
  /** Redis' INFO commandstats over the measurement (the benchmark's own INFO and CONFIG left out). */
  commands: Record<string, CommandStat>;
}

export interface ClosedLoopRun extends Measurement {
  rps: number;
  /** ms */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export type OpenLoopRun = Measurement & OpenLoopResult;

export interface FloorRound {
  closed: Record<FloorTarget, ClosedLoopRun>;
  open: Record<FloorTarget, OpenLoopRun>;
}

/** One claim's commands the App sent to Redis (MONITOR, the ones scripts ran left out), by command. */
export interface ClaimRoundTrips {
  status: number;
  commands: Record<string, number>;
}

/** Redis' commandstats over calls made one at a time from one client, with no HTTP load. */
export interface ScriptAlone {
  calls: number;
  /** EVALSHA of `return 1`: what any script costs Redis before its first line. */
  emptyScript: Record<string, CommandStat>;
  /** The App's heartbeat script on the floor's lease, as the floor sends it. */
  heartbeatScript: Record<string, CommandStat>;
}

export interface FloorFigures {
  sizes: FloorSizes;
  clockTicksPerSecond: number;
  rounds: FloorRound[];
  scriptAlone: ScriptAlone;
  claims: ClaimRoundTrips[];
  machine: string;
  /** The machine's 1-minute load average when the run began and ended. */
  load: { start: number; end: number };
}

interface Target {
  url: string;
  pid: number;
  headers?: Record<string, string>;
}

/** A compiled server (`node <file> …args`) as a process of its own; resolves once it printed "up". */
async function startServer(file: string, args: string[]): Promise<{ pid: number; stop(): void }> {
  const server = spawn(process.execPath, [file, ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    server.stdout?.once("data", () => resolve());
    server.once("exit", (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return { pid: server.pid ?? 0, stop: () => server.kill() };
}

/** The ticks each process of a measurement has run so far. */
function ticksNow(serverPid: number, redisPid: number): CpuPerRequest {
  return { server: processTicks(serverPid), redis: processTicks(redisPid), generator: waitedChildrenTicks() };
}

/**
 * Runs one load against a target with its processes' CPU and Redis' command statistics measured
 * around it. The generator's ticks include its own start-up (it is a new process for each load).
 */
async function measure<R>(
  target: Target,
  redis: { admin: Redis; pid: number; ticksPerSecond: number },
  load: () => Promise<R>,
  completed: (result: R) => number,
): Promise<R & Measurement> {
  await resetCommandStats(redis.admin);
  const before = ticksNow(target.pid, redis.pid);
  const result = await load();
  const after = ticksNow(target.pid, redis.pid);
  const commands = await readCommandStats(redis.admin);
  const requests = completed(result);
  const ticks = {
    server: after.server - before.server,
    redis: after.redis - before.redis,
    generator: after.generator - before.generator,
  };
  const perRequest = (n: number) => (n * 1e6) / redis.ticksPerSecond / Math.max(1, requests);
  const cpu = {
    server: perRequest(ticks.server),
    redis: perRequest(ticks.redis),
    generator: perRequest(ticks.generator),
  };
  return { ...result, requests, cpu, ticks, commands };
}

/** One autocannon run (closed loop, its CLI a process of its own); its JSON summary. */
async function autocannon(
  target: Target,
  options: { connections: number; seconds: number },
): Promise<Omit<ClosedLoopRun, keyof Measurement> & { completed: number }> {
  const args = ["-j", "-c", String(options.connections), "-d", String(options.seconds)];
  args.push("-m", "POST", "-b", "{}");
  const headers = { "content-type": "application/json", ...target.headers };
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  const { stdout } = await run("node_modules/.bin/autocannon", [...args, target.url], {
    cwd: repoRoot,
    maxBuffer: 1 << 24,
  });
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number };
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
    completed: result.requests.total,
  };
}

/** One evenly spaced open-loop run (`bench/open-loop.ts`, compiled, a process of its own). */
async function openLoop(compiled: CompiledModules, plan: OpenLoopPlan): Promise<OpenLoopResult> {
  const { stdout } = await run(
    process.execPath,
    [compiled.path("bench/open-loop.ts"), JSON.stringify(plan)],
    {
      cwd: repoRoot,
      maxBuffer: 1 << 24,
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "null") as OpenLoopResult;
}

/** The repository the leases are claimed in, its config and its issues, on the simulator. */
async function seedRepository(stack: LocalStack<AppProcess>, issues: number): Promise<void> {
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
  for (let n = 1; n <= issues; n++) stack.sim.state.createIssue(target, { title: `Task ${n}` }, author);
  await stack.sim.flush();
}

/** Claims `issue` through the App's claim path; the lease's heartbeat path and its bearer header. */
async function claimLease(
  appUrl: string,
  issue: number,
  session: string,
): Promise<{ id: string; token: string; path: string; headers: Record<string, string> }> {
  const client = createClaimHoldClient({ baseUrl: appUrl, githubToken: fleet.token, retries: 0 });
  const { lease } = await client.claim({ repo, issue, actor: { runtime: "bench", sessionId: session } });
  return {
    id: lease.id,
    token: lease.token,
    path: `/api/v1/leases/${encodeURIComponent(lease.id)}/heartbeat`,
    headers: { authorization: `Bearer ${lease.token}` },
  };
}

/**
 * EVALSHA's cost with nothing else asked of Redis: an empty script, then the heartbeat script on the
 * floor's lease (keys and arguments as the floor sends them), one call at a time.
 */
async function scriptCostAlone(
  redis: Redis,
  lease: { id: string; token: string },
  options: { keyPrefix: string; tokenSecret: string; calls: number },
): Promise<ScriptAlone> {
  const emptySha = String(await redis.script("LOAD", "return 1"));
  await resetCommandStats(redis);
  for (let n = 0; n < options.calls; n++) await redis.evalsha(emptySha, 0);
  const emptyScript = await readCommandStats(redis);
  const key = parseLeaseId(lease.id);
  if (!key) throw new Error(`not a lease id: ${lease.id}`);
  const keys = new StoreKeys(options.keyPrefix);
  const digest = createTokenMinter(options.tokenSecret).digest(lease.token);
  const heartbeat = () =>
    runScript(redis, heartbeatScript, plainHeartbeatCall(keys, key, digest, Date.now()));
  // ioredis sends a script's first call on a connection as EVAL: that one is left out.
  await heartbeat();
  await resetCommandStats(redis);
  for (let n = 0; n < options.calls; n++) await heartbeat();
  return { calls: options.calls, emptyScript, heartbeatScript: await readCommandStats(redis) };
}

/** Claims of issues `first…`, one at a time; the commands the App sent to Redis for each (MONITOR, outside scripts). */
async function claimRoundTrips(
  stack: LocalStack<AppProcess>,
  appUrl: string,
  first: number,
  count: number,
): Promise<ClaimRoundTrips[]> {
  const own = stack.redis!.client;
  // This process's own commands (the ping below) are left out by their client address.
  const ownAddress = /addr=(\S+)/.exec(String(await own.call("CLIENT", "INFO")))?.[1];
  const monitor = await own.monitor();
  const seen: string[] = [];
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source !== "lua" && source !== ownAddress) seen.push(String(args[0]).toLowerCase());
  });
  const client = createClaimHoldClient({ baseUrl: appUrl, githubToken: fleet.token, retries: 0 });
  const claims: ClaimRoundTrips[] = [];
  try {
    for (let n = 0; n < count; n++) {
      seen.length = 0;
      const actor = { runtime: "bench", sessionId: `monitored${n}` };
      const status = await client.claim({ repo, issue: first + n, actor }).then(
        () => 201,
        (error: { status?: number }) => error.status ?? 0,
      );
      // MONITOR's lines arrive on their own connection: a ping through it comes back after them.
      await own.ping();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const commands: Record<string, number> = {};
      for (const name of seen) commands[name] = (commands[name] ?? 0) + 1;
      claims.push({ status, commands });
    }
  } finally {
    monitor.disconnect();
  }
  return claims;
}

export async function benchHeartbeatFloor(sizes: FloorSizes): Promise<FloorFigures> {
  const loadAtStart = loadavg()[0]!;
  const ticksPerSecond = clockTicksPerSecond();
  const compiled = await compileModules();
  const tokenSecret = randomBytes(32).toString("hex");
  const servers: { stop(): void }[] = [];
  let stack: LocalStack<AppProcess> | undefined;
  try {
    stack = await startLocalStack({
      redis: { kind: "private", keyPrefix: "bench:" },
      startApp: appProcess({
        tokenSecret,
        adminToken: randomBytes(16).toString("hex"),
        entry: compiled.path("src/main.ts"),
      }),
      apps: 0,
    });
    const redis = stack.redis!;
    // #1 the App's lease, #2 the floor's, then the monitored claims.
    await seedRepository(stack, 2 + sizes.claims);
    const app = await stack.addApp();
    const appLease = await claimLease(app.url, 1, "app");
    const floorLease = await claimLease(app.url, 2, "floor");

    const serverPort = async (file: string, args: (port: number) => string[]) => {
      const port = await freePort();
      const server = await startServer(compiled.path(file), args(port));
      servers.push(server);
      return { port, pid: server.pid };
    };
    const bare = await serverPort("bench/baseline-server.ts", (port) => ["bare", String(port)]);
    const probot = await serverPort("bench/baseline-server.ts", (port) => ["probot", String(port)]);
    const floor = await serverPort("bench/floor-server.ts", (port) => [
      String(port),
      redis.url,
      redis.keyPrefix,
      tokenSecret,
    ]);
    const local = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;
    const targets: Record<FloorTarget, Target> = {
      bare: { url: local(bare.port, "/"), pid: bare.pid },
      probot: { url: local(probot.port, noopPath), pid: probot.pid },
      floor: { url: local(floor.port, floorLease.path), pid: floor.pid, headers: floorLease.headers },
      heartbeat: { url: `${app.url}${appLease.path}`, pid: app.child.pid ?? 0, headers: appLease.headers },
    };
    const measured = { admin: redis.client, pid: await redisServerPid(redis.client), ticksPerSecond };

    if (sizes.warmSeconds > 0) {
      const warm = { connections: sizes.closedLoop.connections, seconds: sizes.warmSeconds };
      for (const name of floorTargets) await autocannon(targets[name], warm);
    }
    const rounds: FloorRound[] = [];
    for (let round = 0; round < sizes.rounds; round++) {
      const closed = {} as FloorRound["closed"];
      for (const name of floorTargets) {
        const { completed, ...result } = await measure(
          targets[name],
          measured,
          () => autocannon(targets[name], sizes.closedLoop),
          (r) => r.completed,
        );
        closed[name] = result;
      }
      const open = {} as FloorRound["open"];
      for (const name of floorTargets) {
        const target = targets[name];
        const plan: OpenLoopPlan = {
          url: target.url,
          ...sizes.openLoop,
          headers: { "content-type": "application/json", ...target.headers },
        };
        open[name] = await measure(
          target,
          measured,
          () => openLoop(compiled, plan),
          (r) => r.sent - r.errors,
        );
      }
      rounds.push({ closed, open });
    }
    for (const server of servers.splice(0)) server.stop();
    const scriptAlone = await scriptCostAlone(redis.client, floorLease, {
      keyPrefix: redis.keyPrefix,
      tokenSecret,
      calls: sizes.scriptCalls,
    });
    const claims = await claimRoundTrips(stack, app.url, 3, sizes.claims);
    return {
      sizes,
      clockTicksPerSecond: ticksPerSecond,
      rounds,
      scriptAlone,
      claims,
      machine: machineDescription(),
      load: { start: loadAtStart, end: loadavg()[0]! },
    };
  } finally {
    for (const server of servers) server.stop();
    await stack?.stop().catch(() => undefined);
    compiled.remove();
  }
}

/** `--smoke`, else the full sizes, with `--rounds=N` and `--seconds=S` (every load's length) overriding. */
function sizesFromArguments(args: string[]): FloorSizes {
  const base = args.includes("--smoke") ? smokeFloorSizes : fullFloorSizes;
  const option = (name: string) => {
    const value = args.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
    return value === undefined ? undefined : Number(value);
  };
  const seconds = option("seconds");
  return {
    ...base,
    rounds: option("rounds") ?? base.rounds,
    closedLoop: { ...base.closedLoop, seconds: seconds ?? base.closedLoop.seconds },
    openLoop: { ...base.openLoop, seconds: seconds ?? base.openLoop.seconds },
  };
}

if (process.argv[1]?.endsWith("bench/heartbeat-floor.ts")) {
  const args = process.argv.slice(2);
  const figures = await benchHeartbeatFloor(sizesFromArguments(args));
  if (args.includes("--json")) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  else {
    const command = `npx tsx bench/heartbeat-floor.ts${args.length ? ` ${args.join(" ")}` : ""}`;
    process.stdout.write(`${renderHeartbeatFloor(figures, command).join("\n")}\n`);
  }
  process.exit(0);
}
