// The outbox's sender against a real sink on loopback and a real Redis: exactly once across replicas, restarts, signatures, backoff, quiet logs.
import { createHmac } from "node:crypto";
import { Writable } from "node:stream";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { NotifySink } from "../../src/config/notify-sinks.js";
import { createLogger } from "../../src/logger.js";
import {
  type DeliveryResult,
  NotificationSender,
  type SenderPolicy,
} from "../../src/notify/notification-sender.js";
import type { NotificationInput } from "../../src/notify/notifier.js";
import { OutboxNotifier } from "../../src/notify/outbox-notifier.js";
import { MemoryOutboxStore } from "../../src/providers/memory/memory-outbox-store.js";
import type { OutboxStore } from "../../src/providers/outbox-store.js";
import { RedisOutboxStore } from "../../src/providers/redis/redis-outbox-store.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "../support/redis.js";
import { type SinkServer, startSinkServer } from "./support/sink-server.js";

const redisProbe = await probeRedis();
const T0 = 1_800_000_000_000;
const secretPath = "services/T0000/B0000/XXXXsecretXXXX";
const signingSecret = "sink-signing-secret-0123456789";

function capturedLogger() {
  const lines: string[] = [];
  const log = createLogger({
    level: "debug",
    destination: new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    }),
  });
  return { log, lines };
}

function takeover(issue: number, key = `takeover:42:7:${issue}:2`): NotificationInput {
  return {
    event: "takeover",
    installationId: 42,
    subject: `octo/widgets#${issue}`,
    data: {
      previousGeneration: 1,
      generation: 2,
      previous: { kind: "agent", login: "fleet-bot", runtime: "claude-code", sessionId: "A" },
      holder: { kind: "agent", login: "fleet-bot", runtime: "codex", sessionId: "B" },
    },
    key,
  };
}

/** A replica's notification side: its notifier and sender on an outbox, a clock the test moves, counted results. */
function replica(
  outbox: OutboxStore,
  sinks: NotifySink[],
  clock: { now: number },
  policy: Partial<SenderPolicy> = {},
) {
  const { log, lines } = capturedLogger();
  const results: { result: DeliveryResult; event: string }[] = [];
  const depths: number[] = [];
  const now = () => clock.now;
  return {
    lines,
    results,
    depths,
    notifier: new OutboxNotifier({ outbox, sinks, now, log }),
    sender: new NotificationSender({
      outbox,
      sinks,
      now,
      log,
      policy: { batch: 5, ...policy },
      onDelivery: (result, event) => results.push({ result, event }),
      onDepth: (depth) => depths.push(depth),
    }),
  };
}

let sink: SinkServer;
beforeEach(async () => {
  sink = await startSinkServer();
});
afterEach(() => sink.close());

