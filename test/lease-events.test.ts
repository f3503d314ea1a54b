// `GET /api/v1/leases/{id}/events`: the lease token's checks, the current state first, a takeover made on another replica heard live, people's answers (`/budget`, a reply, the label removed) heard live, and a slow reader cut.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../src/agent/client/index.js";
import { MemoryLeaseEventBus } from "../src/providers/memory/memory-lease-event-bus.js";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import { RedisLeaseEventBus } from "../src/providers/redis/redis-lease-event-bus.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { GitHubSimulator } from "../tools/github-sim/index.js";
import { connectSharedRedis } from "../tools/local-stack/stack-stores.js";
import {
  type LocalStack,
  type StackWiring,
  startLocalStack,
} from "../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "./support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const fleet = { login: "fleet-bot", id: 501, token: "ghp_fleetbot0000000000000000000000event" };

/** An open event stream: its frames as they arrive, and whether the server ended it. */
interface EventStream {
  status: number;
  frames: { event: string; data: Record<string, unknown> }[];
  next(): Promise<{ event: string; data: Record<string, unknown> }>;
  ended: Promise<void>;
  close(): void;
}

async function openEvents(baseUrl: string, leaseId: string, token: string): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/api/v1/leases/${leaseId}/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  const frames: EventStream["frames"] = [];
  const waiting: ((frame: EventStream["frames"][number]) => void)[] = [];
  let read = 0;
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event || data === undefined) continue;
          const frame = { event, data: JSON.parse(data) as Record<string, unknown> };
          frames.push(frame);
          waiting.shift()?.(frame);
        }
      }
    } catch {
      // aborted by the test
    }
  })();
  return {
    status: response.status,
    frames,
    next() {
      const ready = frames[read];
      read++;
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => waiting.push(resolve));
    },
    ended,
    close: () => abort.abort(),
  };
}

