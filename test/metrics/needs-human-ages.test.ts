// How long claims have asked for a person: dated by the first background count that saw the ask.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { collectInBackground, createMetrics } from "../../src/metrics/create-metrics.js";
import { needsHumanAges, oldestAskSeconds } from "../../src/metrics/needs-human-ages.js";

const T0 = Date.parse("2026-11-29T10:00:00Z");

describe("needsHumanAges", () => {
  it.each([
    ["a new ask is dated now", [], ["a"], [["a", T0]]],
    ["an ask still counted keeps its date", [["a", T0 - 5_000]], ["a"], [["a", T0 - 5_000]]],
    ["an ask no longer counted is dropped", [["a", T0 - 5_000]], ["b"], [["b", T0]]],
    ["nobody asks", [["a", T0 - 5_000]], [], []],
  ] as [string, [string, number][], string[], [string, number][]][])(
    "%s",
    (_, previous, asking, expected) => {
      expect([...needsHumanAges(new Map(previous), asking, T0)]).toStrictEqual(expected);
    },
  );

  it.each([
    ["nobody asks", [], 0],
    [
      "the oldest of several",
      [
        ["a", T0 - 90_000],
        ["b", T0 - 5_000],
      ],
      90,
    ],
  ] as [string, [string, number][], number][])("oldestAskSeconds: %s", (_, since, seconds) => {
    expect(oldestAskSeconds(new Map(since), T0)).toBe(seconds);
  });
});

describe("claim_hold_needs_human_oldest_seconds", () => {
  it("grows while the same claim keeps asking, and drops to 0 once it stops", async () => {
    const clock = { now: T0 };
    let asking: string[] = ["7:acme/widgets#1:1"];
    const metrics = createMetrics();
    const stop = collectInBackground(metrics, {
      claimsByState: async () => ({ counts: { waiting: asking.length }, needsHuman: asking }),
      githubRequests: () => new Map(),
      now: () => clock.now,
      log: pino({ level: "silent" }),
    });
    try {
      const oldest = async () => {
        const text = await metrics.registry.metrics();
        return Number(/^claim_hold_needs_human_oldest_seconds (\S+)$/m.exec(text)?.[1]);
      };
      await metrics.refreshClaims();
      expect(await oldest()).toBe(0);
      clock.now = T0 + 61 * 60_000;
      await metrics.refreshClaims();
      expect(await oldest()).toBe(61 * 60);
      asking = [];
      await metrics.refreshClaims();
      expect(await oldest()).toBe(0);
    } finally {
      stop();
    }
  });
});
