// Heartbeats/s through the Redis store on a private redis-server: LOOPS (50) concurrent heartbeat loops
// for SECONDS_ (3) s over INSTALLATIONS (1) installations; prints one JSON line with the server's
// EVALSHA calls and time (INFO commandstats) and the CPU per heartbeat of Redis and of this process.
// It measures the code checked out: `npx tsx bench/heartbeat-batching.ts`, before and after a change.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { createRedisClient } from "../src/providers/create-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import { startPrivateRedis } from "../tools/local-stack/start-private-redis.js";

const loops = Number(process.env.LOOPS ?? 50);
const seconds = Number(process.env.SECONDS_ ?? 3);
const installations = Number(process.env.INSTALLATIONS ?? 1);
const digest = (t: string) => createHash("sha256").update(t).digest("hex");
const minute = 60_000;
const server = await startPrivateRedis();
const client = createRedisClient(server.url) as Redis;
client.on("error", () => {});
while (client.status !== "ready") await new Promise((r) => setTimeout(r, 10));
const stores = createRedisStores({ redis: client, keyPrefix: "m:" });
const subjects = Array.from({ length: loops }, (_, i) => ({
  installationId: 1 + (i % installations),
  repoId: 1,
  issue: 1 + i,
}));
for (const key of subjects) {
  const o = await stores.claims.claim({
    key,
    repo: "a/b",
    actor: { kind: "agent", login: "bot", runtime: "x", sessionId: `s${key.issue}` },
    taskClass: "author",
    durations: { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute },
    tokenDigest: digest(`t${key.issue}`),
    takeover: false,
    now: Date.now(),
    minGeneration: 0,
    appAssigned: true,
    caps: { perSession: 5, perLogin: 10_000 },
  });
  if (o.kind !== "created") throw new Error(o.kind);
}
const beat = (key: (typeof subjects)[number]) =>
  stores.claims.heartbeat({
    key,
    generation: 1,
    tokenDigest: digest(`t${key.issue}`),
    now: Date.now(),
    phaseEditEveryMs: 10 * minute,
  });
// warm-up
await Promise.all(subjects.map(beat));
const info = async (section: string) => String(await server.command("INFO", section));
const cpuOf = (text: string) => {
  const n = (k: string) => Number(text.match(new RegExp(`${k}:([0-9.]+)`))?.[1] ?? 0);
  return n("used_cpu_sys") + n("used_cpu_user");
};
await server.command("CONFIG", "RESETSTAT");
const cpu0 = cpuOf(await info("cpu"));
const node0 = process.cpuUsage();
let count = 0;
let failures = 0;
const end = Date.now() + seconds * 1000;
const t0 = performance.now();
await Promise.all(
  subjects.map(async (key) => {
    while (Date.now() < end) {
      const o = await beat(key).catch(() => null);
      if (o?.kind === "ok") count++;
      else failures++;
    }
  }),
);
const elapsed = (performance.now() - t0) / 1000;
const nodeCpu = process.cpuUsage(node0);
const cpu1 = cpuOf(await info("cpu"));
const stats = await info("commandstats");
const line = (cmd: string) => {
  const m = stats.match(new RegExp(`cmdstat_${cmd}:calls=(\\d+),usec=(\\d+),usec_per_call=([0-9.]+)`));
  return m
    ? { calls: Number(m[1]), usec: Number(m[2]), usecPerCall: Number(m[3]) }
    : { calls: 0, usec: 0, usecPerCall: 0 };
};
const evalsha = line("evalsha");
const evalc = line("eval");
const scriptUsec = evalsha.usec + evalc.usec;
console.log(
  JSON.stringify({
    mode: process.env.MODE,
    loops,
    installations,
    seconds: Number(elapsed.toFixed(2)),
    heartbeats: count,
    failures,
    heartbeatsPerSecond: Math.round(count / elapsed),
    evalsha,
    eval: evalc,
    heartbeatsPerScriptCall: Number((count / (evalsha.calls + evalc.calls)).toFixed(1)),
    scriptUsecPerHeartbeat: Number((scriptUsec / count).toFixed(2)),
    redisCpuUsecPerHeartbeat: Number((((cpu1 - cpu0) * 1e6) / count).toFixed(2)),
    nodeCpuUsecPerHeartbeat: Number(((nodeCpu.user + nodeCpu.system) / count).toFixed(2)),
  }),
);
client.disconnect();
await server.stop();