describe.skipIf(!redisProbe.available)("live lease events across two replicas on one Redis", () => {
  let stack: LocalStack<AppHarness>;
  let sim: GitHubSimulator;
  let a: AppHarness;
  let b: AppHarness;
  const advance = (ms: number) => {
    a.clock.now += ms;
    b.clock.now = a.clock.now;
  };
  const client = (app: AppHarness) =>
    createClaimHoldClient({
      baseUrl: app.url,
      githubToken: fleet.token,
      retries: 0,
      maxTakeoverWaits: 0,
      sleep: async (ms) => advance(ms),
    });

  beforeAll(async () => {
    const now = Date.now();
    const replica = async ({ redis, githubBaseUrl }: StackWiring): Promise<AppHarness> => {
      if (!redis) throw new Error("the stack has no Redis");
      const connection = await connectSharedRedis(redis.url);
      const leaseEvents = new RedisLeaseEventBus({ redis: connection, keyPrefix: redis.keyPrefix });
      const app = await startApp({
        stores: createRedisStores({ redis: connection, keyPrefix: redis.keyPrefix }),
        fences: new RedisFenceStore({ redis: connection, keyPrefix: redis.keyPrefix }),
        leaseEvents,
        githubBaseUrl,
        appId: 1,
        now,
      });
      return {
        ...app,
        async close() {
          await app.close();
          await leaseEvents.close();
          await connection.quit();
        },
      };
    };
    stack = await startLocalStack({
      redis: { kind: "shared", keyPrefix: uniqueKeyPrefix("events") },
      credentials: testCredentials(),
      startApp: replica,
      apps: 2,
    });
    sim = stack.sim;
    [a, b] = stack.apps as [AppHarness, AppHarness];
    sim.seed({
      users: [{ login: fleet.login, id: fleet.id, tokens: [fleet.token] }],
      repos: [
        {
          fullName: repo,
          id: 1296269,
          files: {
            ".github/claim-hold.yml":
              "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\n",
          },
          collaborators: { [fleet.login]: "write" },
          issues: [1, 2, 3].map((n) => ({ number: n, title: `Task ${n}`, author: fleet.login })),
        },
      ],
      installations: [{ id: 42, account: "octo", repos: [repo] }],
    });
    await sim.flush();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("checks the lease token like the other lease calls", async () => {
    const { lease } = await client(a).claim({
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "auth" },
    });
    const missing = await fetch(`${a.url}/api/v1/leases/${lease.id}/events`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: "unauthorized" });
    const wrong = await fetch(`${a.url}/api/v1/leases/${lease.id}/events`, {
      headers: { authorization: `Bearer clh_${"x".repeat(40)}` },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: "unauthorized" });
    // A lease id nobody holds: answered as `GET` on the lease answers it.
    const headers = { authorization: `Bearer ${lease.token}` };
    const view = await fetch(`${a.url}/api/v1/leases/42.1296269.1.99`, { headers });
    const noLease = await fetch(`${a.url}/api/v1/leases/42.1296269.1.99/events`, { headers });
    expect(noLease.status).toBe(view.status);
    expect(await noLease.json()).toEqual(await view.json());
  });

  it("sends the current state first; a second stream for the lease, however spelled, replaces the first", async () => {
    const { lease } = await client(a).claim({
      repo,
      issue: 2,
      actor: { runtime: "codex", sessionId: "state" },
    });
    const first = await openEvents(a.url, lease.id, lease.token);
    expect(first.status).toBe(200);
    expect(await first.next()).toEqual({
      event: "state",
      data: {
        leaseId: lease.id,
        holder: true,
        generation: lease.generation,
        state: "active",
        expiresAt: expect.any(String),
      },
    });
    // Another spelling of the same id (a leading zero parses to the same lease) is the same lease's
    // stream: it replaces the first and is keyed as events are published.
    const second = await openEvents(a.url, `0${lease.id}`, lease.token);
    expect(await second.next()).toMatchObject({ event: "state", data: { leaseId: lease.id } });
    await first.ended;
    second.close();
    await second.ended;
  });

  it("a takeover made through B reaches the old holder's stream on A: takeover_pending, then superseded, then the end", async () => {
    const first = await client(a).claim({ repo, issue: 3, actor: { runtime: "codex", sessionId: "old" } });
    const stream = await openEvents(a.url, first.lease.id, first.lease.token);
    expect((await stream.next()).event).toBe("state");

    advance(31_000); // silent past the ttl: a takeover may start
    const claimant = { runtime: "claude-code", sessionId: "new" };
    await expect(client(b).claim({ repo, issue: 3, actor: claimant, takeover: true })).rejects.toMatchObject({
      code: "takeover_pending",
    });
    const pending = await stream.next();
    expect(pending).toMatchObject({
      event: "takeover_pending",
      data: {
        leaseId: first.lease.id,
        claimant: { login: fleet.login, sessionId: "new" },
        beatBy: expect.any(String),
      },
    });

    advance(10_000); // the grace beat passed unbeaten
    const second = await client(b).claim({ repo, issue: 3, actor: claimant, takeover: true });
    expect(second.lease.generation).toBe(first.lease.generation + 1);
    expect(await stream.next()).toEqual({
      event: "superseded",
      data: {
        leaseId: first.lease.id,
        by: expect.objectContaining({ login: fleet.login, sessionId: "new" }),
        generation: second.lease.generation,
        at: expect.any(String),
      },
    });
    await stream.ended;
  });
});

