// The metric names a real running App's /metrics serves, read from its `# TYPE` lines.
import { collectDefaultMetrics, Registry } from "prom-client";
import { processMetricsPrefix } from "../../src/metrics/create-metrics.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { startApp } from "./app-harness.js";

export interface ServedMetric {
  name: string;
  type: string;
}

/** Starts an App, scrapes /metrics once and closes it. */
export async function scrapeServedMetrics(): Promise<ServedMetric[]> {
  const app = await startApp({ stores: createMemoryStores() });
  try {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({
      name: name!,
      type: type!,
    }));
  } finally {
    await app.close();
  }
}

/** Every series name a scrape can show: a histogram's `_bucket`, `_sum` and `_count`, a summary's too. */
export function seriesNamesOf(served: readonly ServedMetric[]): Set<string> {
  const names = new Set<string>();
  for (const { name, type } of served) {
    names.add(name);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
    if (type === "summary") for (const suffix of ["_sum", "_count"]) names.add(name + suffix);
  }
  return names;
}

/** The names prom-client's default process metrics take on the App's registry (prefixed), from a registry of their own. */
export async function processMetricNames(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: processMetricsPrefix });
  return new Set((await registry.getMetricsAsJSON()).map((metric) => metric.name));
}
