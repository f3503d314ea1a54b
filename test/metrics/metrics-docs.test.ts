// docs/deploy.md documents every metric a running App's /metrics serves: each claim_hold_* one by name,
// prom-client's default process metrics as one group (and nothing else is served besides them).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { collectDefaultMetrics, Registry } from "prom-client";
import { beforeAll, describe, expect, it } from "vitest";
import { type ServedMetric, scrapeServedMetrics } from "../support/served-metrics.js";

const deployDoc = readFileSync(resolve(import.meta.dirname, "../../docs/deploy.md"), "utf8");

/** The names prom-client's collectDefaultMetrics registers, from a registry of its own. */
async function defaultMetricNames(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return new Set((await registry.getMetricsAsJSON()).map((metric) => metric.name));
}

describe("docs/deploy.md's metrics", () => {
  let served: ServedMetric[];
  beforeAll(async () => {
    served = await scrapeServedMetrics();
  });

  it("names every claim_hold metric the App serves, HTTP ones included", () => {
    const ours = served.map(({ name }) => name).filter((name) => name.startsWith("claim_hold_"));
    expect(ours).toEqual(
      expect.arrayContaining([
        "claim_hold_http_requests_total",
        "claim_hold_http_request_duration_seconds",
        "claim_hold_spend_usd_total",
        "claim_hold_markers_rejected_total",
      ]),
    );
    expect(ours.filter((name) => !deployDoc.includes(`\`${name}\``))).toEqual([]);
  });

  it("documents the rest as prom-client's default process metrics, and serves nothing else", async () => {
    const defaults = await defaultMetricNames();
    const others = served.map(({ name }) => name).filter((name) => !name.startsWith("claim_hold_"));
    expect(others.length).toBeGreaterThan(10);
    expect(others.filter((name) => !defaults.has(name))).toEqual([]);
    expect(deployDoc).toContain("prom-client default process metrics: `process_*` and `nodejs_*`");
    expect(others.filter((name) => !/^(process|nodejs)_/.test(name))).toEqual([]);
  });
});
