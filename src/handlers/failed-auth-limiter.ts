// Failed authentications per client address in a sliding window; past the limit the address is refused.

export interface FailedAuthLimiter {
  fail(address: string): void;
  /** Seconds the address must wait, or 0 when it may try. */
  blockedFor(address: string): number;
}

export function createFailedAuthLimiter(options: {
  now: () => number;
  maxFailures?: number;
  windowMs?: number;
}): FailedAuthLimiter {
  const maxFailures = options.maxFailures ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const failures = new Map<string, number[]>();
  const recent = (address: string) => {
    const cutoff = options.now() - windowMs;
    const list = (failures.get(address) ?? []).filter((at) => at > cutoff);
    if (list.length === 0) failures.delete(address);
    else failures.set(address, list);
    return list;
  };
  return {
    fail(address) {
      const list = recent(address);
      list.push(options.now());
      failures.set(address, list);
      if (failures.size > 10_000) failures.delete(failures.keys().next().value as string);
    },
    blockedFor(address) {
      const list = recent(address);
      if (list.length < maxFailures) return 0;
      return Math.max(1, Math.ceil((list[0]! + windowMs - options.now()) / 1000));
    },
  };
}
