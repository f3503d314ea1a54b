// HttpMetrics' series: bound once per method and route, scraped as prom-client's Counter and Histogram print the same requests.
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { HttpMetrics, httpDurationBuckets } from "../../src/metrics/http-metrics.js";

describe("HttpMetrics", () => {
  it("hands out one series per method and route, folding unknown methods", () => {
    const metrics = new HttpMetrics(new Registry());
    expect(metrics.route("POST", "/x")).toBe(metrics.route("POST", "/x"));
    expect(metrics.route("PROPFIND", "/x")).toBe(metrics.route("MKCOL", "/x"));
    expect(metrics.route("GET", "/x")).not.toBe(metrics.route("POST", "/x"));
  });

  it("scrapes as prom-client's Counter and Histogram print the same requests", async () => {
    const ours = new Registry();
    const metrics = new HttpMetrics(ours);
    const requests: [string, string, number, number][] = [
      ["POST", "/api/v1/leases/:leaseId/heartbeat", 200, 0.003],
      ["POST", "/api/v1/leases/:leaseId/heartbeat", 200, 0.0004],
      ["POST", "/api/v1/leases/:leaseId/heartbeat", 503, 2],
      ["GET", "unmatched", 404, 0.0001],
      ["PROPFIND", "unmatched", 404, 12],
    ];
    for (const [method, route, status, seconds] of requests)
      metrics.route(method, route).observe(status, seconds);

    const reference = new Registry();
    const [counterMetric, histogramMetric] = await ours.getMetricsAsJSON();
    const counter = new Counter({
      name: "claim_hold_http_requests_total",
      help: counterMetric!.help,
      labelNames: ["method", "route", "status"],
      registers: [reference],
    });
    const histogram = new Histogram({
      name: "claim_hold_http_request_duration_seconds",
      help: histogramMetric!.help,
      labelNames: ["method", "route", "status_class"],
      buckets: httpDurationBuckets,
      registers: [reference],
    });
    const expected: [string, string, number, string, number][] = [
      ["POST", "/api/v1/leases/:leaseId/heartbeat", 200, "2xx", 0.003],
      ["POST", "/api/v1/leases/:leaseId/heartbeat", 200, "2xx", 0.0004],
      ["POST", "/api/v1/leases/:leaseId/heartbeat", 503, "5xx", 2],
      ["GET", "unmatched", 404, "4xx", 0.0001],
      ["OTHER", "unmatched", 404, "4xx", 12],
    ];
    for (const [method, route, status, statusClass, seconds] of expected) {
      counter.inc({ method, route, status });
      histogram.observe({ method, route, status_class: statusClass }, seconds);
    }
    expect(await ours.metrics()).toBe(await reference.metrics());
  });
});
