// (a) Heartbeat route vs a bare Probot route vs redis-benchmark SET, at one concurrency; then latency at 1,000 req/s.
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { type BenchWorld, repo } from "./bench-world.js";

export interface HeartbeatFigures {
  connections: number;
  seconds: number;
  heartbeatRps: number;
  bareRps: number;
  redisSetRps: number;
  heartbeatP50: number;
  heartbeatP99: number;
  fixedRate: { rate: number; p50: number; p99: number; non2xx: number };
  githubRequestsDuringHeartbeats: number;
  errors: number;
}

/** The bare route: what Probot's server costs with no work at all. */
export function bareRoute(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) {
  if (req.url !== "/bench/bare") return false;
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  return true;
}

function redisSetRps(port: number, connections: number, requests: number): number {
  const csv = execFileSync(
    "redis-benchmark",
    [
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-t",
      "set",
      "-c",
      String(connections),
      "-n",
      String(requests),
      "--csv",
    ],
    { encoding: "utf8" },
  );
  // "test","rps",… then "SET","81234.57",…
  const row = csv.split("\n").find((line) => line.startsWith('"SET"'));
  if (!row) throw new Error(`redis-benchmark printed no SET row:\n${csv}`);
  return Number(row.split(",")[1]!.replaceAll('"', ""));
}

export async function benchHeartbeat(
  world: BenchWorld,
  options: {
    connections: number;
    seconds: number;
    fixedRate: number;
    fixedSeconds: number;
    redisRequests: number;
  },
): Promise<HeartbeatFigures> {
  const claimed = await world
    .client()
    .claim({ repo, issue: 1, actor: { runtime: "bench", sessionId: "hb" } });
  const lease = claimed.lease;
  const heartbeat = {
    url: `${world.stack.app.url}/api/v1/leases/${encodeURIComponent(lease.id)}/heartbeat`,
    method: "POST",
    headers: { authorization: `Bearer ${lease.token}`, "content-type": "application/json" },
    body: "{}",
  };
  // Warm up both routes, then measure them back to back.
  await autocannon({ ...heartbeat, connections: options.connections, amount: 500 });
  const mark = world.stack.sim.requests.mark();
  const hb = await autocannon({ ...heartbeat, connections: options.connections, duration: options.seconds });
  const githubRequestsDuringHeartbeats = world.stack.sim.requests.since(mark).length;
  const bare = await autocannon({
    url: `${world.stack.app.url}/bench/bare`,
    method: "POST",
    body: "{}",
    connections: options.connections,
    duration: options.seconds,
  });
  const fixed = await autocannon({
    ...heartbeat,
    connections: options.connections,
    duration: options.fixedSeconds,
    overallRate: options.fixedRate,
  });
  return {
    connections: options.connections,
    seconds: options.seconds,
    heartbeatRps: hb.requests.average,
    bareRps: bare.requests.average,
    redisSetRps: redisSetRps(world.redis.port, options.connections, options.redisRequests),
    heartbeatP50: hb.latency.p50,
    heartbeatP99: hb.latency.p99,
    fixedRate: {
      rate: options.fixedRate,
      p50: fixed.latency.p50,
      p99: fixed.latency.p99,
      non2xx: fixed.non2xx,
    },
    githubRequestsDuringHeartbeats,
    errors: hb.errors + hb.non2xx + bare.errors + bare.non2xx,
  };
}
