// The targets section of docs/benchmarks.md: issue 14's table, each row measured, judged against its target, with the command that made it.
import type { TargetFigures } from "./fleet-targets.js";

export const fixed = (n: number, digits: number) =>
  Number(n.toFixed(digits)).toLocaleString("en-US", { maximumFractionDigits: digits });
export const ms = (n: number) => fixed(n, n < 10 ? 2 : n < 100 ? 1 : 0);
export const range = (values: number[], format: (n: number) => string) => {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? format(low) : `${format(low)}–${format(high)}`;
};
export const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

/** One row of the table: what was measured, whether it meets its target, and why not when it does not. */
export interface TargetRow {
  path: string;
  target: string;
  measured: string;
  met: boolean;
  /** How far off, in the target's unit (shown when missed). */
  missedBy: string;
  why: string;
  command: string;
}

/**
 * Why a row misses its target, as found when these benchmarks were written (profiles and the figures
 * below); shown only beside a row that misses.
 */
export const whyMissed = {
  ratio:
    "Per request the heartbeat does work the bare server does not: the body's parse, the lease token's HMAC, " +
    "one EVALSHA round trip to Redis (the script's commands, its short reply decoded), the JSON answer; the " +
    "bare server has one process to schedule, the heartbeat two (the App and Redis) per request, and on 2 " +
    "cores shared with other work each hand-off waits for a core: the busier the machine, the lower the ratio " +
    "(0.31–0.37 in a run at load average 13–18 where the bare server was itself slowed to 1–2k req/s).",
  p99:
    "The heartbeat queues behind the App's own event loop, Redis and GC pauses, which the bare server does " +
    "not have; on this shared machine the other load takes the cores away at random, which the open loop " +
    "counts in full.",
  claim:
    "A claim is two GitHub round trips (the SubjectStatus read, then the ApplyTransition mutation) plus its " +
    "Redis scripts; production throttling spaces mutations a second apart per installation, shared by replicas " +
    "through one Redis script call per write, the other limiters in the process. The App's share of the " +
    "latency, beside GitHub's server time, is in issue 24's section.",
  burst:
    "The first claim goes alone and the others join the next request, put together one write spacing (1 s) " +
    "later; on a loaded machine some claims' reads answer after that and go in a third request another second " +
    "later (see the subjects per request).",
  count:
    "The script's own commands (ZCOUNT on the login's sorted set and the claim's writes) on a loaded machine.",
  metrics:
    "The scrape reads no claim (it serves counts kept in memory); its time is the registry's Prometheus text " +
    "and the HTTP round trip, on a loaded machine.",
};

