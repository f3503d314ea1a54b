// Concurrent heartbeats go to Redis together: one script call per batch, each lease with its own guard and answer.
import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor, SubjectKey } from "../src/domain/claim.js";
import { createRedisClient } from "../src/providers/create-store.js";
import {
  type ClaimInput,
  type HeartbeatInput,
  type HeartbeatOutcome,
  StoreUnavailableError,
} from "../src/providers/liveness-store.js";
import { StoreKeys } from "../src/providers/redis/keys.js";
import { fenceScripts } from "../src/providers/redis/redis-fence-store.js";
import { outboxScripts } from "../src/providers/redis/redis-outbox-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import { hashPart, ScriptBatcher, scriptBatcher } from "../src/providers/redis/script-batcher.js";
import {
  batchCommandName,
  batchScriptSource,
  runScriptBatch,
  ScriptSet,
} from "../src/providers/redis/script-runner.js";
import {
  claimScript,
  heartbeatScript,
  storeScripts,
  verifyScript,
} from "../src/providers/redis/store-scripts.js";
import type { Stores } from "../src/providers/stores.js";
import { startPrivateRedis } from "../tools/local-stack/start-private-redis.js";
import {
  createTestCluster,
  createTestRedis,
  deleteKeysWithPrefix,
  probeRedis,
  redisClusterUrl,
  uniqueKeyPrefix,
} from "./support/redis.js";

const redisProbe = await probeRedis();

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const phaseEditEveryMs = 10 * minute;
const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const on = (issue: number, installationId = 7): SubjectKey => ({ installationId, repoId: 1001, issue });
const agent = (sessionId: string): Actor => ({
  kind: "agent",
  login: "octo-agent",
  runtime: "claude-code",
  sessionId,
});

function claimInput(
  subject: SubjectKey,
  token: string,
  now: number,
  extra: Partial<ClaimInput> = {},
): ClaimInput {
  return {
    key: subject,
    repo: "acme/widgets",
    actor: agent(`s-${subject.installationId}-${subject.issue}`),
    taskClass: "author",
    durations,
    tokenDigest: digest(token),
    takeover: false,
    now,
    minGeneration: 0,
    appAssigned: true,
    caps: { perSession: 5, perLogin: 1000 },
    ...extra,
  };
}

async function claim(stores: Stores, subject: SubjectKey, token: string, now = T0): Promise<void> {
  const outcome = await stores.claims.claim(claimInput(subject, token, now));
  expect(outcome.kind).toBe("created");
}

const heartbeatOf = (
  subject: SubjectKey,
  token: string,
  extra: Partial<HeartbeatInput> = {},
): HeartbeatInput => ({
  key: subject,
  generation: 1,
  tokenDigest: digest(token),
  now: T0 + minute,
  phaseEditEveryMs,
  ...extra,
});

/** Each heartbeat on its own, one after the other: what a lone heartbeat answers. */
async function oneByOne(stores: Stores, inputs: HeartbeatInput[]): Promise<HeartbeatOutcome[]> {
  const outcomes: HeartbeatOutcome[] = [];
  for (const input of inputs) outcomes.push(await stores.claims.heartbeat(input));
  return outcomes;
}

/** All at once: the first goes alone, the others wait for it and go together. */
function together(
  stores: Stores,
  inputs: HeartbeatInput[],
): Promise<PromiseSettledResult<HeartbeatOutcome>[]> {
  return Promise.allSettled(inputs.map((input) => stores.claims.heartbeat(input)));
}

const fulfilled = (results: PromiseSettledResult<HeartbeatOutcome>[]) =>
  results.map((result) => {
    if (result.status === "rejected") throw result.reason;
    return result.value;
  });

const statsDelta = (batcher: ScriptBatcher, before: ReturnType<ScriptBatcher["stats"]>) => {
  const after = batcher.stats();
  return { calls: after.calls - before.calls, scriptCalls: after.scriptCalls - before.scriptCalls };
};

