// A LivenessStore decorator: times every store call and counts heartbeats and transitions by what the store answered.
import type { LivenessStore } from "../providers/liveness-store.js";
import type { ClaimHoldMetrics } from "./create-metrics.js";

type Metrics = Pick<ClaimHoldMetrics, "storeLatency" | "heartbeats" | "transitions">;

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

export function measureStore(store: LivenessStore, metrics: Metrics): LivenessStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return async (...args: unknown[]) => {
        const stop = metrics.storeLatency.startTimer({ method: property });
        try {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          stop({ result: "ok" });
          if (property === "heartbeat") {
            metrics.heartbeats.inc({ outcome: (result as { kind: string }).kind });
          }
          const transition = transitionOf(property, result);
          if (transition) metrics.transitions.inc({ kind: transition });
          return result;
        } catch (error) {
          stop({ result: "error" });
          throw error;
        }
      };
    },
  });
}
