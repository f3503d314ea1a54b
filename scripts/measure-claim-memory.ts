// Measures Redis memory per claim: seeds N live agent claims under a fresh key prefix, reads INFO and MEMORY USAGE, cleans up.
//   REDIS_URL=redis://127.0.0.1:6379 npx tsx scripts/measure-claim-memory.ts [N=10000]
import { createHash, randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";

const count = Number(process.argv[2] ?? 10_000);
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const keyPrefix = `claimhold-measure:${randomBytes(4).toString("hex")}:`;
const store = createRedisStores({ redis, keyPrefix }).claims;
const fences = new RedisFenceStore({ redis, keyPrefix });
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
const minute = 60_000;

async function keysOfPrefix(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${keyPrefix}*`, "COUNT", 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  return keys;
}

const before = await usedMemory();
const now = Date.now();
// 100 repositories × N/100 issues, one session per claim, the branch and title an agent would send.
for (let i = 0; i < count; i++) {
  const key = { installationId: 4242, repoId: 1_000_000 + (i % 100), issue: 1 + Math.floor(i / 100) };
  const sessionId = randomBytes(8).toString("hex");
  const actor = {
    kind: "agent" as const,
    login: "fleet-bot",
    runtime: "claude-code",
    sessionId,
    host: `build-${i % 20}`,
  };
  const branch = `agent/${sessionId}/${key.issue}-fix-the-flaky-parser-test`;
  const outcome = await store.claim({
    key,
    repo: `acme/repo-${i % 100}`,
    actor,
    taskClass: "author",
    durations: { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute },
    branch,
    title: "Fix the flaky parser test on the nightly build",
    tokenDigest: createHash("sha256").update(sessionId).digest("hex"),
    takeover: false,
    now,
    minGeneration: 0,
    appAssigned: true,
    issueNodeId: `I_kwDOABCDEF${i}`,
    assigneeNodeId: "U_kgDOAAAAAQ",
    caps: { perSession: 1, perLogin: count },
  });
  if (outcome.kind !== "created") throw new Error(`claim ${i}: ${outcome.kind}`);
  await store.commitClaim(key, 1, { commentNodeId: `IC_kwDOABCDEF${i}`, commentId: 9_000_000 + i });
  await store.markSynced(key, 1);
  await fences.recordClaim(key, { generation: 1, actor, branch });
  await store.heartbeat({
    key,
    generation: 1,
    tokenDigest: createHash("sha256").update(sessionId).digest("hex"),
    now: now + 1000,
    phaseEditEveryMs: minute,
  });
}
const after = await usedMemory();
const keys = await keysOfPrefix();
let usage = 0;
for (const key of keys) usage += Number(await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
console.log(
  JSON.stringify(
    {
      claims: count,
      keys: keys.length,
      usedMemoryDeltaBytes: after - before,
      usedMemoryPerClaimBytes: Math.round((after - before) / count),
      memoryUsageSumBytes: usage,
      memoryUsagePerClaimBytes: Math.round(usage / count),
      redis: /redis_version:(\S+)/.exec(await redis.info("server"))?.[1],
    },
    null,
    2,
  ),
);
for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
await redis.quit();