describe("the batch variant of a script", () => {
  it("keeps constants and includes at the top level, sets KEY and ARG per segment, and runs the body as a function", () => {
    const source = batchScriptSource(heartbeatScript, { HISTORY_LIMIT: 50 });
    const lines = source.split("\n");
    expect(lines.slice(0, 2)).toStrictEqual(["local HISTORY_LIMIT = 50", "local KEY, ARG"]);
    // Includes that read KEY see the segment's: it is declared before them.
    expect(source.indexOf("local function load(")).toBeLessThan(source.indexOf("local function batch_one()"));
    expect(source).not.toContain("@include");
    expect(source).toContain(
      "  KEY = {record = KEYS[batch_i * 7 + 1], digests = KEYS[batch_i * 7 + 2], deadlines = KEYS[batch_i * 7 + 3], holders = KEYS[batch_i * 7 + 4], repository = KEYS[batch_i * 7 + 5], spend = KEYS[batch_i * 7 + 6], gaps = KEYS[batch_i * 7 + 7]}",
    );
    expect(source).toContain(
      "  ARG = {generation = ARGV[1 + batch_i * 19 + 1], tokenDigest = ARGV[1 + batch_i * 19 + 2],",
    );
    expect(lines.at(-1)).toBe("return batch_replies");
  });

  it("is refused for a script with rest arguments (no fixed width per call)", async () => {
    expect(claimScript.rest).toBe(true);
    expect(() => batchScriptSource(claimScript, {})).toThrow(/rest arguments/);
    expect(() => new ScriptSet([claimScript], {}, { batched: [claimScript] })).toThrow(/rest arguments/);
    expect(() => new ScriptSet([verifyScript], {}, { batched: [heartbeatScript] })).toThrow(/not in the set/);
    const batcher = new ScriptBatcher({} as Redis);
    await expect(
      batcher.run(claimScript, { keys: {} as never, args: {} as never, rest: [] }),
    ).rejects.toThrow(/rest arguments/);
  });

  it("groups by the part of the first key Redis Cluster hashes", () => {
    expect(hashPart("claimhold:{i:7}:s:1001:42:rec")).toBe("i:7");
    expect(hashPart("claimhold:{i:7}:s:{x}")).toBe("i:7");
    expect(hashPart("plain-key")).toBe("plain-key");
    expect(hashPart("empty{}tag{i:7}")).toBe("empty{}tag{i:7}");
    expect(hashPart("open{only")).toBe("open{only");
  });
});

