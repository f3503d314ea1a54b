// The allocation-free store latency histogram prints exactly what prom-client's Histogram prints for the same calls.
import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { LatencyHistogram } from "../../src/metrics/latency-histogram.js";

const buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

describe("LatencyHistogram", () => {
  it("scrapes as prom-client's Histogram does: buckets at their bounds, +Inf, sum, count, unobserved series left out", async () => {
    const reference = new Registry();
    const ours = new Registry();
    const histogram = new Histogram({
      name: "claim_hold_store_command_duration_seconds",
      help: "Latency of claim store calls.",
      labelNames: ["method", "result"],
      buckets,
      registers: [reference],
    });
    const latency = new LatencyHistogram({
      name: "claim_hold_store_command_duration_seconds",
      help: "Latency of claim store calls.",
      buckets,
      registry: ours,
    });
    const bound = new Map<string, { observe(seconds: number): void }>();
    const observations: [string, string, number][] = [
      ["heartbeat", "ok", 0.0003],
      ["heartbeat", "ok", 0.0005],
      ["heartbeat", "ok", 0.5],
      ["get", "error", 3],
      ["get", "ok", 0.0049],
    ];
    latency.series({ method: "release", result: "ok" }); // bound, never observed
    for (const [method, result, seconds] of observations) {
      histogram.labels(method, result).observe(seconds);
      const key = `${method}/${result}`;
      if (!bound.has(key)) bound.set(key, latency.series({ method, result }));
      bound.get(key)!.observe(seconds);
    }
    expect(await ours.metrics()).toBe(await reference.metrics());
    expect(await ours.metrics()).toContain(
      'claim_hold_store_command_duration_seconds_bucket{le="0.0005",method="heartbeat",result="ok"} 2',
    );
    ours.resetMetrics();
    reference.resetMetrics();
    expect(await ours.metrics()).toBe(await reference.metrics());
  });
});
