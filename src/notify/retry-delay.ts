// When a failed delivery is tried again: exponential backoff, capped; past the last try it is dropped. Pure.

export interface RetryPolicy {
  /** Tries per delivery, the first included; after the last failed one the delivery is dropped. */
  maxAttempts: number;
  /** Wait after the first failure; it doubles after each further one. */
  baseDelayMs: number;
  /** Longest wait between two tries. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 5_000,
  maxDelayMs: 15 * 60_000,
};

/** After failed try number `attempt` (1-based): the wait before the next one, or null to give up. */
export function retryDelayMs(attempt: number, policy: RetryPolicy): number | null {
  if (attempt >= policy.maxAttempts) return null;
  return Math.min(policy.baseDelayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs);
}