export function targetRows(figures: TargetFigures): TargetRow[] {
  const fleetCommand = "`npx tsx bench/fleet-targets.ts` (part of `npm run bench`)";
  const ratios = figures.closedLoop.map((r) => r.heartbeat.rps / r.bare.rps);
  const ratio = mean(ratios);
  const deltas = figures.openLoop.map((r) => r.heartbeat.p99 - r.bare.p99);
  const delta = mean(deltas);
  const capacity = Math.max(...figures.closedLoop.map((r) => r.heartbeat.rps));
  const claims = figures.spacedClaims;
  const walls = figures.bursts.map((b) => b.wallMs);
  const worstWall = Math.max(...walls);
  const writesPerBurst = figures.bursts.map((b) => b.subjectsPerMutation.length);
  const largest = figures.count.at(-1);
  const burstSize = figures.sizes.burst.claims;
  const { openLoop, closedLoop } = figures.sizes;
  return [
    {
      path: `heartbeat req/s ÷ bare \`node:http\` POST (autocannon, ${closedLoop.connections} connections)`,
      target: "≥ 0.40",
      measured: `${range(ratios, (n) => fixed(n, 2))} (${range(
        figures.closedLoop.map((r) => r.heartbeat.rps),
        (n) => fixed(n, 0),
      )} vs ${range(
        figures.closedLoop.map((r) => r.bare.rps),
        (n) => fixed(n, 0),
      )} req/s)`,
      met: ratio >= 0.4,
      missedBy: fixed(0.4 - ratio, 2),
      why: whyMissed.ratio,
      command: fleetCommand,
    },
    {
      path: `heartbeat p99 at ${fixed(openLoop.rate, 0)} req/s evenly spaced over ${openLoop.connections} connections, minus bare p99 in the same run`,
      target: "≤ +1 ms",
      measured: `${range(deltas, (n) => `+${ms(n)}`)} ms (${figures.openLoop
        .map((r) => `${ms(r.heartbeat.p99)} vs ${ms(r.bare.p99)}`)
        .join("; ")} ms)`,
      met: delta <= 1,
      missedBy: `${ms(delta - 1)} ms`,
      why:
        capacity < openLoop.rate
          ? `${whyMissed.p99} In this run the App answered at most ${fixed(capacity, 0)} heartbeats/s closed-loop, below the ${fixed(openLoop.rate, 0)} req/s offered, so its queue grew for the whole run.`
          : whyMissed.p99,
      command: `${fleetCommand}; load from \`bench/open-loop.ts\``,
    },
    {
      path: `one claim, production throttling on, caches warm (p50 / p99 of ${claims.n})`,
      target: "≤ 50 / 150 ms",
      measured: `${ms(claims.p50)} / ${ms(claims.p99)} ms`,
      met: claims.p50 <= 50 && claims.p99 <= 150,
      missedBy: `${ms(Math.max(0, claims.p50 - 50))} / ${ms(Math.max(0, claims.p99 - 150))} ms`,
      why: whyMissed.claim,
      command: `${fleetCommand}; claims from \`bench/claim-load.ts\``,
    },
    {
      path: `${burstSize} concurrent claims of ${burstSize} different issues, one installation: wall time (${walls.length} bursts)`,
      target: "≤ 2 s, GitHub's write rules kept",
      measured: `${range(walls, (n) => fixed(n / 1000, 2))} s; ${range(writesPerBurst, String)} mutation requests per burst (subjects ${figures.bursts
        .map((b) => b.subjectsPerMutation.join(" + "))
        .join("; ")}), each through the write limiter`,
      met: worstWall <= 2_000,
      missedBy: `${fixed((worstWall - 2_000) / 1000, 2)} s`,
      why: whyMissed.burst,
      command: fleetCommand,
    },
    {
      path: `claim script with ${fixed(largest?.size ?? 0, 0)} live claims of the login: blocked Redis (median of ${largest?.claim.n ?? 0})`,
      target: "≤ 0.2 ms",
      measured: `${fixed((largest?.claim.p50 ?? 0) / 1000, 3)} ms (p99 ${fixed((largest?.claim.p99 ?? 0) / 1000, 3)}); with ${figures.count
        .map((c) => `${fixed(c.size, 0)}: ${fixed(c.claim.p50 / 1000, 3)}`)
        .join(", ")} ms`,
      met: (largest?.claim.p50 ?? 0) <= 200,
      missedBy: `${fixed(((largest?.claim.p50 ?? 0) - 200) / 1000, 3)} ms`,
      why: whyMissed.count,
      command: "`npx tsx bench/claim-count.ts` (part of `npm run bench`)",
    },
    {
      path: `\`/metrics\` scrape with ${fixed(figures.sizes.metricsClaims, 0)} claims (median of ${figures.metrics.n})`,
      target: "≤ 10 ms",
      measured: `${ms(figures.metrics.p50)} ms (p99 ${ms(figures.metrics.p99)})`,
      met: figures.metrics.p50 <= 10,
      missedBy: `${ms(figures.metrics.p50 - 10)} ms`,
      why: whyMissed.metrics,
      command: fleetCommand,
    },
  ];
}

