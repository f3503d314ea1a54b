// The dashboard's history read against the memory store and a real Redis: transitions become lanes the same way,
// recent notifications come from the outbox, and every read is bounded (and the bound said).
import { jsx } from "hono/jsx";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubWebUrlOf, webBasesOf } from "../src/dashboard/github-links.js";
import { readTimeline, timelineSubjects } from "../src/dashboard/timeline/read-timeline.js";
import { layoutTimeline } from "../src/dashboard/timeline/timeline-layout.js";
import { TimelinePanel } from "../src/dashboard/timeline/timeline-panel.js";
import { MemoryOutboxStore } from "../src/providers/memory/memory-outbox-store.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import type { OutboxStore } from "../src/providers/outbox-store.js";
import { RedisOutboxStore } from "../src/providers/redis/redis-outbox-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";
import { minute, seedAgentClaim, seedHumanClaim } from "./support/seed-claims.js";

const githubCom = webBasesOf({ github: "https://github.com" });

const redisProbe = await probeRedis();
if (!redisProbe.available)
  console.warn(`Skipping the Redis half of the timeline reads: ${redisProbe.reason}`);

const hour = 60 * minute;
const T0 = Date.parse("2026-11-29T12:00:00Z");
const widgets = { installationId: 7, repoId: 1001 };
const alice = { login: "octo-agent", runtime: "codex", sessionId: "s-alice" };
const bob = { login: "octo-agent", runtime: "claude-code", sessionId: "s-bob" };

interface TimelineStores {
  stores: Stores;
  outbox: OutboxStore;
}

const runPrefix = uniqueKeyPrefix("timeline");
let redis: Redis | undefined;
let next = 0;
const storeCases: { name: string; make: () => TimelineStores }[] = [
  {
    name: "memory",
    make: () => ({ stores: createMemoryStores({ now: () => T0 }), outbox: new MemoryOutboxStore() }),
  },
];
if (redisProbe.available) {
  storeCases.push({
    name: "redis",
    make: () => {
      const keyPrefix = `${runPrefix}${++next}:`;
      return {
        stores: createRedisStores({ redis: redis!, keyPrefix }),
        outbox: new RedisOutboxStore({ redis: redis!, keyPrefix }),
      };
    },
  });
}

beforeAll(async () => {
  if (redisProbe.available) redis = await createTestRedis();
});
afterAll(async () => {
  if (redis) {
    await deleteKeysWithPrefix(redis, runPrefix);
    await redis.quit();
  }
});

/** Counts the store's history reads: the bound the page promises. */
function countingHistory(stores: Stores) {
  const counted = { reads: 0 };
  const history: Stores["claims"]["history"] = (key) => {
    counted.reads++;
    return stores.claims.history(key);
  };
  return {
    counted,
    stores: {
      installations: stores.installations,
      index: stores.index,
      claims: { history },
    },
  };
}

