// Jittered exponential backoff ("full jitter"): spreads retries of many agents hitting one server.

export interface BackoffOptions {
  /** Delay ceiling of the first retry, in milliseconds. */
  baseMs: number;
  /** No single delay exceeds this. */
  maxMs: number;
}

/** Delay before retry number `attempt` (0-based): uniform in [0, min(maxMs, baseMs · 2^attempt)). */
export function backoffDelay(attempt: number, random: () => number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
