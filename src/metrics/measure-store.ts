// A decorator of the store bundle: times every store call and counts heartbeats and transitions by what the store answered.
import type { SpendReport } from "../providers/spend-store.js";
import { mapStores, type Stores } from "../providers/stores.js";
import type { ClaimHoldMetrics } from "./create-metrics.js";

type Metrics = Pick<ClaimHoldMetrics, "storeLatency" | "countHeartbeat" | "countSpend" | "transitions">;

/** The transition a store answer records, if it made one (refusals and no-ops make none). */
function transitionOf(method: string, result: unknown): string | null {
  const kind = (result as { kind?: string } | null)?.kind;
  switch (method) {
    case "claim":
      if (kind === "created") {
        const previous = (result as { previous: { state: string } | null }).previous;
        return previous?.state === "active" ? "superseded" : "claimed";
      }
      if (kind === "reclaimed") return "reclaimed";
      return kind === "takeover_pending" ? "takeover-requested" : null;
    case "release":
      return kind === "released" && !(result as { repeated: boolean }).repeated ? "released" : null;
    case "endClaim":
      return kind === "ended" ? (result as { record: { state: string } }).record.state : null;
    case "markStale":
      return kind === "marked" ? "stale-marked" : null;
    case "humanClaim":
      return "human-claimed";
    case "rollbackClaim":
      return "rolled-back";
    case "restore":
      return result === "restored" ? "restored" : null;
    default:
      return null;
  }
}

/** Every method name of `store`, its own and its classes' (the store is a class instance, or a Proxy of one). */
function methodNames(store: object): string[] {
  const names = new Set<string>();
  for (let at: object | null = store; at && at !== Object.prototype; at = Object.getPrototypeOf(at)) {
    for (const name of Object.getOwnPropertyNames(at)) {
      if (name !== "constructor" && typeof (store as Record<string, unknown>)[name] === "function")
        names.add(name);
    }
  }
  return [...names];
}

/**
 * The bundle with every method of its members timed and counted. Members that are one object stay one
 * measured object (each method wrapped once, so a call is counted once whichever member it went through).
 */
export function measureStores(stores: Stores, metrics: Metrics): Stores {
  return mapStores(stores, (store) => measureStore(store, metrics));
}

/**
 * One store object with every method timed and counted. The wrappers are made once, here (not a Proxy
 * making a closure per call), each with its histogram children bound; a method is looked up on
 * `store` at each call, so a method replaced later is the one called.
 */
function measureStore<T extends object>(store: T, metrics: Metrics): T {
  const measured = Object.create(store) as Record<string, unknown>;
  for (const method of methodNames(store)) {
    const ok = metrics.storeLatency.series({ method, result: "ok" });
    const failed = metrics.storeLatency.series({ method, result: "error" });
    measured[method] = async (...args: unknown[]) => {
      const started = performance.now();
      let result: unknown;
      try {
        result = await (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(
          ...args,
        );
      } catch (error) {
        failed.observe((performance.now() - started) / 1000);
        throw error;
      }
      ok.observe((performance.now() - started) / 1000);
      if (method === "heartbeat") {
        metrics.countHeartbeat((result as { kind: string }).kind);
        const spend = (result as { spend?: SpendReport }).spend;
        if (spend && spend.afterMicros > spend.beforeMicros)
          metrics.countSpend(spend.afterMicros - spend.beforeMicros);
      }
      const transition = transitionOf(method, result);
      if (transition) metrics.transitions.inc({ kind: transition });
      return result;
    };
  }
  return measured as unknown as T;
}
