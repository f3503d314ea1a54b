// The heartbeat sparkline's geometry by table: the points' places, the reference line, the late gaps and the label's figures.
import { describe, expect, it } from "vitest";
import { gapLevel, gapText, median, sparklineGeometry } from "../src/dashboard/sparkline-geometry.js";

const durations = { heartbeatMs: 10_000, ttlMs: 30_000, reclaimAfterMs: 60_000 };
const box = { width: 100, height: 50, pad: 5 };

describe("the heartbeat sparkline's geometry", () => {
  it.each([
    {
      name: "no gap: nothing to draw",
      gaps: [],
      polyline: null,
      referenceY: null,
      levels: [],
      figures: null,
    },
    {
      name: "one gap on the interval: in the middle, at the top, on the reference line",
      gaps: [10_000],
      polyline: "50,5",
      referenceY: 5,
      levels: ["on-time"],
      figures: [10_000, 10_000, 10_000, 10_000],
    },
    {
      name: "gaps shorter than the interval: the interval is the top, the points below it",
      gaps: [5_000, 2_500],
      polyline: "5,25 95,35",
      referenceY: 5,
      levels: ["on-time", "on-time"],
      figures: [10_000, 2_500, 3_750, 5_000],
    },
    {
      name: "a longer gap sets the scale; even steps left to right, oldest first",
      gaps: [10_000, 20_000, 40_000],
      polyline: "5,35 50,25 95,5",
      referenceY: 35,
      levels: ["on-time", "on-time", "stale"],
      figures: [40_000, 10_000, 20_000, 40_000],
    },
    {
      name: "at the ttl is stale, at reclaimAfter (across a wait) reclaimable",
      gaps: [29_999, 30_000, 59_999, 60_000],
      polyline: "5,25 35,25 65,5 95,5",
      referenceY: 38.3,
      levels: ["on-time", "stale", "stale", "reclaimable"],
      figures: [60_000, 29_999, 45_000, 60_000],
    },
  ])("$name", ({ gaps, polyline, referenceY, levels, figures }) => {
    const geometry = sparklineGeometry(gaps, durations, box);
    if (polyline === null) {
      expect(geometry).toBeNull();
      return;
    }
    expect(geometry!.polyline).toBe(polyline);
    expect(geometry!.referenceY).toBe(referenceY);
    expect(geometry!.points.map((p) => p.level)).toStrictEqual(levels);
    expect(geometry!.points.map((p) => p.gapMs)).toStrictEqual(gaps);
    expect([geometry!.scaleMs, geometry!.minMs, geometry!.medianMs, geometry!.maxMs]).toStrictEqual(figures);
  });

  it.each([
    [[7], 7],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 3], // (2 + 3) / 2, rounded
    [[10_000, 10_001], 10_001],
  ])("takes the median of %j as %d", (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it.each([
    [0, "on-time"],
    [29_999, "on-time"],
    [30_000, "stale"],
    [60_000, "reclaimable"],
  ] as const)("ranks a gap of %d ms %s", (gap, level) => {
    expect(gapLevel(gap, durations)).toBe(level);
  });

  it.each([
    [850, "850 ms"],
    [1_000, "1 s"],
    [12_345, "12.3 s"],
    [119_999, "120 s"],
    [300_000, "5 min"],
    [7_200_000, "2 h"],
  ])("reads %d ms as %s", (ms, text) => {
    expect(gapText(ms)).toBe(text);
  });
});
