// How long the claim script blocks Redis while one login holds 10 / 1,000 / 10,000 live claims (and the heartbeat beside it).
//
//   npx tsx bench/claim-count.ts [--sizes 10,1000,10000] [--samples 200]
//
// Starts a private redis-server (so SLOWLOG can record every script run), seeds the login's live claims
// as human-kind claims (indexed under the login like any claim, but never capped, so seeding stays
// linear), then runs agent claims of the same login on new issues — each rolled back, so the count
// stays at the size — and reads the scripts' own run time from SLOWLOG (µs, server side, no network).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import type { Actor } from "../src/domain/claim.js";
import type { ClaimInput } from "../src/providers/liveness-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";

const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const login = "fleet-bot";
const probeRuntime = "bench-probe";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function claimInput(actor: Actor, issue: number, now: number): ClaimInput {
  return {
    key: { installationId: 1, repoId: 1, issue },
    repo: "bench/count",
    actor,
    taskClass: "author",
    durations,
    tokenDigest: randomBytes(32).toString("hex"),
    takeover: false,
    now,
    minGeneration: 0,
    appAssigned: true,
    caps: { perSession: 1_000_000, perLogin: 1_000_000 },
  };
}

interface SlowEntry {
  micros: number;
  args: string[];
}

async function slowlog(redis: Redis): Promise<SlowEntry[]> {
  const entries = (await redis.call("SLOWLOG", "GET", "-1")) as [number, number, number, string[]][];
  return entries.map(([, , micros, args]) => ({ micros, args }));
}

/** Server-side run times of one script (µs, from SLOWLOG). */
export interface ScriptTimes {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
}

export interface ClaimCountFigures {
  /** Live claims of the login while measured. */
  size: number;
  claim: ScriptTimes;
  heartbeat: ScriptTimes;
}

function times(values: number[]): ScriptTimes {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? 0, n: sorted.length };
}

function summary(t: ScriptTimes): string {
  return `p50 ${t.p50} µs, p90 ${t.p90} µs, p99 ${t.p99} µs, max ${t.max} µs (n=${t.n})`;
}

async function measure(redis: Redis, size: number, samples: number): Promise<ClaimCountFigures> {
  const store = createRedisStores({ redis, keyPrefix: `count-${size}:` }).claims;
  const now = Date.now();
  for (let first = 0; first < size; first += 500) {
    const batch: Promise<unknown>[] = [];
    for (let issue = first + 1; issue <= Math.min(size, first + 500); issue++) {
      batch.push(store.claim(claimInput({ kind: "human", login }, issue, now)));
    }
    await Promise.all(batch);
  }
  const agent: Actor = { kind: "agent", login, runtime: probeRuntime, sessionId: "probe" };
  // Warm-up: the first claim of an installation may move older index entries in (once).
  for (let n = 0; n < 5; n++) {
    const outcome = await store.claim(claimInput(agent, 1_000_000 + n, now));
    if (outcome.kind === "created") {
      await store.rollbackClaim(outcome.record, outcome.record.generation, null, now);
    }
  }
  await redis.call("SLOWLOG", "RESET");
  for (let n = 0; n < samples; n++) {
    const outcome = await store.claim(claimInput(agent, 2_000_000 + n, now));
    if (outcome.kind !== "created") throw new Error(`expected created, got ${outcome.kind}`);
    await store.rollbackClaim(outcome.record, outcome.record.generation, null, now);
  }
  const claims = (await slowlog(redis)).filter(
    (entry) =>
      ["evalsha", "eval"].includes(entry.args[0]?.toLowerCase() ?? "") &&
      entry.args.some((a) => a.includes(probeRuntime)),
  );

  const keptInput = claimInput(agent, 3_000_000, now);
  const kept = await store.claim(keptInput);
  if (kept.kind !== "created") throw new Error(`expected created, got ${kept.kind}`);
  await redis.call("SLOWLOG", "RESET");
  for (let n = 0; n < samples; n++) {
    const beat = await store.heartbeat({
      key: kept.record,
      generation: kept.record.generation,
      tokenDigest: keptInput.tokenDigest,
      now: now + n + 1,
      phaseEditEveryMs: 10 * minute,
    });
    if (beat.kind !== "ok") throw new Error(`expected ok, got ${beat.kind}`);
  }
  const beats = (await slowlog(redis)).filter((entry) =>
    ["evalsha", "eval"].includes(entry.args[0]?.toLowerCase() ?? ""),
  );
  return { size, claim: times(claims.map((e) => e.micros)), heartbeat: times(beats.map((e) => e.micros)) };
}

/** Runs the measurement at each size on a private redis-server of its own (stopped at the end). */
export async function benchClaimCount(options: {
  sizes: number[];
  samples: number;
  onServer?: (version: string, port: number) => void;
}): Promise<ClaimCountFigures[]> {
  const { sizes, samples } = options;
  const port = await freePort();
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  // Retries the connection while the server starts.
  const redis = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 50, retryStrategy: () => 100 });
  redis.on("error", () => {}); // refused until the server listens; ping below waits for it
  try {
    await redis.ping();
    // Redis 7 logs the commands a script calls as well as the script: above 10 µs keeps out the
    // single commands (the old count's HGET per claim would otherwise crowd the log) and keeps
    // every script run (n shows it: every sample is there).
    await redis.call("CONFIG", "SET", "slowlog-log-slower-than", "10");
    await redis.call("CONFIG", "SET", "slowlog-max-len", String(100 * samples));
    options.onServer?.((await redis.info("server")).match(/redis_version:(\S+)/)?.[1] ?? "?", port);
    const figures: ClaimCountFigures[] = [];
    for (const size of sizes) figures.push(await measure(redis, size, samples));
    return figures;
  } finally {
    redis.disconnect();
    server.kill();
  }
}

if (process.argv[1]?.endsWith("bench/claim-count.ts")) {
  const figures = await benchClaimCount({
    sizes: option("sizes", "10,1000,10000").split(",").map(Number),
    samples: Number(option("samples", "200")),
    onServer: (version, port) => console.log(`redis-server ${version} on port ${port}`),
  });
  for (const { size, claim, heartbeat } of figures) {
    console.log(`${size} live claims of one login: claim script ${summary(claim)}`);
    console.log(`${size} live claims of one login: heartbeat script ${summary(heartbeat)}`);
  }
}
