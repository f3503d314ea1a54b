// Review: a pick whose claim finds the issue held must not keep it reserved long after the holder lets go.
import { afterEach, describe, expect, it } from "vitest";
import type { CandidateFacts, QueueRepo } from "../../../src/providers/queue-store.js";
import { probeRedis } from "../../support/redis.js";
import { type E2eWorld, fleet, installationId, repo, startWorld } from "../support/e2e-world.js";

const redisProbe = await probeRedis();
const queueRepo: QueueRepo = { installationId, repoId: 1296269, repo };
const T0 = Date.parse("2026-11-01T00:00:00Z");
let world: E2eWorld;

afterEach(() => world?.close());

const facts = (issue: number): CandidateFacts => ({
  issue,
  title: `Task ${issue}`,
  createdAt: T0 + issue,
  labels: [],
  assignees: [],
  blockers: [],
  openSubIssues: 0,
  closingPullRequests: [],
});

async function call(path: string, body: unknown, token = fleet.token) {
  const response = await fetch(`${world.app.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & {
      lease: { id: string; token: string };
      picked: { issue: number };
    },
  };
}

const next = (sessionId: string) =>
  call("/api/v1/claims/next", { repo, actor: { runtime: "codex", sessionId } });

describe.skipIf(!redisProbe.available)("a pick that found its issue held", () => {
  it("leaves no 30 s reservation behind: once the holder releases, a pick a few seconds later gets the issue", async () => {
    world = await startWorld({ issues: [{ number: 1, title: "Task 1" }], privateRedis: true });
    const held = await call("/api/v1/claims", {
      repo,
      issue: 1,
      actor: { runtime: "codex", sessionId: "H" },
    });
    expect(held.status).toBe(201);
    // The store loses the claim; the index (rebuilt without it) offers #1 as free.
    expect(await world.redis.flushall()).toBe("OK");
    await world.stores.queue.replaceCandidates(queueRepo, [facts(1)], world.app.clock.now);
    // The pick's claim reads GitHub, restores the claim from its comment, and finds #1 held.
    const first = await next("A");
    expect(first).toMatchObject({ status: 409, body: { error: "queue_empty", skipped: { held: 1 } } });
    // The holder lets go of #1.
    const { id, token } = held.body.lease;
    expect((await call(`/api/v1/leases/${id}/release`, { outcome: "abandoned" }, token)).status).toBe(200);
    world.app.clock.now += 6_000;
    const second = await next("B");
    expect(second.status).toBe(201);
    expect(second.body.picked.issue).toBe(1);
  });

  it("two concurrent takeover picks of one reclaimable claim: one takes it over, the other takes nothing; a live claim is never offered", async () => {
    world = await startWorld({ issues: [{ number: 1, title: "Task 1" }] });
    await world.stores.queue.replaceCandidates(queueRepo, [facts(1)], world.app.clock.now);
    const first = await next("A");
    expect(first.status).toBe(201);
    world.app.clock.now += 31_000; // stale, not yet reclaimable
    const early = await call("/api/v1/claims/next", {
      repo,
      actor: { runtime: "codex", sessionId: "B" },
      includeTakeovers: true,
    });
    expect(early).toMatchObject({ status: 409, body: { error: "queue_empty", skipped: { held: 1 } } });
    world.app.clock.now += 30_000; // past reclaimAfter
    const racers = await Promise.all(
      ["B", "C"].map((sessionId) =>
        call("/api/v1/claims/next", { repo, actor: { runtime: "codex", sessionId }, includeTakeovers: true }),
      ),
    );
    const statuses = racers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect(racers.find((r) => r.status === 201)!.body).toMatchObject({ lease: { generation: 2 } });
    const lost = racers.find((r) => r.status === 409)!;
    expect(lost.body).toMatchObject({ error: "queue_empty" });
  });
});
