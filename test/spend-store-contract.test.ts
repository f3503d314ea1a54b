// The spend and needs-human part of the store contract (docs/agents.md#asking-for-a-person, docs/agents.md#spend-and-budgets): the same cases on the memory store and a real Redis.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { usdToMicros } from "../src/budget/usage.js";
import type { Actor, SubjectKey } from "../src/domain/claim.js";
import type { ClaimInput, HeartbeatInput } from "../src/providers/liveness-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type LivenessStoreCase, livenessStoreCases } from "./support/liveness-store-cases.js";

const cases = await livenessStoreCases({ contract: "spend contract", prefix: "spend", others: 3 });

const T0 = 1_700_000_000_000;
const minute = 60_000;
const durations = { ttlMs: 30 * minute, reclaimAfterMs: 60 * minute, heartbeatMs: 5 * minute };
const key: SubjectKey = { installationId: 7, repoId: 1001, issue: 42 };
const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const agent = (sessionId: string): Actor => ({
  kind: "agent",
  login: "octo-agent",
  runtime: "codex",
  sessionId,
});
const usd = usdToMicros;

describe.each(cases)("$name spend contract", (storeCase) => {
  let stores: Stores;
  let others: Stores[];
  let redis: ReturnType<LivenessStoreCase["create"]>["redis"];
  let now: number;

  beforeAll(() => storeCase.setup());
  afterAll(() => storeCase.teardown());
  beforeEach(() => {
    now = T0;
    ({ stores, others, redis } = storeCase.create(() => now));
  });

  const claim = (actor: Actor, token: string, extra: Partial<ClaimInput> = {}) =>
    stores.claims.claim({
      key,
      repo: "acme/widgets",
      actor,
      taskClass: "author",
      durations,
      tokenDigest: digest(token),
      takeover: false,
      now,
      minGeneration: 0,
      appAssigned: true,
      caps: { perSession: 5, perLogin: 20 },
      ...extra,
    });
  const heartbeat = (generation: number, token: string, extra: Partial<HeartbeatInput> = {}) =>
    stores.claims.heartbeat({
      key,
      generation,
      tokenDigest: digest(token),
      now,
      phaseEditEveryMs: minute,
      ...extra,
    });
  const spend = async () => (await stores.spend.spendOf([key]))[0];

  it("adds a lease's cumulative usage to its subject's spend, the difference each time", async () => {
    await claim(agent("a"), "ta");
    expect(await spend()).toBe(0);
    now += minute;
    expect(await heartbeat(1, "ta", { usage: { costMicros: usd(1.25), tokens: 900 } })).toMatchObject({
      kind: "ok",
      spend: { beforeMicros: 0, afterMicros: usd(1.25), warned: false },
    });
    now += minute;
    expect(await heartbeat(1, "ta", { usage: { costMicros: usd(2) } })).toMatchObject({
      kind: "ok",
      spend: { beforeMicros: usd(1.25), afterMicros: usd(2), warned: false },
    });
    expect(await spend()).toBe(usd(2));
    // A heartbeat without usage reports no spend and changes none.
    const plain = await heartbeat(1, "ta");
    expect(plain.kind === "ok" && plain.spend).toBeFalsy();
    expect(await spend()).toBe(usd(2));
  });

  it("refuses a usage lower than the lease's last, and changes nothing at all", async () => {
    await claim(agent("a"), "ta");
    now += minute;
    await heartbeat(1, "ta", { usage: { costMicros: usd(3), tokens: 1000 } });
    const before = await stores.claims.get(key);
    now += minute;
    expect(
      await heartbeat(1, "ta", {
        usage: { costMicros: usd(2.5) },
        needsHuman: true,
        blocker: "x",
        phase: "p",
      }),
    ).toStrictEqual({ kind: "usage_decreased", field: "costUsd", last: 3 });
    expect(await heartbeat(1, "ta", { usage: { costMicros: usd(3), tokens: 999 } })).toStrictEqual({
      kind: "usage_decreased",
      field: "tokens",
      last: 1000,
    });
    expect(await stores.claims.get(key)).toStrictEqual(before);
    expect(await spend()).toBe(usd(3));
  });

  it("keeps the sum across a takeover: the new generation's usage counts from its own zero", async () => {
    await claim(agent("a"), "ta");
    await heartbeat(1, "ta", { usage: { costMicros: usd(4) } });
    now += durations.ttlMs + minute;
    expect(await claim(agent("b"), "tb", { takeover: true })).toMatchObject({ kind: "takeover_pending" });
    now += durations.heartbeatMs;
    expect(await claim(agent("b"), "tb", { takeover: true })).toMatchObject({
      kind: "created",
      record: { generation: 2 },
    });
    expect(await spend()).toBe(usd(4));
    now += minute;
    // $0.50 is below generation 1's $4, yet no decrease: each lease is compared with itself.
    expect(await heartbeat(2, "tb", { usage: { costMicros: usd(0.5) } })).toMatchObject({
      kind: "ok",
      spend: { beforeMicros: usd(4), afterMicros: usd(4.5) },
    });
    expect(await spend()).toBe(usd(4.5));
    // The old lease is superseded: its report is refused as any of its calls is, and adds nothing.
    expect(await heartbeat(1, "ta", { usage: { costMicros: usd(9) } })).toMatchObject({ kind: "superseded" });
    expect(await spend()).toBe(usd(4.5));
  });

  it("reads the spend of many subjects at once, 0 for a subject without any", async () => {
    await claim(agent("a"), "ta");
    await heartbeat(1, "ta", { usage: { costMicros: usd(0.75) } });
    expect(await stores.spend.spendOf([key, { ...key, issue: 43 }])).toStrictEqual([usd(0.75), 0]);
    expect(await stores.spend.spendOf([])).toStrictEqual([]);
  });

  it("marks a subject warned once, whoever races for it", async () => {
    await claim(agent("a"), "ta");
    const firsts = await Promise.all(others.map((other) => other.spend.markBudgetWarned(key)));
    expect(firsts.filter(Boolean)).toHaveLength(1);
    expect(await stores.spend.markBudgetWarned(key)).toBe(false);
    expect(await heartbeat(1, "ta", { usage: { costMicros: usd(1) } })).toMatchObject({
      spend: { warned: true },
    });
  });

  it("marks an ended lease as ended by its budget, never a live or a newer one", async () => {
    await claim(agent("a"), "ta");
    await stores.spend.markBudgetExhausted(key, 1);
    expect((await stores.claims.get(key))?.budgetExhausted).toBeUndefined();
    await stores.claims.release({ key, generation: 1, tokenDigest: digest("ta"), now, outcome: "abandoned" });
    await stores.spend.markBudgetExhausted(key, 2);
    expect((await stores.claims.get(key))?.budgetExhausted).toBeUndefined();
    await stores.spend.markBudgetExhausted(key, 1);
    expect(await stores.claims.get(key)).toMatchObject({ state: "released", budgetExhausted: true });
    expect(await heartbeat(1, "ta")).toMatchObject({
      kind: "gone",
      reason: "released",
      current: { budgetExhausted: true },
    });
  });

  it("pauses the active generation by its budget once, whoever races, and every heartbeat answers it until cleared", async () => {
    await claim(agent("a"), "ta");
    expect(await stores.spend.markBudgetPaused(key, 2)).toBe(false);
    const firsts = await Promise.all(others.map((other) => other.spend.markBudgetPaused(key, 1)));
    expect(firsts.filter(Boolean)).toHaveLength(1);
    expect(await stores.spend.markBudgetPaused(key, 1)).toBe(false);
    expect(await stores.claims.get(key)).toMatchObject({ state: "active", budgetPaused: true });
    // The heartbeat keeps the paused lease and says so, with or without usage; it does not lift it.
    for (const extra of [{}, { usage: { costMicros: usd(3) } }]) {
      now += minute;
      expect(await heartbeat(1, "ta", extra)).toMatchObject({ kind: "ok", live: { budgetPaused: true } });
    }
    expect(await stores.spend.clearBudgetPaused(key)).toBe(true);
    expect(await stores.spend.clearBudgetPaused(key)).toBe(false);
    const resumed = await heartbeat(1, "ta", { wantRecord: true });
    expect(resumed.kind === "ok" && resumed.live).not.toHaveProperty("budgetPaused");
    expect(resumed.kind === "ok" && resumed.record?.budgetPaused).toBeFalsy();
  });

  it("never pauses an ended lease", async () => {
    await claim(agent("a"), "ta");
    await stores.claims.release({ key, generation: 1, tokenDigest: digest("ta"), now, outcome: "abandoned" });
    expect(await stores.spend.markBudgetPaused(key, 1)).toBe(false);
    expect((await stores.claims.get(key))?.budgetPaused).toBeUndefined();
  });

  it("keeps a subject's own budget limit beside its spend, across generations and usage reports", async () => {
    expect(await stores.spend.budgetLimitOf(key)).toBeNull();
    await claim(agent("a"), "ta");
    await stores.spend.setBudgetLimit(key, usd(7));
    now += minute;
    await heartbeat(1, "ta", { usage: { costMicros: usd(2) } });
    expect(await stores.spend.budgetLimitOf(key)).toBe(usd(7));
    await stores.spend.setBudgetLimit(key, usd(12.5));
    expect(await stores.spend.budgetLimitOf(key)).toBe(usd(12.5));
    expect(await spend()).toBe(usd(2));
    expect(await stores.spend.budgetLimitOf({ ...key, issue: 43 })).toBeNull();
  });

  it("keeps a heartbeat's needs-human ask until the next heartbeat without it, telling what it was before", async () => {
    await claim(agent("a"), "ta");
    const asked = await heartbeat(1, "ta", { needsHuman: true, blocker: "which key?", wantRecord: true });
    expect(asked).toMatchObject({
      kind: "ok",
      live: { needsHuman: true },
      record: { needsHuman: true, blocker: "which key?" },
    });
    expect(asked).not.toHaveProperty("needsHumanBefore");
    const again = await heartbeat(1, "ta", { needsHuman: true, blocker: "which key?" });
    expect(again).toMatchObject({ needsHumanBefore: true, live: { needsHuman: true } });
    expect(again).not.toHaveProperty("record");
    const cleared = await heartbeat(1, "ta", { wantRecord: true });
    expect(cleared).toMatchObject({ kind: "ok", needsHumanBefore: true });
    expect(cleared.kind === "ok" && cleared.live).not.toHaveProperty("needsHuman");
    expect(cleared.kind === "ok" && cleared.record?.needsHuman).toBeFalsy();
    expect((await stores.claims.get(key))?.needsHuman).toBeUndefined();
  });

  it("heartbeats with usage and an ask in one round trip", async () => {
    if (!redis) return;
    await claim(agent("a"), "ta");
    await heartbeat(1, "ta");
    const sent = vi.spyOn(redis, "sendCommand");
    try {
      now += minute;
      await heartbeat(1, "ta", { usage: { costMicros: usd(1), tokens: 5 }, needsHuman: true, blocker: "b" });
      expect(sent.mock.calls.map(([command]) => command.name)).toStrictEqual(["evalsha"]);
    } finally {
      sent.mockRestore();
    }
  });
});
