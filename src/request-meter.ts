// Counts GitHub requests per unit of work (a sweep, a request) through AsyncLocalStorage, without threading a counter.
import { AsyncLocalStorage } from "node:async_hooks";

export class RequestMeter {
  readonly #scope = new AsyncLocalStorage<{ requests: number }>();
  /** Every request the App made, by kind (metrics). */
  readonly totals = new Map<string, number>();

  count(kind: string): void {
    this.totals.set(kind, (this.totals.get(kind) ?? 0) + 1);
    const scope = this.#scope.getStore();
    if (scope) scope.requests++;
  }

  async measure<T>(work: () => Promise<T>): Promise<{ result: T; requests: number }> {
    const scope = { requests: 0 };
    const result = await this.#scope.run(scope, work);
    return { result, requests: scope.requests };
  }
}
