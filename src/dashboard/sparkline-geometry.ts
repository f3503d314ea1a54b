// The heartbeat sparkline's geometry: where each gap between beats sits in the SVG, how late it was, and the figures its label reads.
import type { Durations } from "../domain/claim.js";

/**
 * How late a gap was: within the claim's ttl (`on-time`); at or past the ttl, when the claim read
 * stale and a takeover could supersede it (`stale`); at or past reclaimAfter, which an accepted beat
 * reaches only across a declared wait (`reclaimable`).
 */
export type GapLevel = "on-time" | "stale" | "reclaimable";

export interface SparkPoint {
  x: number;
  y: number;
  gapMs: number;
  level: GapLevel;
}

export interface SparklineGeometry {
  points: SparkPoint[];
  /** The polyline's `points` attribute ("x,y x,y …"). */
  polyline: string;
  /** The y of the expected gap, the heartbeat interval (the reference line). */
  referenceY: number;
  /** The gap drawn at the top edge: the largest gap or the interval, whichever is longer. */
  scaleMs: number;
  minMs: number;
  medianMs: number;
  maxMs: number;
}

export interface SparkBox {
  width: number;
  height: number;
  /** Room kept free on every side, so the points' marks are not cut off. */
  pad: number;
}

export const sparkBox: SparkBox = { width: 300, height: 60, pad: 4 };

/** To a tenth of a unit: enough for a viewBox, short in the page. */
const tenth = (value: number) => Math.round(value * 10) / 10;

export function gapLevel(gapMs: number, durations: Pick<Durations, "ttlMs" | "reclaimAfterMs">): GapLevel {
  if (gapMs >= durations.reclaimAfterMs) return "reclaimable";
  if (gapMs >= durations.ttlMs) return "stale";
  return "on-time";
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

/**
 * The gaps (oldest first) left to right at even steps (one gap: in the middle), each as high as it is
 * long against `scaleMs`, y growing downwards as in SVG; null without gaps.
 */
export function sparklineGeometry(
  gapsMs: readonly number[],
  durations: Durations,
  box: SparkBox = sparkBox,
): SparklineGeometry | null {
  if (gapsMs.length === 0) return null;
  const scaleMs = Math.max(...gapsMs, durations.heartbeatMs);
  const inner = { width: box.width - 2 * box.pad, height: box.height - 2 * box.pad };
  const yOf = (ms: number) => tenth(box.pad + (1 - ms / scaleMs) * inner.height);
  const step = gapsMs.length > 1 ? inner.width / (gapsMs.length - 1) : 0;
  const points = gapsMs.map((gapMs, i) => ({
    x: tenth(gapsMs.length > 1 ? box.pad + i * step : box.width / 2),
    y: yOf(gapMs),
    gapMs,
    level: gapLevel(gapMs, durations),
  }));
  return {
    points,
    polyline: points.map((p) => `${p.x},${p.y}`).join(" "),
    referenceY: yOf(durations.heartbeatMs),
    scaleMs,
    minMs: Math.min(...gapsMs),
    medianMs: median(gapsMs),
    maxMs: Math.max(...gapsMs),
  };
}

/** A gap as read aloud: "850 ms", "12.5 s", "4 min", "2 h". */
export function gapText(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${tenth(ms / 1_000)} s`;
  if (ms < 7_200_000) return `${tenth(ms / 60_000)} min`;
  return `${tenth(ms / 3_600_000)} h`;
}
