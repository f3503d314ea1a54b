// A small promise cache with per-value lifetimes and an injected clock, shared by the GitHub providers.

interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
}

/**
 * Concurrent lookups of one key share one request; a failed lookup is not cached. The oldest
 * entry goes first when `maxEntries` is reached, so unknown tokens cannot grow it without bound.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, Entry<V>>();

  constructor(
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value of `key`, or `load()` cached for `ttlFor(value)` milliseconds. */
  getOrLoad(key: string, load: () => Promise<V>, ttlFor: (value: V) => number): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    if (hit) this.#entries.delete(key);
    const value = load();
    const entry: Entry<V> = { value, expiresAt: Number.POSITIVE_INFINITY };
    this.#entries.set(key, entry);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    value.then(
      (resolved) => {
        entry.expiresAt = this.now() + ttlFor(resolved);
      },
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    return value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  deleteWhere(predicate: (key: string) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (predicate(key)) this.#entries.delete(key);
  }
}