describe.skipIf(!redisProbe.available)("the notification sender on a real Redis", () => {
  const runPrefix = uniqueKeyPrefix("notify");
  const clients: Redis[] = [];
  let next = 0;
  let prefix = "";
  /** An outbox on a connection of its own, as each replica (or a restarted process) has. */
  const outboxOfReplica = async () => {
    const client = await createTestRedis();
    clients.push(client);
    return new RedisOutboxStore({ redis: client, keyPrefix: prefix });
  };

  beforeAll(() => undefined);
  beforeEach(() => {
    prefix = `${runPrefix}${++next}:`;
  });
  afterAll(async () => {
    const cleaner = await createTestRedis();
    await deleteKeysWithPrefix(cleaner, runPrefix);
    await cleaner.quit();
    for (const client of clients) await client.quit().catch(() => undefined);
  });

  it("delivers each event exactly once per sink while two replicas send from one outbox at the same time", async () => {
    const sinks: NotifySink[] = [
      { url: `${sink.base}/a`, format: "json", events: ["takeover"] },
      { url: `${sink.base}/b`, format: "slack", events: ["takeover"] },
    ];
    const clock = { now: T0 };
    const one = replica(await outboxOfReplica(), sinks, clock);
    const two = replica(await outboxOfReplica(), sinks, clock);
    // Both replicas see the same 12 occurrences (each emits every one, as two webhook deliveries would).
    for (let issue = 1; issue <= 12; issue++) {
      one.notifier.emit(takeover(issue));
      two.notifier.emit(takeover(issue));
    }
    await Promise.all([one.notifier.flush(), two.notifier.flush()]);
    for (let round = 0; round < 10; round++) {
      await Promise.all([one.sender.tick(), two.sender.tick(), one.sender.tick(), two.sender.tick()]);
    }
    const delivered = sink.requests.map((r) => `${r.path} ${r.headers["idempotency-key"]}`);
    expect(delivered).toHaveLength(24);
    expect(new Set(delivered).size).toBe(24);
    expect(sink.requests.filter((r) => r.path === "/a")).toHaveLength(12);
    expect(sink.requests.filter((r) => r.path === "/b")).toHaveLength(12);
    // Both replicas took part, and the outbox is empty.
    expect(one.results.length).toBeGreaterThan(0);
    expect(two.results.length).toBeGreaterThan(0);
    expect([...one.results, ...two.results].every((r) => r.result === "sent")).toBe(true);
    expect(await (await outboxOfReplica()).depth()).toBe(0);
  });

  it("still delivers after a restart in the middle of the retries, with the same Idempotency-Key", async () => {
    const sinks: NotifySink[] = [{ url: `${sink.base}/${secretPath}`, format: "json", events: ["takeover"] }];
    const clock = { now: T0 };
    const before = replica(await outboxOfReplica(), sinks, clock, { baseDelayMs: 10_000 });
    before.notifier.emit(takeover(1));
    await before.notifier.flush();
    sink.answer = 503;
    await before.sender.tick();
    expect(before.results).toEqual([{ result: "failed", event: "takeover" }]);
    await before.sender.stop();

    // A new process: new connection, new sender, the same Redis. The retry is due 10 s later.
    sink.answer = 200;
    const after = replica(await outboxOfReplica(), sinks, clock, { baseDelayMs: 10_000 });
    clock.now += 9_999;
    expect(await after.sender.tick()).toBe(0);
    clock.now += 1;
    expect(await after.sender.tick()).toBe(1);
    expect(after.results).toEqual([{ result: "sent", event: "takeover" }]);
    expect(sink.requests).toHaveLength(2);
    expect(sink.requests[1]!.headers["idempotency-key"]).toBe(sink.requests[0]!.headers["idempotency-key"]);
    expect(sink.requests[1]!.body).toBe(sink.requests[0]!.body);
  });

  it("delivers what a replica claimed and died with, once its lease runs out", async () => {
    const sinks: NotifySink[] = [{ url: `${sink.base}/x`, format: "json", events: ["takeover"] }];
    const clock = { now: T0 };
    const outbox = await outboxOfReplica();
    const survivor = replica(await outboxOfReplica(), sinks, clock, { leaseMs: 60_000 });
    survivor.notifier.emit(takeover(1));
    await survivor.notifier.flush();
    // The dying replica's claim: taken, never settled.
    expect(
      (await outbox.claimDue({ now: clock.now, leaseMs: 60_000, limit: 5, claimant: "dead" })).deliveries,
    ).toHaveLength(1);
    expect(await survivor.sender.tick()).toBe(0);
    clock.now += 60_000;
    expect(await survivor.sender.tick()).toBe(1);
    expect(sink.requests).toHaveLength(1);
    expect(survivor.results).toEqual([{ result: "sent", event: "takeover" }]);
  });
});

