// A lease's live event stream ends with the lease: its holder's release sends `released`, a reap `revoked` — never an open stream left to its client.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClaimHoldClient, LeaseCredentials, LeaseEvent } from "../../src/agent/client/index.js";
import { probeRedis } from "../support/redis.js";
import { type E2eWorld, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

/** Reads the lease's stream in the background: its events as they come, and when (whether) the server ended it. */
async function listen(client: ClaimHoldClient, lease: LeaseCredentials) {
  const abort = new AbortController();
  const events: LeaseEvent[] = [];
  const stream = await client.leaseEvents(lease, { signal: abort.signal });
  let endedByServer = false;
  const ended = (async () => {
    try {
      for await (const event of stream) events.push(event);
      endedByServer = !abort.signal.aborted;
    } catch {
      // aborted by the test
    }
  })();
  const until = async (name: string) => {
    const deadline = Date.now() + 5_000;
    while (!events.some((event) => event.event === name)) {
      if (Date.now() > deadline) throw new Error(`no ${name} event (got ${events.map((e) => e.event)})`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  /** Resolves true when the server ended the stream within `ms`, false when the test had to cut it. */
  const endsWithin = async (ms: number) => {
    const timer = setTimeout(() => abort.abort(), ms);
    await ended;
    clearTimeout(timer);
    return endedByServer;
  };
  return { events, until, endsWithin, close: () => abort.abort() };
}

describe.skipIf(!redisProbe.available)("a lease's stream ends when the lease does", () => {
  beforeEach(async () => {
    world = await startWorld({ issues: [1, 2, 3].map((number) => ({ number, title: `Task ${number}` })) });
  });
  afterEach(() => world.close());

  it("its holder's release sends `released` with the outcome, and the server ends the stream", async () => {
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "rel" } });
    const stream = await listen(agent, lease);
    await stream.until("state");

    await agent.release(lease, { outcome: "completed", note: "done" });
    await stream.until("released");
    expect(stream.events.at(-1)).toEqual({
      event: "released",
      data: { leaseId: lease.id, outcome: "completed", at: expect.any(String) },
    });
    expect(await stream.endsWithin(3_000)).toBe(true);
    // The lease is gone: a reconnect is refused as a heartbeat would be.
    await expect(agent.leaseEvents(lease)).rejects.toMatchObject({ status: 410 });
  });

  it("a reap after the lease expired sends `revoked` (reaped), and the server ends the stream", async () => {
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 2, actor: { runtime: "codex", sessionId: "exp" } });
    const stream = await listen(agent, lease);
    await stream.until("state");

    // Silent past its ttl: stale, the stream stays (a stale holder may still beat) …
    world.app.clock.now += 31_000;
    await world.app.services.janitor.sweep();
    await world.sim.flush();
    expect(stream.events.map((event) => event.event)).toEqual(["state"]);
    // … past reclaimAfter: reaped, which ends the lease and its stream.
    world.app.clock.now += 30_000;
    const report = await world.app.services.janitor.sweep();
    expect(report.actions).toEqual([{ subject: `${repo}#2`, action: "reap", reason: expect.any(String) }]);
    await stream.until("revoked");
    expect(stream.events.at(-1)).toEqual({
      event: "revoked",
      data: { leaseId: lease.id, reason: "reaped", at: expect.any(String) },
    });
    expect(await stream.endsWithin(3_000)).toBe(true);
  });

  it("the issue deleted sends `revoked` (revoked), and the server ends the stream", async () => {
    const agent = world.agent();
    const { lease } = await agent.claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "del" } });
    await world.sim.flush();
    const stream = await listen(agent, lease);
    await stream.until("state");

    world.sim.deleteIssue({ repo, issue: 1, login: "alice" });
    await world.sim.flush();
    await stream.until("revoked");
    expect(stream.events.at(-1)).toEqual({
      event: "revoked",
      data: { leaseId: lease.id, reason: "revoked", at: expect.any(String) },
    });
    expect(await stream.endsWithin(3_000)).toBe(true);
    await expect(agent.heartbeat(lease)).rejects.toMatchObject({ status: 410 });
  });

  it("a re-claim by the holder (token rotated) neither sends `released` nor ends the stream", async () => {
    const agent = world.agent();
    const actor = { runtime: "codex", sessionId: "again" };
    const first = await agent.claim({ repo, issue: 3, actor });
    const stream = await listen(agent, first.lease);
    await stream.until("state");
    const again = await agent.claim({ repo, issue: 3, actor, leaseToken: first.lease.token });
    expect(again.lease.id).toBe(first.lease.id);
    expect(await stream.endsWithin(500)).toBe(false);
    expect(stream.events.map((event) => event.event)).toEqual(["state"]);
  });
});
