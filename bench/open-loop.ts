// Evenly spaced open-loop load: request n is due at start + n / rate whatever came back, round-robin over a fixed set of keep-alive connections.
//
//   node --import tsx bench/open-loop.ts '<json OpenLoopPlan>'   → prints one JSON OpenLoopResult
//
// Latency runs from the time a request was due, not from when it was written, so a connection still
// busy with the one before (or a late timer) counts against the server instead of hiding (no
// coordinated omission). Autocannon's `-R` instead fires every connection's share at once each second.
import { Agent, request } from "node:http";

export interface OpenLoopPlan {
  url: string;
  rate: number;
  connections: number;
  seconds: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface OpenLoopResult {
  sent: number;
  non2xx: number;
  errors: number;
  /** Milliseconds from due time to the end of the answer. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** The generator's own lag: how late it wrote a request at worst, and the median (ms). */
  lagP50: number;
  lagMax: number;
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export function runOpenLoop(plan: OpenLoopPlan): Promise<OpenLoopResult> {
  const target = new URL(plan.url);
  const agents = Array.from(
    { length: plan.connections },
    () => new Agent({ keepAlive: true, maxSockets: 1 }),
  );
  const total = Math.round(plan.rate * plan.seconds);
  const spacing = 1_000 / plan.rate;
  const latencies = new Float64Array(total);
  const lags = new Float64Array(total);
  const body = plan.body ?? "{}";
  const headers = { ...plan.headers, "content-length": String(Buffer.byteLength(body)) };
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  return new Promise((resolve) => {
    const finish = () => {
      for (const agent of agents) agent.destroy();
      latencies.sort();
      lags.sort();
      resolve({
        sent: total,
        non2xx,
        errors,
        p50: quantile(latencies, 0.5),
        p90: quantile(latencies, 0.9),
        p99: quantile(latencies, 0.99),
        max: latencies[total - 1] ?? 0,
        lagP50: quantile(lags, 0.5),
        lagMax: lags[total - 1] ?? 0,
      });
    };
    const settle = (n: number, due: number) => {
      latencies[n] = performance.now() - due;
      if (++done === total) finish();
    };
    const fire = (n: number, due: number) => {
      lags[n] = performance.now() - due;
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: plan.method ?? "POST",
          headers,
          agent: agents[n % agents.length],
        },
        (res) => {
          if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) non2xx++;
          res.resume();
          res.on("end", () => settle(n, due));
        },
      );
      req.on("error", () => {
        errors++;
        settle(n, due);
      });
      req.end(body);
    };
    const start = performance.now() + 20;
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * spacing <= now) {
        fire(next, start + next * spacing);
        next++;
      }
      if (next < total) setTimeout(tick, Math.max(0, start + next * spacing - performance.now()));
    };
    setTimeout(tick, 20);
  });
}

// Run compiled (`.js`, bench/compile-modules.ts) or through tsx.
if (/bench\/open-loop\.[jt]s$/.test(process.argv[1] ?? "")) {
  const result = await runOpenLoop(JSON.parse(process.argv[2] ?? "{}") as OpenLoopPlan);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
