// Prometheus metrics (docs/deploy.md#8-watch-it) on a per-App registry (several Apps may share a process: tests, replicas).
import type { Logger } from "pino";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { SweepReport } from "../janitor/janitor.js";
import type { DerivedState } from "../lease/reads/derive-state.js";
import { HttpMetrics } from "./http-metrics.js";
import { LatencyHistogram } from "./latency-histogram.js";
import { needsHumanAges, oldestAskSeconds } from "./needs-human-ages.js";

export interface ClaimHoldMetrics {
  registry: Registry;
  /** Counts a heartbeat by outcome: a tally in plain numbers (every heartbeat comes here), read at scrape. */
  countHeartbeat(outcome: string): void;
  /** Adds what a heartbeat's usage report added to its subject's spend (micro-dollars), read at scrape. */
  countSpend(addedMicros: number): void;
  transitions: Counter<"kind">;
  janitorSweeps: Counter<"result">;
  janitorActions: Counter<"action">;
  janitorHalts: Counter;
  janitorPaused: Gauge;
  janitorDuration: Histogram;
  rateLimitRemaining: Gauge;
  /** x-ratelimit-limit of the last GitHub response: with the remaining, the share of the budget left. */
  rateLimitLimit: Gauge;
  /** Requests and their durations by route template, for both doors (Hono and the heartbeat's own route). */
  http: HttpMetrics;
  /** Refusals the API answered, by code (`claim_state_unknown`, `unauthorized`, …). */
  refusals: Counter<"code">;
  /** Transitions waiting for their installation's mutation request in flight, to go in the next one together. */
  githubWritesQueued: Gauge;
  /** Bound per method and result by measureStore; observed on every store call, so allocation-free. */
  storeLatency: LatencyHistogram;
  webhookDuration: Histogram<"event">;
  /** Markers read from GitHub and not trusted (unsigned, forged, misplaced, outside the App's comments). */
  markersRejected: Counter;
  /** Notification delivery tries by result (sent, failed and retried, dropped) and event. */
  notificationDeliveries: Counter<"result" | "event">;
  /** Deliveries in the notification outbox (due, waiting for a retry, or being sent), as a sender last saw it. */
  notificationOutboxDepth: Gauge;
  /** Counts a finished sweep (its actions, whether it halted, how long it took). */
  observeSweep(report: SweepReport): void;
  /**
   * Reads the claims-by-state gauge's counts from the fleet now, as the background refresh does
   * (a no-op until `collectInBackground` sets it). Rejects when the read fails.
   */
  refreshClaims: () => Promise<void>;
}

/** What the background read of the fleet counts. */
export interface ClaimsCount {
  counts: Partial<Record<DerivedState, number>>;
  /** One id per held claim whose holder asks for a person (subject and generation: a new claim asks anew). */
  needsHuman: readonly string[];
}

export interface MetricsSources {
  /** Claims per derived state, read from the store by the background refresh (by a scrape only before the first count). */
  claimsByState: () => Promise<ClaimsCount>;
  /** GitHub requests made so far, by kind (RequestMeter.totals). */
  githubRequests: () => ReadonlyMap<string, number>;
  now: () => number;
  log: Logger;
  /** Seconds between refreshes of the claims gauge while it is scraped (default `claimsRefreshSeconds`). */
  refreshSeconds?: number;
}

/**
 * The claims gauge is refreshed at most this often. Derived states move with the clock (§2.2), so
 * counters kept by transitions could not say "stale"; a read of every claim per scrape costs the
 * store 100 ms and more at 10,000 claims, so the read is a background one, made only while scraped.
 */
export const claimsRefreshSeconds = 30;

/** The prefix of prom-client's default process metrics: `claim_hold_process_cpu_seconds_total`, `claim_hold_nodejs_heap_size_used_bytes`. */
export const processMetricsPrefix = "claim_hold_";

/** How long the first scrape waits for the first count (joining the one under way) before it answers without it. */
const firstScrapeWaitMs = 5_000;

/** Tries of the start-up count before its failure is logged (about a minute with the backoff). */
const firstCountAttempts = 10;

