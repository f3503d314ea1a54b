// Times as people read them on a terminal ("in 20 s", "4 min ago"); `--json` keeps the exact ISO values.

/** `at` relative to `now`: "in 20 s", "in 4 min", "in 2 h", "3 min ago", "now"; the text as given when it is no time. */
export function relativeTime(at: string | number | null | undefined, now: number): string {
  if (at === null || at === undefined) return "unknown";
  // Numbers below 1e12 are epoch seconds, as lease files may hold them.
  const ms = typeof at === "number" ? (at < 1e12 ? at * 1000 : at) : Date.parse(at);
  if (Number.isNaN(ms)) return String(at);
  const delta = ms - now;
  const span = humanSpan(Math.abs(delta));
  if (span === "0 s") return "now";
  return delta > 0 ? `in ${span}` : `${span} ago`;
}

/** A duration in its largest whole unit: "45 s", "4 min", "2 h", "3 d". */
export function humanSpan(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h`;
  return `${Math.round(hours / 24)} d`;
}
