// Human-friendly durations ("30m", "90s", "24h") as used in `.github/claim-hold.yml`.
import { z } from "zod";

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "30m" / "90s" / "1h" / "250ms" / a bare number of seconds into milliseconds. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === "number")
    return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!match) return null;
  return Math.round(Number(match[1]) * (units[match[2] ?? "s"] ?? 1000));
}

export const minTtlMs = 10_000;
export const maxTtlMs = 24 * 3_600_000;

/** A duration field: accepts "30m"-style strings or seconds, yields milliseconds. */
export const DurationMs = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === null) {
    ctx.addIssue({ code: "custom", message: `"${value}" is not a duration like 30s, 5m or 24h` });
    return z.NEVER;
  }
  return ms;
});
