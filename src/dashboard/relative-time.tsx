/** @jsxImportSource hono/jsx */
// Times as people read them: "3 min ago" on the page, the absolute UTC time on hover (title) and for machines (datetime).
import type { FC } from "hono/jsx";

export function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3_600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** "41 s ago", "5 min ago", "3 h ago", "2 d ago"; a time ahead of now reads "in 5 min". */
export function ago(seconds: number): string {
  return seconds < 0 ? `in ${duration(-seconds)}` : `${duration(seconds)} ago`;
}

/** `2026-11-29 10:00:00 UTC`. */
export function utcText(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A time relative to `now`, its absolute UTC time in the title. */
export const When: FC<{ at: number; now: number }> = ({ at, now }) => (
  <time datetime={new Date(at).toISOString()} title={utcText(at)}>
    {ago(Math.round((now - at) / 1000))}
  </time>
);
