// docs/deploy.md documents every metric a running App's /metrics serves: each claim_hold_* one by name,
// prom-client's default process metrics (prefixed claim_hold_ too) as one group; nothing else is served.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { processMetricNames, type ServedMetric, scrapeServedMetrics } from "../support/served-metrics.js";

const deployDoc = readFileSync(resolve(import.meta.dirname, "../../docs/deploy.md"), "utf8");

describe("docs/deploy.md's metrics", () => {
  let served: string[];
  let processMetrics: Set<string>;
  beforeAll(async () => {
    served = (await scrapeServedMetrics()).map(({ name }: ServedMetric) => name);
    processMetrics = await processMetricNames();
  });

  it("serves only names prefixed claim_hold_ (the contract's), process metrics included", () => {
    expect(served.filter((name) => !name.startsWith("claim_hold_"))).toEqual([]);
    expect([...processMetrics].filter((name) => !served.includes(name))).toEqual([]);
  });

  it("names every claim_hold metric the App serves, HTTP ones included", () => {
    const ours = served.filter((name) => !processMetrics.has(name));
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

  it("documents the process metrics as prom-client's default group", () => {
    expect(processMetrics.size).toBeGreaterThan(10);
    expect(deployDoc).toContain(
      "prom-client default process metrics: `claim_hold_process_*` and `claim_hold_nodejs_*`",
    );
    expect([...processMetrics].filter((name) => !/^claim_hold_(process|nodejs)_/.test(name))).toEqual([]);
  });
});