export function renderTargets(figures: TargetFigures): string[] {
  const rows = targetRows(figures);
  const { sizes } = figures;
  const openRows = figures.openLoop.flatMap((round, n) =>
    (["bare", "probot", "heartbeat"] as const).map((kind) => {
      const r = round[kind];
      return `| ${n + 1} | ${label[kind]} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.non2xx + r.errors} | ${ms(r.lagMax)} |`;
    }),
  );
  const closedRows = figures.closedLoop.flatMap((round, n) =>
    (["bare", "probot", "heartbeat"] as const).map((kind) => {
      const r = round[kind];
      return `| ${n + 1} | ${label[kind]} | ${fixed(r.rps, 0)} | ${fixed(r.rps / round.bare.rps, 2)} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} |`;
    }),
  );
  const countRows = figures.count.map(
    (c) =>
      `| ${fixed(c.size, 0)} | ${c.claim.p50} | ${c.claim.p99} | ${c.claim.max} | ${c.heartbeat.p50} | ${c.heartbeat.p99} |`,
  );
  const counts = (requests: Record<string, number>) =>
    Object.entries(requests)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ") || "—";
  return [
    "## Issue 14's targets",
    "",
    "| path | target | measured | verdict | command |",
    "|---|---|---|---|---|",
    ...rows.map(
      (row) =>
        `| ${row.path} | ${row.target} | ${row.measured} | ${row.met ? "**met**" : `missed by ${row.missedBy}: ${row.why}`} | ${row.command} |`,
    ),
    "",
    "The App runs as deployed (`src/main.ts` in a process of its own, from source through `tsx`'s loader, which",
    "transpiles once at start-up: the production Octokit with its write",
    "limiter in Redis, write coalescing on, the janitor off) on a private `redis-server`; the bare `node:http`",
    "server and the no-op Probot route (`bench/baseline-server.ts`: the App's own server, Probot's middleware, one",
    "`addHandler` route that reads the body and answers `{}`) are processes of their own, and so is every load",
    "generator run. This process holds only the GitHub simulator (idle during heartbeats).",
    "",
    `### Heartbeat, open loop: ${fixed(sizes.openLoop.rate, 0)} req/s evenly spaced, ${sizes.openLoop.connections} keep-alive connections, ${sizes.openLoop.seconds} s per run`,
    "",
    "`bench/open-loop.ts` sends request n at start + n / rate, round-robin over its connections, and times it",
    "from when it was due (a busy connection or a late timer counts against the server). The three targets run",
    "back to back in each round. Latency in ms; lag: how late the generator itself sent a request at worst.",
    "",
    "| round | target | p50 | p90 | p99 | max | failed | lag max |",
    "|---|---|---|---|---|---|---|---|",
    ...openRows,
    "",
    `### Heartbeat, closed loop: autocannon, ${sizes.closedLoop.connections} connections, ${sizes.closedLoop.seconds} s per run`,
    "",
    "| round | target | req/s | ÷ bare | p50 ms | p99 ms | failed |",
    "|---|---|---|---|---|---|---|",
    ...closedRows,
    "",
    `GitHub requests during all those heartbeats: **${figures.githubRequestsDuringHeartbeats}**.`,
    "",
    "### Claims with production throttling",
    "",
    `${figures.spacedClaims.n} claims of different issues one at a time, ${fixed(sizes.spacedClaims.gapMs, 0)} ms apart (the write limiter idle`,
    "before each, as at a fleet's usual pace), after a warm-up claim: p50 " +
      `${ms(figures.spacedClaims.p50)} ms, p99 ${ms(figures.spacedClaims.p99)} ms, max ${ms(figures.spacedClaims.max)} ms; answers ${counts(
        tally(figures.spacedClaims.statuses.map(String)),
      )}; GitHub requests: ${counts(figures.spacedClaims.requests)}.`,
    "",
    "| burst | wall s | answers | subjects per mutation request | GitHub requests |",
    "|---|---|---|---|---|",
    ...figures.bursts.map(
      (b, n) =>
        `| ${n + 1} | ${fixed(b.wallMs / 1000, 2)} | ${counts(tally(b.statuses.map(String)))} | ${b.subjectsPerMutation.join(" + ")} | ${counts(b.requests)} |`,
    ),
    "",
    "GitHub's write rules hold in the burst: mutation requests of one installation go one at a time, each",
    "through the write limiter (one job at a time, 1 s apart); a batched request costs the secondary-limit points",
    "of one mutation request; each claim creates its one claim comment, inside the 80 creations a minute.",
    "",
    "### `/metrics`",
    "",
    `${figures.metrics.n} scrapes one after another with ${fixed(sizes.metricsClaims, 0)} seeded claims in the store (a new App counts them at`,
    `start-up, in the background): p50 ${ms(figures.metrics.p50)} ms, p99 ${ms(figures.metrics.p99)} ms, max ${ms(figures.metrics.max)} ms; ${fixed(figures.metrics.bytes, 0)} bytes; the claims gauge`,
    `showed ${fixed(figures.metrics.claimsInGauge, 0)} claims, ${fixed(figures.metrics.firstCountMs / 1000, 1)} s after the App was started.`,
    ...(figures.metrics.claimsInGauge < sizes.metricsClaims
      ? [
          `That is fewer than the store holds (${fixed(sizes.metricsClaims, 0)} seeded, all in one repository, plus the benchmark's own): the`,
          "gauge's count reads the fleet as the dashboard does, at most `recordsPerRepository` (500) claims per",
          "repository (`src/dashboard/read-fleet.ts`).",
        ]
      : []),
    ...(figures.metrics.firstCountMs > 20_000
      ? [
          "The count at start-up failed (the App logs `could not count the claims for the metrics`: its Redis",
          "connection was not up yet, and the store queues no commands), so the gauge had no samples until the",
          "next refresh, 30 s later.",
        ]
      : []),
    "",
    "### Claim script's Redis time against a login's live claims",
    "",
    "`bench/claim-count.ts`: a private redis-server's SLOWLOG (server-side µs, no network) for agent claims of a",
    "login that already holds that many live claims (each claim rolled back, so the count stays), and the",
    "heartbeat script beside it.",
    "",
    "| live claims of the login | claim p50 µs | claim p99 µs | claim max µs | heartbeat p50 µs | heartbeat p99 µs |",
    "|---|---|---|---|---|---|",
    ...countRows,
    "",
  ];
}

const label = { bare: "bare `node:http`", probot: "no-op Probot route", heartbeat: "heartbeat" } as const;

function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
