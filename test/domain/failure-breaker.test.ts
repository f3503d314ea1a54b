// The failure breaker's pure decisions, as tables: what counts, the backoff, the threshold, the one trip.
import { describe, expect, it } from "vitest";
import {
  type BreakerState,
  backoffMs,
  breakerOf,
  releaseFailure,
  summaryCovers,
  tripsNow,
  tripUnwritten,
} from "../../src/domain/failure-breaker.js";

const minute = 60_000;
const settings = { maxFailures: 3, retryBackoffMs: 10 * minute };
const endedAt = (...at: number[]) => at.map((t) => ({ endedAt: t }));

describe("the failure breaker", () => {
  it.each<[string, { endedAt: number }[], number, BreakerState]>([
    ["no failure", [], 0, { kind: "closed" }],
    ["one failure, just now", endedAt(0), 0, { kind: "backoff", failures: 1, retryAt: 10 * minute }],
    [
      "one failure, 9 min ago",
      endedAt(0),
      9 * minute,
      { kind: "backoff", failures: 1, retryAt: 10 * minute },
    ],
    ["one failure, 10 min ago: offered again", endedAt(0), 10 * minute, { kind: "closed" }],
    [
      "two failures: the backoff doubles",
      endedAt(0, 30 * minute),
      45 * minute,
      { kind: "backoff", failures: 2, retryAt: 50 * minute },
    ],
    ["two failures, 20 min after the last", endedAt(0, 30 * minute), 50 * minute, { kind: "closed" }],
    ["three failures: tripped", endedAt(0, 1, 2), 0, { kind: "tripped", failures: 3 }],
    [
      "three failures, a day later: still tripped",
      endedAt(0, 1, 2),
      24 * 60 * minute,
      { kind: "tripped", failures: 3 },
    ],
    [
      "more than the max (overridden claims failed too)",
      endedAt(0, 1, 2, 3),
      0,
      { kind: "tripped", failures: 4 },
    ],
  ])("%s", (_, attempts, now, expected) => {
    expect(breakerOf(attempts, settings, now)).toStrictEqual(expected);
  });

  it.each([
    [1, 10 * minute],
    [2, 20 * minute],
    [3, 40 * minute],
    [11, 10 * minute * 1024],
    [50, 10 * minute * 1024],
  ])("backs off %i failure(s) for %i ms", (failures, ms) => {
    expect(backoffMs(failures, 10 * minute)).toBe(ms);
  });

  it.each([
    [1, 3, false],
    [2, 3, false],
    [3, 3, true],
    // Past the max (a claim with override failed again): no second summary.
    [4, 3, false],
    [1, 1, true],
  ])("with %i attempts and maxFailures %i, trips now: %s", (attempts, max, trips) => {
    expect(tripsNow(new Array(attempts).fill(null), max)).toBe(trips);
  });

  const gens = (...generation: number[]) => generation.map((g) => ({ generation: g }));
  it.each<[string, { generation: number }[], number | undefined, number, boolean]>([
    ["no failure", [], undefined, 3, false],
    ["below maxFailures", gens(1, 3), undefined, 3, false],
    ["tripped, nothing written", gens(1, 3, 5), undefined, 3, true],
    ["tripped, written through the last", gens(1, 3, 5), 5, 3, false],
    ["tripped, written, one more failure since (an override claim)", gens(1, 3, 5, 7), 5, 3, false],
    ["written through a generation inside the run", gens(1, 3, 5), 3, 3, false],
    ["written for an earlier run (a completed release cleared it)", gens(9, 11, 13), 5, 3, true],
    ["maxFailures lowered below the count, nothing written", gens(1, 3), undefined, 2, true],
    ["maxFailures lowered, a trip written before", gens(1, 3), 3, 2, false],
    ["maxFailures raised above the count", gens(1, 3, 5), undefined, 5, false],
    ["maxFailures 1, one failure", gens(4), undefined, 1, true],
  ])("%s", (_, attempts, writtenThrough, max, unwritten) => {
    expect(tripUnwritten(attempts, writtenThrough, max)).toBe(unwritten);
  });

  const summary =
    "🧯 octo/widgets#1 failed 2 times in a row …\n\n| # | Generation |\n|---|---|\n| 1 | 3 | a |\n| 2 | 5 | b |\n";
  it.each<[string, string, number[], boolean]>([
    ["the summary of these attempts", summary, [3, 5], true],
    ["one more failure since", summary, [3, 5, 7], false],
    ["a later run with other generations", summary, [9, 11], false],
    ["no attempts", summary, [], false],
    ["not a summary", "📝 released generation 5\n| 2 | 5 |", [3, 5], false],
  ])("summaryCovers: %s", (_, body, generations, covers) => {
    expect(summaryCovers(body, gens(...generations))).toBe(covers);
  });

  it.each([
    ["failed", "failed"],
    ["handoff", null],
    ["completed", null],
    ["abandoned", null],
  ])("a release with outcome %s counts as %s", (outcome, counted) => {
    expect(releaseFailure(outcome)).toBe(counted);
  });
});