describe.skipIf(!redisProbe.available)("concurrent heartbeats on Redis", () => {
  const runPrefix = uniqueKeyPrefix("batch");
  let next = 0;
  const prefix = () => `${runPrefix}${++next}:`;
  let redis: Redis;
  let batcher: ScriptBatcher;

  beforeAll(async () => {
    redis = await createTestRedis();
    batcher = scriptBatcher(redis);
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, runPrefix);
    await redis.quit();
  });

  it("compiles the batch variant of every script without rest arguments", async () => {
    const definitions = [
      ...storeScripts.definitions,
      ...fenceScripts.definitions,
      ...outboxScripts.definitions,
    ];
    const batchable = definitions.filter((definition) => !definition.rest);
    expect(batchable.length).toBeGreaterThan(20);
    for (const definition of batchable) {
      await expect(
        redis.script("LOAD", batchScriptSource(definition, { HISTORY_LIMIT: 50 })),
        definition.name,
      ).resolves.toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it("sends N concurrent heartbeats of different leases in fewer script calls, each answered as alone", async () => {
    const lone = createRedisStores({ redis, keyPrefix: prefix() });
    const batched = createRedisStores({ redis, keyPrefix: prefix() });
    const subjects = Array.from({ length: 20 }, (_, i) => on(100 + i));
    for (const stores of [lone, batched]) {
      for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
    }
    const inputs = subjects.map((subject, i) =>
      heartbeatOf(subject, `t${subject.issue}`, {
        ...(i % 3 === 0 ? { phase: "coding" } : {}),
        ...(i % 4 === 1 ? { usage: { costMicros: 1_000 * i, tokens: 10 * i } } : {}),
        ...(i % 5 === 2 ? { needsHuman: true, pullRequest: 7 } : {}),
      }),
    );

    const before = batcher.stats();
    const alone = await oneByOne(lone, inputs);
    expect(statsDelta(batcher, before)).toStrictEqual({ calls: 20, scriptCalls: 20 });

    const middle = batcher.stats();
    const answers = fulfilled(await together(batched, inputs));
    // The first alone (nothing was in flight), the other 19 in one batch.
    expect(statsDelta(batcher, middle)).toStrictEqual({ calls: 20, scriptCalls: 2 });
    expect(answers).toStrictEqual(alone);
    expect(answers.every((answer) => answer.kind === "ok")).toBe(true);
    for (const subject of subjects) {
      expect(await batched.claims.get(subject)).toStrictEqual(await lone.claims.get(subject));
    }
  });

  /** One lease per answer a heartbeat can give, and a heartbeat for each; run on a fresh store. */
  async function mixedScene(stores: Stores): Promise<HeartbeatInput[]> {
    const [valid, wrongToken, superseded, gone, decreased] = [on(1), on(2), on(3), on(4), on(5)];
    for (const subject of [valid, wrongToken, superseded, gone, decreased]) {
      await claim(stores, subject, `t${subject.issue}`);
    }
    // superseded: released, then claimed again (generation 2); gone: released.
    for (const subject of [superseded, gone]) {
      const released = await stores.claims.release({
        key: subject,
        generation: 1,
        tokenDigest: digest(`t${subject.issue}`),
        now: T0,
        outcome: "handoff",
      });
      expect(released.kind).toBe("released");
    }
    const again = await stores.claims.claim(
      claimInput(superseded, "t3-again", T0, { actor: agent("s-successor") }),
    );
    expect(again).toMatchObject({ kind: "created", record: { generation: 2 } });
    await stores.claims.heartbeat(heartbeatOf(decreased, "t5", { usage: { costMicros: 5_000, tokens: 50 } }));
    return [
      heartbeatOf(valid, "t1", { phase: "testing" }),
      heartbeatOf(wrongToken, "not-the-token"),
      heartbeatOf(superseded, "t3"),
      heartbeatOf(gone, "t4"),
      heartbeatOf(on(6), "never-claimed"),
      heartbeatOf(decreased, "t5", { usage: { costMicros: 4_000, tokens: 60 } }),
      heartbeatOf(valid, "t1", { generation: 9 }),
    ];
  }

  it("answers each lease of a mixed batch on its own: one's refusal never fails another", async () => {
    const lone = createRedisStores({ redis, keyPrefix: prefix() });
    const batched = createRedisStores({ redis, keyPrefix: prefix() });
    const alone = await oneByOne(lone, await mixedScene(lone));
    const inputs = await mixedScene(batched);
    const before = batcher.stats();
    const answers = fulfilled(await together(batched, inputs));
    expect(statsDelta(batcher, before)).toStrictEqual({ calls: inputs.length, scriptCalls: 2 });
    expect(answers.map((answer) => answer.kind)).toStrictEqual([
      "ok",
      "invalid_token",
      "superseded",
      "gone",
      "missing",
      "usage_decreased",
      "missing",
    ]);
    expect(answers).toStrictEqual(alone);
  });

  it("fails only the lease whose script raised an error (a record with a corrupted field)", async () => {
    const stores = createRedisStores({ redis, keyPrefix: prefix() });
    const keys = new StoreKeys(`${runPrefix}${next}:`);
    const subjects = [on(1), on(2), on(3), on(4)];
    for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
    // Hand-edited with redis-cli: a duration written as text, so the script's tonumber() answers nil.
    await redis.hset(keys.subject(on(3), "rec"), "reclaimAfterMs", "60m");
    const inputs = subjects.map((subject) => heartbeatOf(subject, `t${subject.issue}`));

    // Alone (the plain script) it fails that heartbeat, as an error of the call, not of the store.
    const aloneError = await stores.claims.heartbeat(inputs[2]!).catch((error: unknown) => error);
    expect(aloneError).toBeInstanceOf(Error);
    expect(aloneError).not.toBeInstanceOf(StoreUnavailableError);

    // In a batch (on(1) goes alone first, the other three together), only on(3) fails.
    const before = batcher.stats();
    const results = await together(
      stores,
      inputs.map((input) => ({ ...input, now: input.now + minute })),
    );
    expect(statsDelta(batcher, before)).toStrictEqual({ calls: 4, scriptCalls: 2 });
    expect(results.map((result) => result.status)).toStrictEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    const batchError = (results[2] as PromiseRejectedResult).reason;
    expect(batchError).not.toBeInstanceOf(StoreUnavailableError);
    expect((batchError as Error).message).toMatch(/heartbeat script failed: .*compare/);
    for (const index of [0, 1, 3]) {
      expect((results[index] as PromiseFulfilledResult<HeartbeatOutcome>).value).toMatchObject({
        kind: "ok",
        live: { lastHeartbeatAt: T0 + 2 * minute },
      });
    }
  });

  it("splits a queue longer than the cap (64) into several script calls sent together", async () => {
    const stores = createRedisStores({ redis, keyPrefix: prefix() });
    const subjects = Array.from({ length: 131 }, (_, i) => on(1 + i));
    for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
    const before = batcher.stats();
    const answers = fulfilled(
      await together(
        stores,
        subjects.map((subject) => heartbeatOf(subject, `t${subject.issue}`)),
      ),
    );
    expect(answers.every((answer) => answer.kind === "ok")).toBe(true);
    // One alone, then 130 waiting: 64 + 64 + 2.
    expect(statsDelta(batcher, before)).toStrictEqual({ calls: 131, scriptCalls: 4 });
    expect(batcher.stats().largest).toBe(64);
  });

  it("caps a batch at maxBatch, for any script registered with a batch variant (verify here)", async () => {
    const client = await createTestRedis();
    try {
      const scripts = new ScriptSet([verifyScript], {}, { batched: [verifyScript] });
      scripts.register(client);
      const keyPrefix = prefix();
      const stores = createRedisStores({ redis: client, keyPrefix });
      const keys = new StoreKeys(keyPrefix);
      const subjects = Array.from({ length: 8 }, (_, i) => on(1 + i));
      for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
      const own = new ScriptBatcher(client, { maxBatch: 3 });
      const calls = subjects.map((subject, i) => ({
        keys: keys.subjectKeys(subject, { record: "rec", digests: "tok" }),
        args: { generation: 1, tokenDigest: digest(i === 4 ? "wrong" : `t${subject.issue}`), now: T0 },
      }));
      const answers = await Promise.all(calls.map((call) => own.run(verifyScript, call)));
      expect(answers.map((answer) => answer.kind)).toStrictEqual([
        "ok",
        "ok",
        "ok",
        "ok",
        "invalid_token",
        "ok",
        "ok",
        "ok",
      ]);
      // One alone, then 7 waiting: 3 + 3 + 1.
      expect(own.stats()).toStrictEqual({ calls: 8, scriptCalls: 4, batches: 2, largest: 3 });
      // The batch variant directly: one outcome per call.
      const outcomes = await runScriptBatch(client, verifyScript, calls.slice(3, 6));
      expect(outcomes.map((outcome) => outcome.ok && outcome.reply.kind)).toStrictEqual([
        "ok",
        "invalid_token",
        "ok",
      ]);
    } finally {
      await client.quit();
    }
  });

  it("batches per installation (hash tag): calls of two installations never share a script call", async () => {
    const stores = createRedisStores({ redis, keyPrefix: prefix() });
    const subjects = [on(1, 7), on(2, 8), on(3, 7), on(4, 8), on(5, 7), on(6, 8)];
    for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
    const before = batcher.stats();
    const answers = fulfilled(
      await together(
        stores,
        subjects.map((subject) => heartbeatOf(subject, `t${subject.issue}`)),
      ),
    );
    expect(answers.every((answer) => answer.kind === "ok")).toBe(true);
    // Per installation: one alone, then two together.
    expect(statsDelta(batcher, before)).toStrictEqual({ calls: 6, scriptCalls: 4 });
  });
});

describe.skipIf(!redisProbe.available)("concurrent heartbeats on a private redis-server", () => {
  it("cost fewer EVALSHA calls than heartbeats (INFO commandstats)", async () => {
    const server = await startPrivateRedis();
    const client = createRedisClient(server.url) as Redis;
    client.on("error", () => {});
    await waitUntilReady(client);
    try {
      const stores = createRedisStores({ redis: client, keyPrefix: "batch:" });
      const subjects = Array.from({ length: 30 }, (_, i) => on(1 + i));
      for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
      await server.command("CONFIG", "RESETSTAT");
      const answers = fulfilled(
        await together(
          stores,
          subjects.map((subject) => heartbeatOf(subject, `t${subject.issue}`)),
        ),
      );
      expect(answers.every((answer) => answer.kind === "ok")).toBe(true);
      const stats = String(await server.command("INFO", "commandstats"));
      const calls = (command: string) =>
        Number(stats.match(new RegExp(`cmdstat_${command}:calls=(\\d+)`))?.[1] ?? 0);
      // ioredis sends a script's first call on a connection as EVAL, then EVALSHA.
      expect(calls("evalsha") + calls("eval")).toBe(2);
    } finally {
      client.disconnect();
      await server.stop();
    }
  });

  it("fails exactly the calls of a batch whose connection breaks (StoreUnavailableError), and the next heartbeats work", async () => {
    const server = await startPrivateRedis();
    // The App's client: one retry per request, no offline queue, 2 s command timeout.
    const client = createRedisClient(server.url) as Redis;
    client.on("error", () => {});
    await waitUntilReady(client);
    try {
      const stores = createRedisStores({ redis: client, keyPrefix: "batch:" });
      const subjects = Array.from({ length: 5 }, (_, i) => on(1 + i));
      for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
      // The moment the batch goes, the server stops answering, then dies with the batch in flight.
      const name = batchCommandName(heartbeatScript);
      const commands = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const send = commands[name]!;
      let broken = 0;
      commands[name] = function (this: unknown, ...args: unknown[]) {
        if (broken++ > 0) return send.apply(this, args);
        server.pause();
        const reply = send.apply(this, args);
        void server.kill();
        return reply;
      };
      const results = await together(
        stores,
        subjects.map((subject) => heartbeatOf(subject, `t${subject.issue}`)),
      );
      // The first went alone before the batch and was answered; the four of the batch fail.
      expect(results[0]).toMatchObject({ status: "fulfilled", value: { kind: "ok" } });
      for (const result of results.slice(1)) {
        expect(result.status).toBe("rejected");
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
      }

      await server.restart();
      await waitUntilReady(client);
      // The restarted server is empty: claim again, then heartbeats work alone and together.
      for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
      expect(await stores.claims.heartbeat(heartbeatOf(on(1), "t1"))).toMatchObject({ kind: "ok" });
      const before = scriptBatcher(client).stats();
      const again = fulfilled(
        await together(
          stores,
          subjects.map((subject) => heartbeatOf(subject, `t${subject.issue}`, { now: T0 + 2 * minute })),
        ),
      );
      expect(again.every((answer) => answer.kind === "ok")).toBe(true);
      expect(scriptBatcher(client).stats().scriptCalls - before.scriptCalls).toBe(2);
      expect(broken).toBe(2);
    } finally {
      client.disconnect();
      await server.stop();
    }
  });
});

async function waitUntilReady(client: Redis | Cluster): Promise<void> {
  for (let i = 0; i < 200 && client.status !== "ready"; i++) await new Promise((r) => setTimeout(r, 25));
  expect(client.status).toBe("ready");
}

// Redis Cluster (scripts/redis-cluster.sh; REDIS_CLUSTER_URL): a batch's keys are all in one slot.
describe.skipIf(!redisClusterUrl)("concurrent heartbeats on Redis Cluster", () => {
  it("batches per installation, so no batch spans two slots", async () => {
    const cluster = await createTestCluster();
    const keyPrefix = uniqueKeyPrefix("batch-cluster");
    try {
      const stores = createRedisStores({ redis: cluster, keyPrefix });
      // Installations 1…6: their hash tags fall in different slots (and on different masters).
      const subjects = Array.from({ length: 36 }, (_, i) => on(1 + i, 1 + (i % 6)));
      for (const subject of subjects) await claim(stores, subject, `t${subject.issue}`);
      const batcher = scriptBatcher(cluster);
      const before = batcher.stats();
      const answers = fulfilled(
        await together(
          stores,
          subjects.map((subject) => heartbeatOf(subject, `t${subject.issue}`)),
        ),
      );
      expect(answers.every((answer) => answer.kind === "ok")).toBe(true);
      // Per installation: one alone, then five together.
      expect(statsDelta(batcher, before)).toStrictEqual({ calls: 36, scriptCalls: 12 });
    } finally {
      await deleteKeysWithPrefix(cluster, keyPrefix);
      await cluster.quit();
    }
  });
});