describe.each(storeCases)("timeline reads ($name store)", ({ make }) => {
  it("turns a takeover, a reap and a /reclaim into lanes, with the outbox's recent notifications", async () => {
    const { stores, outbox } = make();
    await seedAgentClaim(stores, {
      key: { ...widgets, issue: 1 },
      repo: "acme/widgets",
      actor: alice,
      now: T0 - 6 * hour,
    });
    await seedAgentClaim(stores, {
      key: { ...widgets, issue: 1 },
      repo: "acme/widgets",
      actor: bob,
      now: T0 - 3 * hour,
      takeover: true,
    });
    const reaped = await seedAgentClaim(stores, {
      key: { ...widgets, issue: 2 },
      repo: "acme/widgets",
      actor: alice,
      now: T0 - 5 * hour,
    });
    await stores.claims.endClaim({
      key: reaped.key,
      generation: reaped.generation,
      now: T0 - 4 * hour,
      to: "reaped",
      bump: true,
    });
    await seedAgentClaim(stores, {
      key: { ...widgets, issue: 3 },
      repo: "acme/widgets",
      actor: bob,
      now: T0 - 2 * hour,
    });
    await seedHumanClaim(stores, {
      key: { ...widgets, issue: 3 },
      repo: "acme/widgets",
      login: "maintainer",
      now: T0 - hour,
    });
    const notification = {
      event: "needs-human" as const,
      id: "evt_nh",
      at: new Date(T0 - 30 * minute).toISOString(),
      subject: "acme/widgets#1",
      installationId: 7,
      data: { blocker: "which API?" },
    };
    await outbox.enqueue("evt_nh", [{ id: "evt_nh.sink1", sinkId: "sink1", notification }], T0 - 30 * minute);
    const { deliveries } = await outbox.claimDue({
      now: T0 - 30 * minute,
      leaseMs: minute,
      limit: 5,
      claimant: "t",
    });
    await outbox.settle(deliveries[0]!, "t", { kind: "sent" }, T0 - 30 * minute);
    // A takeover whose sink failed once: waiting for its next try.
    const takeover = { ...notification, event: "takeover" as const, id: "evt_tk", data: {} };
    await outbox.enqueue(
      "evt_tk",
      [{ id: "evt_tk.sink1", sinkId: "sink1", notification: takeover }],
      T0 - minute,
    );
    const failed = await outbox.claimDue({ now: T0 - minute, leaseMs: minute, limit: 5, claimant: "t" });
    await outbox.settle(failed.deliveries[0]!, "t", { kind: "retry", at: T0 + 2 * minute }, T0 - minute);

    const data = await readTimeline({
      stores,
      outbox,
      webBaseOf: webBasesOf({ github: githubWebUrlOf("https://ghe.example.com/api/v3") }),
      now: () => T0,
    });
    expect(data.webBaseOf(1)).toStrictEqual({ forge: "github", url: "https://ghe.example.com" });
    expect(data.subjects.map((s) => s.subject)).toStrictEqual([
      "acme/widgets#3",
      "acme/widgets#1",
      "acme/widgets#2",
    ]);
    expect(data.notifications?.map((n) => [n.event, n.subject])).toStrictEqual([
      ["needs-human", "acme/widgets#1"],
    ]);
    expect(data.left).toStrictEqual({ repositories: 0, subjects: 0, recordsTruncated: false });
    expect(data.retrying?.map((d) => [d.id, d.attempts, d.dueAt])).toStrictEqual([
      ["evt_tk.sink1", 1, T0 + 2 * minute],
    ]);
    const view = { generatedAt: "", claims: [], repos: [], counts: {}, janitor: null, truncated: false };
    const html = String(jsx(TimelinePanel, { data, view, stateColours: {} }));
    expect(html).toContain('<section id="retrying-notifications">');
    expect(html).toMatch(
      /<tr data-retrying="takeover">.*in 2 min.*sink1.*<td data-label="Failed tries">1<\/td>/s,
    );
    const layout = layoutTimeline({
      subjects: data.subjects,
      live: new Map([["acme/widgets#1", { state: "reclaimable", reasons: [] }]]),
      notifications: data.notifications ?? [],
      now: T0,
      windowMs: data.windowMs,
      maxLanes: 24,
    });
    expect(
      layout.lanes.map((lane) => [
        lane.id,
        lane.bars.map((b) => `${b.subject} g${b.generation} ${b.state}`),
        lane.markers.map((m) => `${m.kind} ${m.subject}`),
      ]),
    ).toStrictEqual([
      // Lanes reaching now tie; their ids order them.
      [
        "agent:octo-agent:claude-code:s-bob",
        ["acme/widgets#1 g2 reclaimable", "acme/widgets#3 g1 superseded"],
        ["reclaim acme/widgets#3", "needs-human acme/widgets#1"],
      ],
      ["human:maintainer", ["acme/widgets#3 g2 human"], []],
      [
        "agent:octo-agent:codex:s-alice",
        ["acme/widgets#1 g1 superseded", "acme/widgets#2 g1 reaped"],
        ["reap acme/widgets#2", "takeover acme/widgets#1"],
      ],
    ]);
  });

  it(`reads at most ${timelineSubjects} subjects' histories, the most recently active, and says how many it left out`, {
    timeout: 30_000,
  }, async () => {
    const { stores } = make();
    for (let issue = 1; issue <= timelineSubjects + 5; issue++) {
      await seedAgentClaim(stores, {
        key: { ...widgets, issue },
        repo: "acme/widgets",
        actor: { login: `agent-${issue % 3}`, runtime: "codex", sessionId: `s-${issue}` },
        now: T0 - (timelineSubjects + 5 - issue) * minute,
      });
    }
    // An old, ended claim is outside the window and costs no history read.
    const old = await seedAgentClaim(stores, {
      key: { ...widgets, issue: 999 },
      repo: "acme/widgets",
      actor: { ...bob, sessionId: "s-old" },
      now: T0 - 30 * hour,
    });
    await stores.claims.endClaim({
      key: old.key,
      generation: old.generation,
      now: T0 - 26 * hour,
      to: "reaped",
      bump: true,
    });
    const { counted, stores: counting } = countingHistory(stores);
    const data = await readTimeline({ stores: counting, webBaseOf: githubCom, now: () => T0 });
    expect(counted.reads).toBe(timelineSubjects);
    expect(data.subjects).toHaveLength(timelineSubjects);
    expect(data.subjects[0]!.subject).toBe(`acme/widgets#${timelineSubjects + 5}`);
    expect(data.left.subjects).toBe(5);
    expect(data.notifications).toBeNull();
    expect(data.retrying).toBeNull();
    expect(data.spend).toBeNull();
    // The page says what it left out.
    const view = { generatedAt: "", claims: [], repos: [], counts: {}, janitor: null, truncated: false };
    const html = String(jsx(TimelinePanel, { data, view, stateColours: {} }));
    expect(html).toContain(
      `Bounded view: 5 less recently active subjects beyond ${timelineSubjects} are left out`,
    );
    expect(html).not.toContain('id="recent-notifications"');
    expect(html).not.toContain('id="retrying-notifications"');
  });
});

