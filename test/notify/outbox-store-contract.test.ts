// The notification outbox contract: the same cases against the memory outbox and the Redis one on a real server.
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import type { Notification } from "../../src/notify/notifier.js";
import { MemoryOutboxStore } from "../../src/providers/memory/memory-outbox-store.js";
import {
  droppedByOperator,
  eventMemoryMs,
  type OutboxDelivery,
  type OutboxStore,
} from "../../src/providers/outbox-store.js";
import { RedisOutboxStore } from "../../src/providers/redis/redis-outbox-store.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "../support/redis.js";

const redisProbe = await probeRedis();

interface OutboxCase {
  name: string;
  setup(): Promise<void>;
  create(): OutboxStore;
  redis?(): { client: Redis; prefix: string };
  teardown(): Promise<void>;
}

const memoryCase: OutboxCase = {
  name: "MemoryOutboxStore",
  setup: async () => {},
  create: () => new MemoryOutboxStore(),
  teardown: async () => {},
};

function redisCase(): OutboxCase {
  const runPrefix = uniqueKeyPrefix("outbox");
  let client: Redis | undefined;
  let next = 0;
  let current = "";
  return {
    name: "RedisOutboxStore",
    async setup() {
      client = await createTestRedis();
    },
    create() {
      current = `${runPrefix}${++next}:`;
      return new RedisOutboxStore({ redis: client!, keyPrefix: current });
    },
    redis: () => ({ client: client!, prefix: current }),
    async teardown() {
      if (client) {
        await deleteKeysWithPrefix(client, runPrefix);
        await client.quit();
      }
    },
  };
}

const cases: OutboxCase[] = [memoryCase];
if (redisProbe.available) cases.push(redisCase());
else {
  describe.skip(`RedisOutboxStore (${redisProbe.reason})`, () => {
    it("passes the outbox contract", () => {});
  });
}

const T0 = 1_800_000_000_000;
const lease = { leaseMs: 60_000, limit: 10 };

function notification(id: string, event: Notification["event"] = "takeover"): Notification {
  return {
    event,
    id,
    at: new Date(T0).toISOString(),
    subject: "octo/widgets#1",
    installationId: 42,
    data: { generation: 2 },
  };
}

function deliveriesOf(id: string, sinks = ["sinkA", "sinkB"]): OutboxDelivery[] {
  return sinks.map((sinkId) => ({ id: `${id}.${sinkId}`, sinkId, notification: notification(id) }));
}

