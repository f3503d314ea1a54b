// HTTP RED metrics (requests, errors, duration) by method, route template and status, allocation-free per request.
import { Counter, type Registry } from "prom-client";
import { LatencyHistogram, type LatencySeries } from "./latency-histogram.js";

/** One method and route template, bound once; a request observes its status and duration on it. */
export interface HttpRouteSeries {
  observe(status: number, seconds: number): void;
}

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The method label: the standard methods as they are, anything else a client sent folds into `OTHER`. */
export function methodLabel(method: string): string {
  return knownMethods.has(method) ? method : "OTHER";
}

const statusClasses = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"];

/** `2xx`, `4xx`, …: the duration histogram's status label (the counter keeps the exact code). */
export function statusClassOf(status: number): string {
  return (status >= 100 && status < 600 && statusClasses[Math.floor(status / 100)]) || "other";
}

interface RouteTally {
  labels: { method: string; route: string };
  series: HttpRouteSeries;
  /** Requests by exact status code. */
  codes: Map<number, { count: number }>;
  /** The duration series per status class, made on first use. */
  durations: Map<string, LatencySeries>;
}

/** From 1 ms (a heartbeat answered from memory) to 10 s (a claim waiting on GitHub and the write lock). */
export const httpDurationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * `claim_hold_http_requests_total{method,route,status}` and
 * `claim_hold_http_request_duration_seconds{method,route,status_class}` on `registry`. A request
 * adds to plain numbers of its bound series (a heartbeat's series is bound once, at start-up); the
 * samples are built at scrape.
 */
export class HttpMetrics {
  readonly #routes = new Map<string, RouteTally>();
  readonly #durations: LatencyHistogram;

  constructor(registry: Registry) {
    const routes = this.#routes;
    new Counter({
      name: "claim_hold_http_requests_total",
      help: "HTTP requests the App's API, dashboard and metrics answered, by method, route template (unmatched: no route) and status code.",
      labelNames: ["method", "route", "status"],
      registers: [registry],
      collect() {
        this.reset();
        for (const tally of routes.values()) {
          for (const [status, { count }] of tally.codes) this.inc({ ...tally.labels, status }, count);
        }
      },
    });
    this.#durations = new LatencyHistogram({
      name: "claim_hold_http_request_duration_seconds",
      help: "Time from a request's arrival to its answer, by method, route template and status class.",
      buckets: httpDurationBuckets,
      registry,
    });
  }

  /** The series of `method` (any string: folded by methodLabel) and a route template, made on first use. */
  route(method: string, route: string): HttpRouteSeries {
    const label = methodLabel(method);
    const key = `${label} ${route}`;
    const known = this.#routes.get(key);
    if (known) return known.series;
    const durations = this.#durations;
    const bound: RouteTally = {
      labels: { method: label, route },
      codes: new Map(),
      durations: new Map(),
      series: {
        observe(status, seconds) {
          const code = bound.codes.get(status);
          if (code) code.count++;
          else bound.codes.set(status, { count: 1 });
          const statusClass = statusClassOf(status);
          let series = bound.durations.get(statusClass);
          if (!series) {
            series = durations.series({ ...bound.labels, status_class: statusClass });
            bound.durations.set(statusClass, series);
          }
          series.observe(seconds);
        },
      },
    };
    this.#routes.set(key, bound);
    return bound.series;
  }
}