describe("spend per subject", () => {
  it("lists the subjects with spend, largest first, linked to their page and to GitHub, when the store keeps spend", async () => {
    const stores = createMemoryStores({ now: () => T0 });
    for (const issue of [1, 2, 3]) {
      await seedAgentClaim(stores, {
        key: { ...widgets, issue },
        repo: "acme/widgets",
        actor: { ...alice, sessionId: `s-${issue}` },
        now: T0 - issue * minute,
      });
    }
    // Spend in micro-dollars, as the budget store answers it.
    const spendMicros: Record<number, number> = { 1: 1_250_000, 2: 0, 3: 4_200_000 };
    const data = await readTimeline({
      stores: {
        ...countingHistory(stores).stores,
        spend: {
          spendOf: async (keys: readonly { issue: number }[]) => keys.map((k) => spendMicros[k.issue] ?? 0),
        },
      },
      webBaseOf: githubCom,
      now: () => T0,
    });
    expect(data.spend?.map((s) => [s.subject, s.usd])).toStrictEqual([
      ["acme/widgets#3", 4.2],
      ["acme/widgets#1", 1.25],
    ]);
    const view = { generatedAt: "", claims: [], repos: [], counts: {}, janitor: null, truncated: false };
    const html = String(jsx(TimelinePanel, { data, view, stateColours: {} }));
    expect(html).toContain('<a href="/subjects/acme/widgets/3">acme/widgets#3</a>');
    expect(html).toContain('href="https://github.com/acme/widgets/issues/3" title="The issue on GitHub"');
    expect(html).toContain("$4.20");
    expect(html).not.toContain('data-spend-subject="acme/widgets#2"');
  });
});
