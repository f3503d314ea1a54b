// Live lease events on one Redis server shared by two deployments with the same key prefix in different databases: each hears only its own.
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeaseEvent } from "../src/contract/lease-events.js";
import { leaseEventChannel, RedisLeaseEventBus } from "../src/providers/redis/redis-lease-event-bus.js";
import { createTestRedis, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const probe = await probeRedis();

describe("leaseEventChannel", () => {
  it.each([
    ["claimhold:", 0, "claimhold:lease-events"],
    ["claimhold:", 3, "claimhold:lease-events:db3"],
    ["tenant-a:", 15, "tenant-a:lease-events:db15"],
  ])("prefix %s in database %i: %s", (prefix, database, channel) => {
    expect(leaseEventChannel(prefix, database)).toBe(channel);
  });
});

describe.skipIf(!probe.available)("RedisLeaseEventBus on two databases of one server", () => {
  // Pub/sub touches no keys: any two of the shared server's databases 1..15 do, whatever else uses them.
  const first = 1 + (process.pid % 14);
  const second = first + 1;
  const prefix = uniqueKeyPrefix("events-db");
  const clients: Redis[] = [];
  const buses: RedisLeaseEventBus[] = [];

  const busOn = async (db: number) => {
    const redis = await createTestRedis({ db });
    clients.push(redis);
    const bus = new RedisLeaseEventBus({ redis, keyPrefix: prefix });
    buses.push(bus);
    return bus;
  };

  beforeAll(() => {
    expect(second).toBeLessThanOrEqual(15);
  });

  afterAll(async () => {
    for (const bus of buses) await bus.close();
    for (const redis of clients) await redis.quit();
  });

  it("a deployment hears its own replicas' events and never the other database's", async () => {
    const replicaA1 = await busOn(first);
    const replicaA2 = await busOn(first);
    const replicaB = await busOn(second);
    const leaseId = "42.1296269.7.1"; // the same lease id in both deployments
    const heardA: LeaseEvent[] = [];
    const heardB: LeaseEvent[] = [];
    replicaA1.subscribe(leaseId, (event) => heardA.push(event));
    replicaB.subscribe(leaseId, (event) => heardB.push(event));
    await Promise.all([replicaA1.listening(), replicaB.listening()]);

    const forA: LeaseEvent = { event: "stalled", data: { stalledSince: "2026-12-02T10:00:00.000Z" } };
    const forB: LeaseEvent = { event: "revoked", data: { reason: "reaped", at: "2026-12-02T10:00:00.000Z" } };
    await replicaA2.publish(leaseId, forA);
    await replicaB.publish(leaseId, forB);
    const deadline = Date.now() + 5_000;
    while (heardA.length === 0 || heardB.length === 0) {
      if (Date.now() > deadline) throw new Error(`events not heard: A ${heardA.length}, B ${heardB.length}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    // Anything crossing over would have arrived by now: both went through the same server.
    await new Promise((r) => setTimeout(r, 100));
    expect(heardA).toEqual([forA]);
    expect(heardB).toEqual([forB]);
  });
});