describe.each(cases)("$name outbox contract", (outboxCase) => {
  let outbox: OutboxStore;

  beforeAll(() => outboxCase.setup());
  afterAll(() => outboxCase.teardown());
  beforeEach(() => {
    outbox = outboxCase.create();
  });

  it("queues one delivery per sink, claimed once with its first try counted", async () => {
    expect(await outbox.enqueue("evt_1", deliveriesOf("evt_1"), T0)).toBe(true);
    const first = await outbox.claimDue({ now: T0, claimant: "a", ...lease });
    expect(first.depth).toBe(2);
    expect(first.discarded).toBe(0);
    expect(first.deliveries).toEqual([
      { id: "evt_1.sinkA", sinkId: "sinkA", notification: notification("evt_1"), attempt: 1 },
      { id: "evt_1.sinkB", sinkId: "sinkB", notification: notification("evt_1"), attempt: 1 },
    ]);
    // Hidden from every other claimant while the lease runs.
    expect((await outbox.claimDue({ now: T0 + 59_999, claimant: "b", ...lease })).deliveries).toEqual([]);
  });

  it("queues an event id once, however often it is emitted, until it is forgotten", async () => {
    expect(await outbox.enqueue("evt_1", deliveriesOf("evt_1"), T0)).toBe(true);
    expect(await outbox.enqueue("evt_1", deliveriesOf("evt_1"), T0 + 1)).toBe(false);
    expect(await outbox.depth()).toBe(2);
    if (outboxCase.name === "MemoryOutboxStore") {
      // The memory outbox's clock is the caller's; Redis forgets by its own (PX), not tested by waiting.
      expect(await outbox.enqueue("evt_1", deliveriesOf("evt_1"), T0 + eventMemoryMs)).toBe(true);
    }
  });

  it("gives a delivery whose claimant went silent to the next claim once the lease ran out, its try counted", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0);
    await outbox.claimDue({ now: T0, claimant: "dead", ...lease });
    const again = await outbox.claimDue({ now: T0 + 60_000, claimant: "alive", ...lease });
    expect(again.deliveries.map((d) => [d.id, d.attempt])).toEqual([["evt_1.sinkA", 2]]);
    // The silent claimant's settle comes too late and changes nothing.
    const [delivery] = again.deliveries;
    expect(await outbox.settle(delivery!, "dead", { kind: "sent" }, T0 + 60_001)).toBe(false);
    expect(await outbox.depth()).toBe(1);
    expect(await outbox.settle(delivery!, "alive", { kind: "sent" }, T0 + 60_002)).toBe(true);
    expect(await outbox.depth()).toBe(0);
  });

  it("makes a retried delivery due at the time given, not before", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0);
    const [delivery] = (await outbox.claimDue({ now: T0, claimant: "a", ...lease })).deliveries;
    expect(await outbox.settle(delivery!, "a", { kind: "retry", at: T0 + 5_000 }, T0 + 10)).toBe(true);
    expect((await outbox.claimDue({ now: T0 + 4_999, claimant: "b", ...lease })).deliveries).toEqual([]);
    const retried = await outbox.claimDue({ now: T0 + 5_000, claimant: "b", ...lease });
    expect(retried.deliveries.map((d) => d.attempt)).toEqual([2]);
    // A settled retry is no longer the first claimant's.
    expect(await outbox.settle(retried.deliveries[0]!, "a", { kind: "sent" }, T0 + 5_001)).toBe(false);
  });

  it("lists settled deliveries newest first: sent, and dropped with the reason", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0);
    await outbox.enqueue("evt_2", deliveriesOf("evt_2", ["sinkA"]), T0 + 1);
    const { deliveries } = await outbox.claimDue({ now: T0 + 1, claimant: "a", ...lease });
    await outbox.settle(deliveries[0]!, "a", { kind: "sent" }, T0 + 2);
    await outbox.settle(deliveries[1]!, "a", { kind: "dropped", reason: "gave up after 1 tries" }, T0 + 3);
    expect(await outbox.recent(10)).toEqual([
      {
        id: "evt_2.sinkA",
        event: "takeover",
        subject: "octo/widgets#1",
        installationId: 42,
        sinkId: "sinkA",
        result: "dropped",
        reason: "gave up after 1 tries",
        attempts: 1,
        at: T0 + 3,
      },
      {
        id: "evt_1.sinkA",
        event: "takeover",
        subject: "octo/widgets#1",
        installationId: 42,
        sinkId: "sinkA",
        result: "sent",
        attempts: 1,
        at: T0 + 2,
      },
    ]);
    expect(await outbox.recent(1)).toHaveLength(1);
    expect(await outbox.depth()).toBe(0);
    expect((await outbox.claimDue({ now: T0 + 1_000_000, claimant: "b", ...lease })).deliveries).toEqual([]);
  });

  it("lists the deliveries waiting for another try, soonest due first: not a fresh one, not one being sent", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA", "sinkB"]), T0);
    const [a, b] = (await outbox.claimDue({ now: T0, claimant: "a", ...lease })).deliveries;
    await outbox.settle(b!, "a", { kind: "retry", at: T0 + 5_000 }, T0 + 1);
    await outbox.settle(a!, "a", { kind: "retry", at: T0 + 10_000 }, T0 + 1);
    await outbox.enqueue("evt_2", deliveriesOf("evt_2", ["sinkA"]), T0 + 2);
    expect(await outbox.retrying(10)).toEqual([
      {
        id: "evt_1.sinkB",
        event: "takeover",
        subject: "octo/widgets#1",
        installationId: 42,
        sinkId: "sinkB",
        attempts: 1,
        dueAt: T0 + 5_000,
      },
      {
        id: "evt_1.sinkA",
        event: "takeover",
        subject: "octo/widgets#1",
        installationId: 42,
        sinkId: "sinkA",
        attempts: 1,
        dueAt: T0 + 10_000,
      },
    ]);
    expect((await outbox.retrying(1)).map((d) => d.id)).toEqual(["evt_1.sinkB"]);
    // Claimed again, it is being sent: not listed until it fails again.
    await outbox.claimDue({ now: T0 + 5_000, claimant: "b", ...lease });
    expect((await outbox.retrying(10)).map((d) => d.id)).toEqual(["evt_1.sinkA"]);
  });

  it("claims the oldest due first, at most `limit` at a time", async () => {
    await outbox.enqueue("evt_late", deliveriesOf("evt_late", ["s"]), T0 + 2);
    await outbox.enqueue("evt_early", deliveriesOf("evt_early", ["s"]), T0);
    const claimed = await outbox.claimDue({ now: T0 + 5, claimant: "a", leaseMs: 1_000, limit: 1 });
    expect(claimed.deliveries.map((d) => d.id)).toEqual(["evt_early.s"]);
    expect(claimed.depth).toBe(2);
  });

  it("retry now: a waiting delivery is due at once with its tries and event id kept; the next claim counts one more", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0);
    const [first] = (await outbox.claimDue({ now: T0, claimant: "a", ...lease })).deliveries;
    await outbox.settle(first!, "a", { kind: "retry", at: T0 + 600_000 }, T0 + 1);
    expect(await outbox.retryNow("evt_1.sinkA", T0 + 10)).toEqual({
      kind: "done",
      delivery: {
        id: "evt_1.sinkA",
        event: "takeover",
        subject: "octo/widgets#1",
        installationId: 42,
        sinkId: "sinkA",
        attempts: 1,
        dueAt: T0 + 600_000,
      },
    });
    expect((await outbox.retrying(10)).map((d) => [d.id, d.attempts, d.dueAt])).toEqual([
      ["evt_1.sinkA", 1, T0 + 10],
    ]);
    const again = await outbox.claimDue({ now: T0 + 10, claimant: "b", ...lease });
    expect(again.deliveries).toEqual([
      { id: "evt_1.sinkA", sinkId: "sinkA", notification: notification("evt_1"), attempt: 2 },
    ]);
    // Once: the claim hid it again, and its event is still remembered.
    expect((await outbox.claimDue({ now: T0 + 11, claimant: "c", ...lease })).deliveries).toEqual([]);
    expect(await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0 + 12)).toBe(false);
    expect(await outbox.depth()).toBe(1);
  });

  it("retry now leaves a delivery due sooner as it is (a fresh one, never tried)", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0);
    expect(await outbox.retryNow("evt_1.sinkA", T0 + 500)).toMatchObject({
      kind: "done",
      delivery: { attempts: 0, dueAt: T0 },
    });
    const claimed = await outbox.claimDue({ now: T0 + 500, claimant: "a", ...lease });
    expect(claimed.deliveries.map((d) => [d.id, d.attempt])).toEqual([["evt_1.sinkA", 1]]);
  });

  it("drop: the delivery leaves, listed as dropped by an operator; no claim takes it, its event is not queued again", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA", "sinkB"]), T0);
    const claimed = (await outbox.claimDue({ now: T0, claimant: "a", ...lease })).deliveries;
    for (const d of claimed) await outbox.settle(d, "a", { kind: "retry", at: T0 + 5_000 }, T0 + 1);
    expect(await outbox.drop("evt_1.sinkA", T0 + 2)).toMatchObject({
      kind: "done",
      delivery: { id: "evt_1.sinkA", sinkId: "sinkA", attempts: 1, dueAt: T0 + 5_000 },
    });
    expect(await outbox.recent(10)).toEqual([
      {
        id: "evt_1.sinkA",
        event: "takeover",
        subject: "octo/widgets#1",
        installationId: 42,
        sinkId: "sinkA",
        result: "dropped",
        reason: droppedByOperator,
        attempts: 1,
        at: T0 + 2,
      },
    ]);
    expect(await outbox.depth()).toBe(1);
    expect((await outbox.retrying(10)).map((d) => d.id)).toEqual(["evt_1.sinkB"]);
    // The other sink's delivery goes on; the dropped one is claimed by nobody, ever.
    const later = await outbox.claimDue({ now: T0 + 1_000_000, claimant: "b", ...lease });
    expect(later.deliveries.map((d) => d.id)).toEqual(["evt_1.sinkB"]);
    expect(await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0 + 3)).toBe(false);
    // Dropped twice (a resent form): missing the second time, the recent list unchanged.
    expect(await outbox.drop("evt_1.sinkA", T0 + 4)).toEqual({ kind: "missing" });
    expect(await outbox.retryNow("evt_1.sinkA", T0 + 4)).toEqual({ kind: "missing" });
    expect(await outbox.recent(10)).toHaveLength(1);
  });

  it("drop lists a Gitea record's installation id exactly (above 2^48: more digits than a float's shortest form)", async () => {
    const installationId = giteaInstallationRecordId(1);
    const delivery = { ...deliveriesOf("evt_g", ["sinkA"])[0]! };
    delivery.notification = { ...delivery.notification, installationId };
    await outbox.enqueue("evt_g", [delivery], T0);
    expect(await outbox.drop("evt_g.sinkA", T0 + 2)).toMatchObject({ kind: "done" });
    expect(await outbox.recent(10)).toMatchObject([{ id: "evt_g.sinkA", installationId, result: "dropped" }]);
    expect(installationId).toBe(281474976710657);
  });

  it("retry now and drop answer missing for an unknown or delivered delivery, and change nothing", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0);
    const [delivery] = (await outbox.claimDue({ now: T0, claimant: "a", ...lease })).deliveries;
    await outbox.settle(delivery!, "a", { kind: "sent" }, T0 + 1);
    for (const id of ["evt_1.sinkA", "evt_unknown.sinkA"]) {
      expect(await outbox.retryNow(id, T0 + 2)).toEqual({ kind: "missing" });
      expect(await outbox.drop(id, T0 + 2)).toEqual({ kind: "missing" });
    }
    expect((await outbox.recent(10)).map((d) => d.result)).toEqual(["sent"]);
    expect(await outbox.depth()).toBe(0);
  });

  it("leaves a delivery a sender holds to that sender until its lease runs out; then it is the operator's", async () => {
    await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["sinkA"]), T0);
    const [held] = (await outbox.claimDue({ now: T0, claimant: "a", ...lease })).deliveries;
    expect(await outbox.retryNow("evt_1.sinkA", T0 + 1)).toEqual({
      kind: "in-flight",
      leaseEndsAt: T0 + 60_000,
    });
    expect(await outbox.drop("evt_1.sinkA", T0 + 1)).toEqual({ kind: "in-flight", leaseEndsAt: T0 + 60_000 });
    // Neither sent twice (retry now did not make it claimable) nor lost (the sender still settles it).
    expect((await outbox.claimDue({ now: T0 + 2, claimant: "b", ...lease })).deliveries).toEqual([]);
    expect(await outbox.settle(held!, "a", { kind: "sent" }, T0 + 3)).toBe(true);
    expect((await outbox.recent(10)).map((d) => d.result)).toEqual(["sent"]);

    // A sender that went silent: past its lease, the operator may drop it, and its late settle changes nothing.
    await outbox.enqueue("evt_2", deliveriesOf("evt_2", ["sinkA"]), T0);
    const [silent] = (await outbox.claimDue({ now: T0, claimant: "dead", ...lease })).deliveries;
    expect(await outbox.drop("evt_2.sinkA", T0 + 60_000)).toMatchObject({ kind: "done" });
    expect(await outbox.settle(silent!, "dead", { kind: "sent" }, T0 + 60_001)).toBe(false);
    expect((await outbox.recent(10)).map((d) => [d.id, d.result])).toEqual([
      ["evt_2.sinkA", "dropped"],
      ["evt_1.sinkA", "sent"],
    ]);
  });

  it("a claim and a drop at once: exactly one wins — claimed and left to its sender, or dropped and never claimed", async () => {
    for (let round = 0; round < 20; round++) {
      const eventId = `evt_race${round}`;
      await outbox.enqueue(eventId, deliveriesOf(eventId, ["sinkA"]), T0);
      const [claimed, dropped] = await Promise.all([
        outbox.claimDue({ now: T0, claimant: "a", ...lease }),
        outbox.drop(`${eventId}.sinkA`, T0),
      ]);
      const wasClaimed = claimed.deliveries.some((d) => d.id === `${eventId}.sinkA`);
      expect(dropped.kind, `round ${round}`).toBe(wasClaimed ? "in-flight" : "done");
      if (wasClaimed) {
        expect(await outbox.settle(claimed.deliveries[0]!, "a", { kind: "sent" }, T0 + 1)).toBe(true);
      }
      expect(await outbox.depth()).toBe(0);
    }
  });

  if (outboxCase.redis) {
    it("keeps every key under the one {notify} hash tag of the prefix", async () => {
      await outbox.enqueue("evt_1", deliveriesOf("evt_1"), T0);
      const [delivery] = (await outbox.claimDue({ now: T0, claimant: "a", ...lease })).deliveries;
      await outbox.settle(delivery!, "a", { kind: "sent" }, T0);
      const { client, prefix } = outboxCase.redis!();
      const keys = (await client.keys(`${prefix}*`)).map((k) => k.slice(prefix.length)).sort();
      expect(keys).toEqual([
        "{notify}:attempts",
        "{notify}:claims",
        "{notify}:due",
        "{notify}:entries",
        "{notify}:recent",
        "{notify}:seen:evt_1",
      ]);
      expect(await client.pttl(`${prefix}{notify}:seen:evt_1`)).toBeGreaterThan(eventMemoryMs - 60_000);
    });

    it("queues an event in one Redis command", async () => {
      const { client } = outboxCase.redis!();
      await outbox.enqueue("evt_warm", deliveriesOf("evt_warm"), T0); // the script is known to the server now
      const sent: string[] = [];
      const original = client.sendCommand.bind(client);
      client.sendCommand = ((command: { name: string }) => {
        sent.push(command.name);
        return original(command as never);
      }) as typeof client.sendCommand;
      try {
        await outbox.enqueue("evt_1", deliveriesOf("evt_1"), T0);
      } finally {
        client.sendCommand = original;
      }
      expect(sent).toEqual(["evalsha"]);
    });

    it("retries now and drops in one Redis command each", async () => {
      const { client } = outboxCase.redis!();
      await outbox.enqueue("evt_1", deliveriesOf("evt_1"), T0);
      await outbox.retryNow("evt_warm.sinkA", T0); // the scripts are known to the server now
      await outbox.drop("evt_warm.sinkA", T0);
      const sent: string[] = [];
      const original = client.sendCommand.bind(client);
      client.sendCommand = ((command: { name: string }) => {
        sent.push(command.name);
        return original(command as never);
      }) as typeof client.sendCommand;
      try {
        expect((await outbox.retryNow("evt_1.sinkA", T0 + 1)).kind).toBe("done");
        expect((await outbox.drop("evt_1.sinkB", T0 + 1)).kind).toBe("done");
      } finally {
        client.sendCommand = original;
      }
      expect(sent).toEqual(["evalsha", "evalsha"]);
    });

    it("drops a delivery that does not read back instead of claiming it forever", async () => {
      const { client, prefix } = outboxCase.redis!();
      await client.hset(`${prefix}{notify}:entries`, "junk.s", "{not json");
      await client.zadd(`${prefix}{notify}:due`, T0, "junk.s");
      await outbox.enqueue("evt_1", deliveriesOf("evt_1", ["s"]), T0);
      const claimed = await outbox.claimDue({ now: T0, claimant: "a", ...lease });
      expect(claimed.discarded).toBe(1);
      expect(claimed.deliveries.map((d) => d.id)).toEqual(["evt_1.s"]);
      expect(await outbox.depth()).toBe(1);
      expect(await client.hexists(`${prefix}{notify}:entries`, "junk.s")).toBe(0);
    });
  }
});
