// The janitor's lock across replicas on one Redis: a long run keeps it, and the operator's sweep takes it too (docs/reference/http-api.md#operator-and-operations, README.md#keeping-github-and-the-store-in-step).
import { Writable } from "node:stream";
import type { Redis } from "ioredis";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { JobBusyError, JobRegistry, jobLockNames } from "../src/janitor/job-registry.js";
import { createLogger } from "../src/logger.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import { type AppHarness, startApp, testAdminToken } from "./support/app-harness.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A registry as one replica builds it, on its own Redis connection, logging into `logs`. */
function replica(redis: Redis, keyPrefix: string, logs: string[] = []): JobRegistry {
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  return new JobRegistry({
    store: createRedisStores({ redis, keyPrefix }).locks,
    log: createLogger({ level: "debug", destination }),
    now: Date.now,
  });
}

/** The lock keys left under `prefix` (none once every run ended and every replica stopped). */
async function locksLeft(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}lock:*`, "COUNT", 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found;
}

/** A job whose runs are counted, and whose overlapping runs (on any replica) are caught. */
function exclusionProbe() {
  const probe = { running: 0, mostAtOnce: 0, runs: [] as string[] };
  const job = (replicaName: string, runMs: number) => async () => {
    probe.running++;
    probe.mostAtOnce = Math.max(probe.mostAtOnce, probe.running);
    probe.runs.push(replicaName);
    try {
      await pause(runMs);
    } finally {
      probe.running--;
    }
  };
  return { probe, job };
}

/** A run that lasts until the test lets it end. */
function heldRun() {
  let started!: () => void;
  let finish!: () => void;
  const hasStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    hasStarted,
    finish,
    run: async () => {
      started();
      await finished;
    },
  };
}

describe.skipIf(!redisProbe.available)("the job registry's lock on a shared Redis", () => {
  let redisA: Redis;
  let redisB: Redis;
  let prefix: string;
  let registries: JobRegistry[];

  beforeAll(async () => {
    [redisA, redisB] = [await createTestRedis(), await createTestRedis()];
  });
  beforeEach(() => {
    prefix = uniqueKeyPrefix("job-lock");
    registries = [];
  });
  afterEach(async () => {
    for (const registry of registries) await registry.stop();
    await deleteKeysWithPrefix(redisA, prefix);
  });
  afterAll(async () => {
    await Promise.all([redisA?.quit(), redisB?.quit()]);
  });

  it("keeps the lock through a run three times longer than its TTL: the other replica never runs the job meanwhile", async () => {
    const { probe, job } = exclusionProbe();
    const a = replica(redisA, prefix);
    const b = replica(redisB, prefix);
    registries.push(a, b);
    // Leader lock: three intervals (300 ms); run lock: 200 ms. Each run lasts 600 ms.
    a.register({ name: "sweep", intervalMs: 100, runLockMs: 200, run: job("a", 600) });
    b.register({ name: "sweep", intervalMs: 100, runLockMs: 200, run: job("b", 600) });
    const first = a.tick("sweep");
    b.start();
    expect(await first).toBe(true);
    expect(probe.mostAtOnce).toBe(1);
    // B's timer kept ticking all along; A, still the leader, runs again, and B still never gets the job.
    expect(await a.tick("sweep")).toBe(true);
    await b.stop();
    expect(probe.mostAtOnce).toBe(1);
    expect(probe.runs).toEqual(["a", "a"]);
    expect(a.status("sweep")).toMatchObject({ leader: true, consecutiveFailures: 0 });
    expect(b.status("sweep")).toMatchObject({ leader: false });
    // Each run's lock went with the run; A keeps only its leadership, until it stops.
    expect(await locksLeft(redisA, prefix)).toEqual([`${prefix}lock:job:sweep`]);
    await a.stop();
    expect(await locksLeft(redisA, prefix)).toEqual([]);
  });

  it("refuses runNow, without waiting, while the other replica's scheduled run holds the job, and runs it after", async () => {
    const a = replica(redisA, prefix);
    const b = replica(redisB, prefix);
    registries.push(a, b);
    const scheduled = heldRun();
    a.register({ name: "sweep", intervalMs: 60_000, run: scheduled.run });
    b.register({ name: "sweep", intervalMs: 60_000, run: async () => undefined });
    const ticked = a.tick("sweep");
    await scheduled.hasStarted;
    let operatorRan = false;
    const markRan = async () => {
      operatorRan = true;
      return "report";
    };
    await expect(b.runNow("sweep", markRan)).rejects.toBeInstanceOf(JobBusyError);
    expect(operatorRan).toBe(false);
    scheduled.finish();
    expect(await ticked).toBe(true);
    // A is still the leader, but no run goes on: B's operator run goes ahead, then lets the lock go.
    await expect(b.runNow("sweep", markRan)).resolves.toBe("report");
    expect(await locksLeft(redisA, prefix)).toEqual([`${prefix}lock:${jobLockNames("sweep").leader}`]);
  });

  it("skips the schedule's tick while another replica's operator run holds the job, on this replica too", async () => {
    const a = replica(redisA, prefix);
    const b = replica(redisB, prefix);
    registries.push(a, b);
    const { probe, job } = exclusionProbe();
    a.register({ name: "sweep", intervalMs: 60_000, run: job("a", 0) });
    b.register({ name: "sweep", intervalMs: 60_000, run: job("b", 0) });
    const operator = heldRun();
    const onB = b.runNow("sweep", operator.run);
    await operator.hasStarted;
    expect(await a.tick("sweep")).toBe(false);
    expect(a.status("sweep")).toMatchObject({ leader: true, consecutiveFailures: 0 });
    // B's own tick and a second runNow carry B's owner token: refused all the same.
    expect(await b.tick("sweep")).toBe(false);
    await expect(b.runNow("sweep", async () => undefined)).rejects.toBeInstanceOf(JobBusyError);
    operator.finish();
    await onB;
    expect(probe.runs).toEqual([]);
    expect(await a.tick("sweep")).toBe(true);
    expect(probe.runs).toEqual(["a"]);
  });

  it("signals a run that lost its lock to stop early, and logs it", async () => {
    const logs: string[] = [];
    const a = replica(redisA, prefix, logs);
    registries.push(a);
    const stores = createRedisStores({ redis: redisB, keyPrefix: prefix });
    const { run } = jobLockNames("sweep");
    let started!: () => void;
    const hasStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let reason: unknown;
    a.register({
      name: "sweep",
      intervalMs: 60_000,
      runLockMs: 200,
      run: (signal) =>
        new Promise<void>((resolve, reject) => {
          const giveUp = setTimeout(() => reject(new Error("the run was never signalled")), 5_000);
          signal.addEventListener("abort", () => {
            clearTimeout(giveUp);
            reason = signal.reason;
            resolve();
          });
          started();
        }),
    });
    const ticked = a.tick("sweep");
    await hasStarted;
    // As if A's lock had lapsed (a stalled process) and another replica had taken it meanwhile.
    await stores.locks.releaseLock(run, a.owner);
    expect(await stores.locks.acquireLock(run, "another-replica", 10_000)).toBe(true);
    expect(await ticked).toBe(true);
    expect(reason).toBeInstanceOf(JobBusyError);
    expect(logs.some((line) => line.includes("lost its lock"))).toBe(true);
    // The release at the end of A's run left the other replica's lock alone.
    expect(await stores.locks.acquireLock(run, "a-third-replica", 1_000)).toBe(false);
  });
});

describe.skipIf(!redisProbe.available)(
  "the operator's sweep (POST /api/v1/admin/janitor/run) and the schedule",
  () => {
    const prefix = uniqueKeyPrefix("operator-sweep");
    let redisApp: Redis;
    let redisOther: Redis;
    let app: AppHarness;
    let other: JobRegistry;

    const runJanitor = async () => {
      const response = await fetch(`${app.url}/api/v1/admin/janitor/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
        // One installation the store holds nothing due for: the sweep costs no GitHub request.
        body: JSON.stringify({ dryRun: true, installationId: 42 }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    beforeAll(async () => {
      [redisApp, redisOther] = [await createTestRedis(), await createTestRedis()];
      app = await startApp({
        stores: createRedisStores({ redis: redisApp, keyPrefix: prefix }),
        adminToken: testAdminToken,
      });
    });
    afterAll(async () => {
      await app?.close();
      await other?.stop();
      await deleteKeysWithPrefix(redisApp, prefix);
      await Promise.all([redisApp?.quit(), redisOther?.quit()]);
      nock.cleanAll();
    });

    it("answers 409 janitor_busy while another replica's scheduled sweep runs, and sweeps once it ended", async () => {
      other = replica(redisOther, prefix);
      const sweep = heldRun();
      other.register({ name: "janitor", intervalMs: 60_000, run: sweep.run });
      const ticked = other.tick("janitor");
      await sweep.hasStarted;

      const busy = await runJanitor();
      expect(busy.status).toBe(409);
      expect(busy.body).toEqual({ error: "janitor_busy", message: expect.any(String) });

      sweep.finish();
      expect(await ticked).toBe(true);
      // The other replica is still the janitor's leader, but no sweep runs: the operator's goes ahead.
      expect(other.status("janitor")).toMatchObject({ leader: true });
      const ran = await runJanitor();
      expect(ran.status).toBe(200);
      expect(ran.body).toMatchObject({ dryRun: true, installations: 1, actions: [], githubRequests: 0 });
    });
  },
);