describe("live lease events from people's acts, and a slow reader cut (one replica, the embedded store)", () => {
  const maintainer = { login: "alice", id: 601, token: "ghp_alice000000000000000000000000events" };
  let stack: LocalStack<AppHarness>;
  let sim: GitHubSimulator;
  let app: AppHarness;
  const bus = new MemoryLeaseEventBus();
  const agent = () =>
    createClaimHoldClient({
      baseUrl: app.url,
      githubToken: fleet.token,
      retries: 0,
      sleep: async (ms) => {
        app.clock.now += ms;
      },
    });

  beforeAll(async () => {
    stack = await startLocalStack({
      redis: { kind: "memory" },
      credentials: testCredentials(),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId: 1,
          now: Date.now(),
          leaseEvents: bus,
        }),
    });
    sim = stack.sim;
    app = stack.app;
    sim.seed({
      users: [fleet, maintainer].map(({ login, id, token }) => ({ login, id, tokens: [token] })),
      repos: [
        {
          fullName: repo,
          id: 1296269,
          files: {
            ".github/claim-hold.yml": [
              "taskClasses:",
              "  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s, stallAfter: 1m }",
              "budgets:",
              "  author: { maxUsd: 2 }",
              "",
            ].join("\n"),
          },
          collaborators: { [fleet.login]: "write", [maintainer.login]: "maintain" },
          issues: [1, 2, 3, 4, 5, 6].map((n) => ({
            number: n,
            title: `Task ${n}`,
            author: maintainer.login,
          })),
        },
      ],
      installations: [{ id: 42, account: "octo", repos: [repo] }],
    });
    await sim.flush();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const claim = (issue: number, sessionId: string) =>
    agent().claim({ repo, issue, actor: { runtime: "codex", sessionId } });

  it("budget_raised: a person's /budget +5 reaches the paused lease's stream", async () => {
    const { lease } = await claim(1, "budget");
    const holder = agent();
    expect(await holder.heartbeat(lease, { usage: { costUsd: 2.5 } })).toMatchObject({ paused: "budget" });
    const stream = await openEvents(app.url, lease.id, lease.token);
    expect((await stream.next()).event).toBe("state");
    sim.comment({ repo, issue: 1, login: maintainer.login, body: "/budget +5" });
    await sim.flush();
    expect(await stream.next()).toEqual({
      event: "budget_raised",
      data: {
        leaseId: lease.id,
        by: maintainer.login,
        fromUsd: 2,
        toUsd: 7,
        resumed: true,
        at: new Date(app.clock.now).toISOString(),
      },
    });
    expect(await holder.heartbeat(lease)).not.toHaveProperty("paused");
    stream.close();
    await stream.ended;
  });

  it("needs_human_answered: a person's reply, then a person removing the label, reach the asking holder's stream", async () => {
    const { lease } = await claim(2, "asks");
    const holder = agent();
    await holder.heartbeat(lease, { needsHuman: true, blocker: "Which API version?" });
    const stream = await openEvents(app.url, lease.id, lease.token);
    expect((await stream.next()).event).toBe("state");
    // The holder's own comment answers nothing.
    sim.comment({ repo, issue: 2, login: fleet.login, body: "Still waiting." });
    sim.comment({ repo, issue: 2, login: maintainer.login, body: "Use v2." });
    await sim.flush();
    const reply = sim.issue(repo, 2).comments.find((c) => c.body === "Use v2.");
    expect(await stream.next()).toEqual({
      event: "needs_human_answered",
      data: {
        leaseId: lease.id,
        by: maintainer.login,
        how: "replied",
        at: new Date(app.clock.now).toISOString(),
        commentUrl: expect.stringContaining(`/issues/2#issuecomment-${reply?.id}`),
      },
    });
    sim.unassign({ repo, issue: 2, login: maintainer.login, labels: ["agent:needs-human"] });
    await sim.flush();
    expect(await stream.next()).toEqual({
      event: "needs_human_answered",
      data: {
        leaseId: lease.id,
        by: maintainer.login,
        how: "cleared",
        at: new Date(app.clock.now).toISOString(),
      },
    });
    expect(stream.frames.map((f) => f.event)).toEqual([
      "state",
      "needs_human_answered",
      "needs_human_answered",
    ]);
    stream.close();
    await stream.ended;
  });

  it("needs_human_answered also answers the App's ask on a stalled claim's behalf, which a reply withdraws", async () => {
    const { lease } = await claim(3, "stalls");
    const holder = agent();
    const stream = await openEvents(app.url, lease.id, lease.token);
    expect((await stream.next()).event).toBe("state");
    for (let beat = 0; beat < 6; beat++) {
      app.clock.now += 10_000;
      await holder.heartbeat(lease);
    }
    expect(await stream.next()).toMatchObject({ event: "stalled", data: { leaseId: lease.id } });
    expect(sim.issue(repo, 3).labels).toContain("agent:needs-human");
    app.clock.now += 5_000;
    await holder.heartbeat(lease);
    app.clock.now += 60_000 - 5_000;
    sim.comment({ repo, issue: 3, login: maintainer.login, body: "Carry on." });
    await sim.flush();
    expect(await stream.next()).toMatchObject({
      event: "needs_human_answered",
      data: { leaseId: lease.id, by: maintainer.login, how: "replied" },
    });
    expect(sim.issue(repo, 3).labels).not.toContain("agent:needs-human");
    stream.close();
    await stream.ended;
  });

  it("revoked: a person taking the claim off reaches the stream of the lease it held (not the bumped generation's), and ends it", async () => {
    const { lease } = await claim(5, "revoked");
    const stream = await openEvents(app.url, lease.id, lease.token);
    expect((await stream.next()).event).toBe("state");
    sim.unassign({ repo, issue: 5, login: maintainer.login, labels: ["agent:claimed"] });
    await sim.flush();
    expect(await stream.next()).toEqual({
      event: "revoked",
      data: { leaseId: lease.id, reason: "revoked", at: new Date(app.clock.now).toISOString() },
    });
    await stream.ended;
  });

  it("cuts a client that lets 16 events pile up unread; a client that reads keeps its stream", async () => {
    const { lease } = await claim(6, "slow");
    const padding = "x".repeat(256 * 1024);
    const event = (n: number, pad: string) =>
      ({ event: "stalled", data: { stalledSince: `${n}`, padding: pad } }) as never;
    /** Publishes one by one (each heard before the next), up to `count` or until `stop` says so. */
    const publishSlowly = async (count: number, stop: () => boolean, pad = padding) => {
      let sent = 0;
      while (sent < count && !stop()) {
        await bus.publish(lease.id, event(sent, pad));
        sent++;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return sent;
    };

    // A reader that reads everything keeps up: 40 events, no cut.
    const reader = await openEvents(app.url, lease.id, lease.token);
    expect((await reader.next()).event).toBe("state");
    await publishSlowly(40, () => false, "x".repeat(1024));
    for (let n = 0; n < 40; n++) expect((await reader.next()).data.stalledSince).toBe(`${n}`);
    reader.close();
    await reader.ended;

    // A reader that stops reading: the socket's buffers fill, events pile up, and the server ends the stream.
    const socket = connect(Number(new URL(app.url).port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    let closedByServer = false;
    const closed = new Promise<void>((resolve) => {
      socket.once("end", () => {
        closedByServer = true;
        resolve();
      });
      socket.once("close", () => resolve());
    });
    let received = 0;
    let tail = "";
    let framesReceived = 0;
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
      // Counted as they come, without keeping the (large) frames.
      const text = tail + chunk.toString("latin1");
      framesReceived += text.split("event: stalled\n").length - 1;
      tail = text.slice(-32);
    });
    socket.write(
      `GET /api/v1/leases/${lease.id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${lease.token}\r\nConnection: close\r\n\r\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toBeGreaterThan(0); // the headers and the state event
    socket.pause();
    const published = 300;
    await publishSlowly(published, () => false);
    socket.resume();
    // Without the cut the stream would go on (and this would time out).
    await closed;
    expect(closedByServer).toBe(true);
    // What the kernel's buffers held, plus the 16 left unwritten at most: far fewer than published.
    console.log(`slow reader: ${framesReceived} of ${published} events reached it before the cut`);
    expect(framesReceived).toBeGreaterThan(0);
    expect(framesReceived).toBeLessThan(published);
    socket.destroy();
  });
});