const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The App's metrics on a registry of its own. Long only because it is the list of declarations, one per metric. */
export function createMetrics(): ClaimHoldMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Heap, event-loop lag, GC, file descriptors…: prom-client's, on this registry only (each App has
  // its own), prefixed like every metric the App serves.
  collectDefaultMetrics({ register: registry, prefix: processMetricsPrefix });
  const janitorSweeps = new Counter({
    name: "claim_hold_janitor_sweeps_total",
    help: "Janitor sweeps, by result (ok, failed).",
    labelNames: ["result"],
    registers,
  });
  const janitorActions = new Counter({
    name: "claim_hold_janitor_actions_total",
    help: "Janitor actions reported by sweeps, by action (relabel-stale, reap, repair, deferred).",
    labelNames: ["action"],
    registers,
  });
  const janitorHalts = new Counter({
    name: "claim_hold_janitor_halts_total",
    help: "Sweeps in which the disruption guard halted reaping for at least one installation.",
    registers,
  });
  const janitorPaused = new Gauge({
    name: "claim_hold_janitor_paused_installations",
    help: "Installations an operator paused the janitor for, as the last sweep found them.",
    registers,
  });
  const janitorDuration = new Histogram({
    name: "claim_hold_janitor_sweep_duration_seconds",
    help: "Duration of janitor sweeps.",
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
    registers,
  });
  const heartbeatTallies = new Map<string, { count: number }>();
  new Counter({
    name: "claim_hold_heartbeats_total",
    help: "Heartbeats answered by the store, by outcome (ok, superseded, gone, invalid_token, missing).",
    labelNames: ["outcome"],
    registers,
    collect() {
      this.reset();
      for (const [outcome, tally] of heartbeatTallies) this.inc({ outcome }, tally.count);
    },
  });
  // Whole micro-dollars, so the sum stays exact however many reports add to it.
  const spend = { micros: 0 };
  new Counter({
    name: "claim_hold_spend_usd_total",
    help: "Dollars agents reported spending on their subjects (heartbeat usage.costUsd), every subject and generation together.",
    registers,
    collect() {
      this.reset();
      this.inc(spend.micros / 1_000_000);
    },
  });
  return {
    registry,
    countSpend(addedMicros) {
      spend.micros += addedMicros;
    },
    countHeartbeat(outcome) {
      const tally = heartbeatTallies.get(outcome);
      if (tally) tally.count++;
      else heartbeatTallies.set(outcome, { count: 1 });
    },
    transitions: new Counter({
      name: "claim_hold_transitions_total",
      help: "Claim transitions made in the store, by kind (claimed, reclaimed, released, reaped, …).",
      labelNames: ["kind"],
      registers,
    }),
    janitorSweeps,
    janitorActions,
    janitorHalts,
    janitorPaused,
    janitorDuration,
    rateLimitRemaining: new Gauge({
      name: "claim_hold_github_rate_limit_remaining",
      help: "x-ratelimit-remaining of the last GitHub response the App received.",
      registers,
    }),
    rateLimitLimit: new Gauge({
      name: "claim_hold_github_rate_limit_limit",
      help: "x-ratelimit-limit of the last GitHub response the App received (0 before the first).",
      registers,
    }),
    http: new HttpMetrics(registry),
    refusals: new Counter({
      name: "claim_hold_refusals_total",
      help: "Refusals the API answered (4xx and 503 with an error code), by code (unauthorized, claim_state_unknown, rate_limited, …).",
      labelNames: ["code"],
      registers,
    }),
    githubWritesQueued: new Gauge({
      name: "claim_hold_github_writes_queued",
      help: "Transitions waiting for their installation's GitHub mutation in flight; they go in the next one, batched.",
      registers,
    }),
    storeLatency: new LatencyHistogram({
      name: "claim_hold_store_command_duration_seconds",
      help: "Latency of claim store calls (one Redis round trip or script each, mostly), by method.",
      buckets: latencyBuckets,
      registry,
    }),
    webhookDuration: new Histogram({
      name: "claim_hold_webhook_duration_seconds",
      help: "Time spent handling a webhook, by event (event.action).",
      labelNames: ["event"],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    markersRejected: new Counter({
      name: "claim_hold_markers_rejected_total",
      help: "Claim markers read from GitHub and ignored: unsigned, forged, misplaced or outside the App's claim comments",
      registers,
    }),
    notificationDeliveries: new Counter({
      name: "claim_hold_notification_deliveries_total",
      help: "Notification delivery tries, by result (sent; failed, to be retried; dropped: out of tries, sink gone, or never queued) and event.",
      labelNames: ["result", "event"],
      registers,
    }),
    notificationOutboxDepth: new Gauge({
      name: "claim_hold_notification_outbox_depth",
      help: "Deliveries in the notification outbox (due, waiting to be retried, or being sent), as this replica's sender last counted them.",
      registers,
    }),
    observeSweep(report) {
      janitorSweeps.inc({ result: "ok" });
      for (const action of report.actions) janitorActions.inc({ action: action.action });
      if (report.halted) janitorHalts.inc();
      janitorPaused.set(report.pausedInstallations.length);
      janitorDuration.observe(report.durationMs / 1000);
    },
    refreshClaims: async () => undefined,
  };
}

/**
 * Adds the gauges fed by the App's parts once they exist: the claims by state, counted by a
 * background read of the fleet every `refreshSeconds` while `/metrics` is scraped (a scrape itself
 * serves the last counts from memory and reads no claim, unless no count was made yet), how long
 * claims have asked for a person, and the request meter's totals.
 * Returns the stop of the refresh timer (it is unref'd: it never keeps the process alive).
 */
export function collectInBackground(metrics: ClaimHoldMetrics, sources: MetricsSources): () => void {
  const registers = [metrics.registry];
  const refreshSeconds = sources.refreshSeconds ?? claimsRefreshSeconds;
  let counts: Partial<Record<DerivedState, number>> | null = null;
  let askingSince = new Map<string, number>();
  let refreshedAt: number | null = null;
  let scrapedSinceRefresh = false;
  // A scrape before the first count (the App just started, or the store was still connecting) joins
  // it, or makes it, rather than answer gauges without samples (the three gauges share one read).
  const untilCounted = async () => {
    if (counts === null) await waitAtMost(refresh(), firstScrapeWaitMs);
  };
  let refreshing: Promise<void> | null = null;
  new Gauge({
    name: "claim_hold_claims",
    help: `Held claims by derived state (active, waiting, stale, reclaimable, human, …), counted by a background read of the store at start-up and every ${refreshSeconds} s while scraped (a scrape reads no claim once the first count is made; a scrape before it waits for it); claim_hold_claims_refreshed_timestamp_seconds says when.`,
    labelNames: ["state"],
    registers,
    async collect() {
      scrapedSinceRefresh = true;
      await untilCounted();
      this.reset();
      for (const [state, count] of Object.entries(counts ?? {})) this.set({ state }, count ?? 0);
    },
  });
  new Gauge({
    name: "claim_hold_claims_refreshed_timestamp_seconds",
    help: "When claim_hold_claims was last counted (Unix seconds; 0 before the first refresh).",
    registers,
    async collect() {
      await untilCounted();
      this.set(refreshedAt === null ? 0 : refreshedAt / 1000);
    },
  });
  new Gauge({
    name: "claim_hold_needs_human_oldest_seconds",
    help: "Seconds since the oldest held claim that asks for a person (needs-human) was first counted asking (by the claims gauge's background count; 0 when none asks).",
    registers,
    async collect() {
      await untilCounted();
      this.set(oldestAskSeconds(askingSince, sources.now()));
    },
  });
  new Counter({
    name: "claim_hold_github_requests_total",
    help: "GitHub requests the App made, by kind.",
    labelNames: ["kind"],
    registers,
    collect() {
      this.reset();
      for (const [kind, total] of sources.githubRequests()) this.inc({ kind }, total);
    },
  });
  // One read at a time: a refresh asked for while one runs shares its result.
  const refresh = () => {
    refreshing ??= (async () => {
      try {
        const at = sources.now();
        const counted = await sources.claimsByState();
        counts = counted.counts;
        askingSince = needsHumanAges(askingSince, counted.needsHuman, at);
        refreshedAt = at;
        scrapedSinceRefresh = false;
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  };
  metrics.refreshClaims = refresh;
  const refreshLogged = () =>
    refresh().catch((error: unknown) =>
      sources.log.warn({ err: error }, "could not count the claims for the metrics; the last counts stand"),
    );
  // Counted once at start-up, so the first scrape has counts; after that only while scraped. The store
  // may still be connecting then: the first count is tried again, with backoff, until one succeeds.
  let firstCount: NodeJS.Timeout;
  const countFirst = (attempt: number) => {
    firstCount = setTimeout(
      () => {
        refresh().catch((error: unknown) => {
          if (attempt >= firstCountAttempts) {
            sources.log.warn(
              { err: error },
              "could not count the claims for the metrics; the last counts stand",
            );
            return;
          }
          countFirst(attempt + 1);
        });
      },
      attempt === 0 ? 0 : Math.min(250 * 2 ** attempt, 10_000),
    );
    firstCount.unref();
  };
  countFirst(0);
  const timer = setInterval(() => {
    if (scrapedSinceRefresh) refreshLogged();
  }, refreshSeconds * 1000);
  timer.unref();
  return () => {
    clearTimeout(firstCount);
    clearInterval(timer);
  };
}

/** Resolves when `work` settles or after `ms`, whichever is first; never rejects (the caller serves what it has). */
async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([work.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `claim_hold_ready{check}`: `/readyz`'s checks (store, credentials, janitor), made at each scrape
 * (one store ping), 1 when the check passes, 0 when not.
 */
export function collectReadiness(
  metrics: ClaimHoldMetrics,
  ready: () => Promise<{ checks: Record<string, string> }>,
): void {
  new Gauge({
    name: "claim_hold_ready",
    help: "The App's readiness checks as /readyz makes them (store, credentials, janitor), by check: 1 passes, 0 fails.",
    labelNames: ["check"],
    registers: [metrics.registry],
    async collect() {
      const { checks } = await ready();
      this.reset();
      for (const [check, result] of Object.entries(checks)) this.set({ check }, result === "ok" ? 1 : 0);
    },
  });
}
