// The timeline's time ranges: a query parameter (`?range=6h`), so the selector works as a plain form without JavaScript.

export const timelineRanges = {
  "1h": 3_600_000,
  "6h": 6 * 3_600_000,
  "24h": 24 * 3_600_000,
  "7d": 7 * 24 * 3_600_000,
} as const;
export type TimelineRange = keyof typeof timelineRanges;
export const defaultTimelineRange: TimelineRange = "24h";

export const timelineRangeLabels: Record<TimelineRange, string> = {
  "1h": "Last hour",
  "6h": "Last 6 hours",
  "24h": "Last 24 hours",
  "7d": "Last 7 days",
};

/** The range a query parameter names; anything else is the default. */
export function timelineRangeOf(value: string | undefined): TimelineRange {
  return value !== undefined && Object.hasOwn(timelineRanges, value)
    ? (value as TimelineRange)
    : defaultTimelineRange;
}

/** The range whose window is `windowMs` (the default for any other window). */
export function rangeOfWindow(windowMs: number): TimelineRange {
  const found = (Object.keys(timelineRanges) as TimelineRange[]).find((r) => timelineRanges[r] === windowMs);
  return found ?? defaultTimelineRange;
}
