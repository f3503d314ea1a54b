// The port the HTTP limits count through: one fixed-window counter per name, kept in Redis for the fleet or in this process.

/** What counting one request for a key found. */
export interface Taken {
  /** Whether the request was within the window's points. */
  allowed: boolean;
  /** Points left in the key's window after this one (0 once it is used up). */
  remaining: number;
  /** Milliseconds until the key's window ends and its points are whole again. */
  msBeforeNext: number;
}

/** Counts requests per key: at most `points` in a window of `durationSeconds` from the key's first. */
export interface WindowCounter {
  /**
   * Counts one request for `key`. A refused one does not move the window's end, so retrying early
   * never pushes the wait further out.
   */
  take(key: string): Promise<Taken>;
}

export interface RateLimitStore {
  /** The counter `name` (one key space per name); each call makes a counter, so make one per limit. */
  counter(options: { name: string; points: number; durationSeconds: number }): WindowCounter;
}