describe("the notification sender", () => {
  it("signs the raw body with the sink's secret, in both formats, with the event and idempotency headers", async () => {
    const sinks: NotifySink[] = [
      { url: `${sink.base}/json`, format: "json", events: ["takeover"], secret: signingSecret },
      { url: `${sink.base}/slack`, format: "slack", events: ["takeover"], secret: signingSecret },
      { url: `${sink.base}/unsigned`, format: "json", events: ["takeover"] },
    ];
    const clock = { now: T0 };
    const { notifier, sender } = replica(new MemoryOutboxStore(), sinks, clock);
    notifier.emit(takeover(1));
    await notifier.flush();
    await sender.tick();
    const byPath = new Map(sink.requests.map((r) => [r.path, r]));
    for (const path of ["/json", "/slack"]) {
      const request = byPath.get(path)!;
      const expected = `sha256=${createHmac("sha256", signingSecret).update(request.body).digest("hex")}`;
      expect(request.headers["x-claim-hold-signature-256"]).toBe(expected);
      expect(request.headers["x-claim-hold-event"]).toBe("takeover");
      expect(request.headers["content-type"]).toBe("application/json");
    }
    expect(byPath.get("/unsigned")!.headers["x-claim-hold-signature-256"]).toBeUndefined();
    const json = JSON.parse(byPath.get("/json")!.body);
    expect(json).toEqual({
      event: "takeover",
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      at: new Date(T0).toISOString(),
      subject: "octo/widgets#1",
      installationId: 42,
      data: {
        previousGeneration: 1,
        generation: 2,
        previous: { kind: "agent", login: "fleet-bot", runtime: "claude-code", sessionId: "A" },
        holder: { kind: "agent", login: "fleet-bot", runtime: "codex", sessionId: "B" },
      },
    });
    for (const request of sink.requests) expect(request.headers["idempotency-key"]).toBe(json.id);
    expect(JSON.parse(byPath.get("/slack")!.body)).toEqual({
      text: "[claim-hold] takeover on octo/widgets#1: codex session B (fleet-bot) took over from claude-code session A (fleet-bot) (generation 1 → 2)",
    });
  });

  it("retries a failing sink with exponential backoff up to the cap, then drops the delivery and counts it", async () => {
    const sinks: NotifySink[] = [{ url: `${sink.base}/down`, format: "json", events: ["takeover"] }];
    const clock = { now: T0 };
    const outbox = new MemoryOutboxStore();
    const { notifier, sender, results, depths } = replica(outbox, sinks, clock, {
      maxAttempts: 5,
      baseDelayMs: 1_000,
      maxDelayMs: 3_000,
    });
    sink.answer = 503;
    notifier.emit(takeover(1));
    await notifier.flush();
    const triedAt: number[] = [];
    // Step the clock a second at a time: a try happens exactly when its backoff has passed.
    for (let step = 0; step <= 12; step++) {
      if ((await sender.tick()) > 0) triedAt.push(clock.now - T0);
      clock.now += 1_000;
    }
    // Waits of 1 s, 2 s, then 3 s (the cap, not 4 s), 3 s.
    expect(triedAt).toEqual([0, 1_000, 3_000, 6_000, 9_000]);
    expect(sink.requests).toHaveLength(5);
    expect(results.map((r) => r.result)).toEqual(["failed", "failed", "failed", "failed", "dropped"]);
    // Depth after each round: queued while it is retried, gone once dropped.
    expect(depths.at(-1)).toBe(0);
    expect(depths.slice(0, 2)).toEqual([1, 1]);
    expect(await outbox.depth()).toBe(0);
    expect(await outbox.recent(5)).toMatchObject([
      { result: "dropped", attempts: 5, reason: "gave up after 5 tries (status 503)" },
    ]);
  });

  it("drops a delivery whose sink left the configuration instead of sending it anywhere", async () => {
    const clock = { now: T0 };
    const outbox = new MemoryOutboxStore();
    const old = replica(outbox, [{ url: `${sink.base}/old`, format: "json", events: ["takeover"] }], clock);
    old.notifier.emit(takeover(1));
    await old.notifier.flush();
    const restarted = replica(
      outbox,
      [{ url: `${sink.base}/new`, format: "json", events: ["takeover"] }],
      clock,
    );
    await restarted.sender.tick();
    expect(sink.requests).toEqual([]);
    expect(restarted.results).toEqual([{ result: "dropped", event: "takeover" }]);
    expect(await outbox.recent(1)).toMatchObject([
      { result: "dropped", reason: "sink no longer configured" },
    ]);
  });

  it("queues only for sinks that take the event and repositories that ask for it", async () => {
    const clock = { now: T0 };
    const outbox = new MemoryOutboxStore();
    const { notifier } = replica(
      outbox,
      [
        { url: `${sink.base}/takeovers`, format: "json", events: ["takeover"] },
        { url: `${sink.base}/stale`, format: "json", events: ["stale"] },
      ],
      clock,
    );
    notifier.emit(takeover(1));
    notifier.emit({ ...takeover(2), repoEvents: ["reaped"] });
    notifier.emit({ ...takeover(3), event: "reaped" });
    await notifier.flush();
    const { deliveries } = await outbox.claimDue({ now: T0, leaseMs: 60_000, limit: 10, claimant: "t" });
    expect(deliveries.map((d) => d.notification.subject)).toEqual(["octo/widgets#1"]);
  });

  it("emits without waiting for the outbox, let alone a sink", async () => {
    let enqueued = 0;
    // An outbox that never answers (a store hung mid-failover).
    class NeverAnswers extends MemoryOutboxStore {
      override enqueue(): Promise<boolean> {
        enqueued++;
        return new Promise<boolean>(() => undefined);
      }
    }
    const never = new NeverAnswers();
    const { log } = capturedLogger();
    const notifier = new OutboxNotifier({
      outbox: never,
      sinks: [{ url: `${sink.base}/x`, format: "json", events: ["takeover"] }],
      now: () => T0,
      log,
    });
    // emit() returns undefined synchronously: there is nothing a caller could await.
    expect(notifier.emit(takeover(1))).toBeUndefined();
    expect(enqueued).toBe(1);
  });

  it("never writes a sink's URL to the logs: sent, refused, unreachable, timed out", async () => {
    const clock = { now: T0 };
    const closed = await startSinkServer();
    const unreachableBase = closed.base;
    await closed.close();
    const sinks: NotifySink[] = [
      { url: `${sink.base}/${secretPath}/ok`, format: "json", events: ["takeover"] },
      { url: `${sink.base}/${secretPath}/refused`, format: "json", events: ["takeover"] },
      { url: `${sink.base}/${secretPath}/hangs`, format: "slack", events: ["takeover"] },
      { url: `${unreachableBase}/${secretPath}/gone`, format: "json", events: ["takeover"] },
    ];
    sink.answer = (request) =>
      request.path.endsWith("/refused") ? 500 : request.path.endsWith("/hangs") ? "hang" : 200;
    const { notifier, sender, lines, results } = replica(new MemoryOutboxStore(), sinks, clock, {
      timeoutMs: 200,
      maxAttempts: 1,
    });
    notifier.emit(takeover(1));
    await notifier.flush();
    await sender.tick();
    expect(results.map((r) => r.result).sort()).toEqual(["dropped", "dropped", "dropped", "sent"]);
    const logs = lines.join("");
    expect(logs).toContain("notification delivered");
    expect(logs).toContain("status 500");
    expect(logs).toContain("timeout");
    expect(logs).toContain("ECONNREFUSED");
    expect(logs).not.toContain(secretPath);
    expect(logs).not.toContain("XXXXsecretXXXX");
    expect(logs).not.toContain(sink.base);
    expect(logs).not.toContain(unreachableBase);
  });

  it("sends on its own once started, and on stop cuts a hung try short and makes it due again at once", async () => {
    const clock = { now: T0 };
    const outbox = new MemoryOutboxStore();
    const sinks: NotifySink[] = [{ url: `${sink.base}/loop`, format: "json", events: ["takeover"] }];
    const { notifier, sender, results } = replica(outbox, sinks, clock, { pollMs: 5 });
    sender.start();
    notifier.emit(takeover(1));
    await sink.received(1);
    await vi.waitFor(() => expect(results).toEqual([{ result: "sent", event: "takeover" }]));

    sink.answer = "hang";
    notifier.emit(takeover(2));
    await sink.received(2);
    await sender.stop();
    expect(results.at(-1)).toEqual({ result: "failed", event: "takeover" });
    // Stopped: nothing more is claimed by this sender, and the cut try is due for any other one now.
    const { deliveries } = await outbox.claimDue({
      now: clock.now,
      leaseMs: 60_000,
      limit: 5,
      claimant: "next",
    });
    expect(deliveries.map((d) => [d.notification.subject, d.attempt])).toEqual([["octo/widgets#2", 2]]);
    expect(sink.requests).toHaveLength(2);
  });
});
