// The heartbeat's floor, as a process of its own: node:http, the body's JSON.parse, the lease token's HMAC digest and one EVALSHA of the App's heartbeat script, nothing else.
//
//   node <compiled>/bench/floor-server.js <port> <redisUrl> <keyPrefix> <tokenSecret>
//
// `POST /api/v1/leases/{leaseId}/heartbeat` with the lease token as bearer: the script is the App's
// own (`storeScripts`, loaded and run by `script-runner.ts`, on a client made as the App makes it),
// with the keys and arguments the App's store sends for that lease, and the answer has the App's
// heartbeat shape. What the App does beyond this (its routing, the body's schema, the failed-auth
// limiter, the lease core, the record's decoding) is what a heartbeat costs above the floor.
// Prints "up" once listening.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parseLeaseId, type SubjectKey } from "../src/domain/claim.js";
import { phaseEditEveryMs } from "../src/lease/calls/lease-calls.js";
import type { HeartbeatAnswer } from "../src/lease/outcomes.js";
import { createTokenMinter } from "../src/lease/tokens.js";
import { createRedisClient } from "../src/providers/create-store.js";
import { memberOf, StoreKeys } from "../src/providers/redis/keys.js";
import { runScript, type ScriptCall, type ScriptDefinition } from "../src/providers/redis/script-runner.js";
import { heartbeatScript, storeScripts } from "../src/providers/redis/store-scripts.js";

const heartbeatPath = /^\/api\/v1\/leases\/([^/]+)\/heartbeat$/;

type CallOf<D> = D extends ScriptDefinition<infer K, infer A, unknown> ? ScriptCall<K, A> : never;

/**
 * The keys and arguments `RedisClaimStore.heartbeat` sends for a heartbeat whose body is `{}`, built
 * by hand (the one place to follow a change of the script's keys or arguments; the compiler names a
 * missing one).
 */
export function plainHeartbeatCall(
  keys: StoreKeys,
  lease: SubjectKey & { generation: number },
  tokenDigest: string,
  now: number,
): CallOf<typeof heartbeatScript> {
  return {
    keys: {
      ...keys.subjectKeys(lease, { record: "rec", digests: "tok", spend: "spend", gaps: "gaps" }),
      ...keys.indexKeys(lease),
    },
    args: {
      generation: lease.generation,
      tokenDigest,
      now,
      member: memberOf(lease),
      phaseEditEveryMs,
      hasPhase: "0",
      phase: "",
      hasBlocker: "0",
      blocker: "",
      waitUntil: "",
      pullRequest: "",
      ttlMs: "",
      reclaimAfterMs: "",
      heartbeatMs: "",
      needsHuman: "0",
      hasUsage: "0",
      usageCost: "",
      usageTokens: "",
      wantRecord: "0",
    },
  };
}

/** The App's heartbeat answer from the script's short reply (the liveness fields it wrote). */
function answerOf(
  lease: { generation: number },
  live: { waitUntil: unknown; ttlMs: unknown },
  now: number,
): HeartbeatAnswer {
  const waitUntil = Number(live.waitUntil || 0);
  const aliveAt = Math.max(now, waitUntil);
  return {
    generation: lease.generation,
    expiresAt: new Date(aliveAt + Number(live.ttlMs)).toISOString(),
    state: waitUntil > now ? "waiting" : "active",
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function main(): Promise<void> {
  const [portText, redisUrl, keyPrefix, tokenSecret] = process.argv.slice(2);
  if (!redisUrl || keyPrefix === undefined || !tokenSecret) {
    throw new Error("usage: floor-server <port> <redisUrl> <keyPrefix> <tokenSecret>");
  }
  const redis = createRedisClient(redisUrl);
  storeScripts.register(redis);
  const keys = new StoreKeys(keyPrefix);
  const tokens = createTokenMinter(tokenSecret);
  const heartbeat = async (req: IncomingMessage, res: ServerResponse, leaseId: string) => {
    JSON.parse(await readBody(req));
    const lease = parseLeaseId(leaseId);
    const token = req.headers.authorization?.replace(/^bearer\s+/i, "");
    if (!lease || !token) return reply(res, 404, { error: { code: "not_found" } });
    const now = Date.now();
    const outcome = await runScript(
      redis,
      heartbeatScript,
      plainHeartbeatCall(keys, lease, tokens.digest(token), now),
    );
    if (outcome.kind !== "ok") return reply(res, 409, { error: { code: outcome.kind } });
    reply(res, 200, answerOf(lease, outcome, now));
  };
  const server = createServer((req, res) => {
    const match = req.method === "POST" ? heartbeatPath.exec(req.url ?? "") : null;
    if (!match) return reply(res, 404, { error: { code: "not_found" } });
    heartbeat(req, res, match[1]!).catch((error: unknown) => reply(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(Number(portText), "127.0.0.1", resolve));
  process.stdout.write("up\n");
}

if (/bench\/floor-server\.[jt]s$/.test(process.argv[1] ?? "")) await main();
