// deploy/monitoring: the PrometheusRule and ServiceMonitor have the Prometheus Operator's shape, every
// alert and dashboard query is well-formed PromQL, and every metric they read is one a running App serves.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { lintPromQL } from "./support/promql-lint.js";
import {
  processMetricNames,
  type ServedMetric,
  scrapeServedMetrics,
  seriesNamesOf,
} from "./support/served-metrics.js";

const dir = resolve(import.meta.dirname, "../deploy/monitoring");
const k8sDir = resolve(import.meta.dirname, "../deploy/k8s");

function documentsOf(path: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(path, "utf8")).map((doc) => {
    expect(doc.errors, path).toEqual([]);
    return doc.toJS() as Record<string, unknown>;
  });
}

const Metadata = z.strictObject({
  name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
  labels: z.record(z.string(), z.string()).optional(),
});
const Duration = z.string().regex(/^(\d+(ms|s|m|h|d|w|y))+$/);

/** The PrometheusRule CRD's fields this file uses, strict: a misspelt field (`for_`, `annotation`) is refused. */
const PrometheusRule = z.strictObject({
  apiVersion: z.literal("monitoring.coreos.com/v1"),
  kind: z.literal("PrometheusRule"),
  metadata: Metadata,
  spec: z.strictObject({
    groups: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          interval: Duration.optional(),
          rules: z
            .array(
              z.strictObject({
                alert: z.string().regex(/^[A-Z][A-Za-z0-9]*$/),
                expr: z.string().min(1),
                for: Duration.optional(),
                labels: z.strictObject({ severity: z.enum(["critical", "warning", "info"]) }),
                annotations: z.strictObject({ summary: z.string().min(1), description: z.string().min(1) }),
              }),
            )
            .min(1),
        }),
      )
      .min(1),
  }),
});

const ServiceMonitor = z.strictObject({
  apiVersion: z.literal("monitoring.coreos.com/v1"),
  kind: z.literal("ServiceMonitor"),
  metadata: Metadata,
  spec: z.strictObject({
    selector: z.strictObject({ matchLabels: z.record(z.string(), z.string()) }),
    endpoints: z
      .array(
        z.strictObject({
          port: z.string(),
          path: z.string(),
          interval: Duration,
          scrapeTimeout: Duration,
          authorization: z.strictObject({
            type: z.literal("Bearer"),
            credentials: z.strictObject({ name: z.string(), key: z.string() }),
          }),
        }),
      )
      .min(1),
  }),
});

const GrafanaDashboard = z.object({
  title: z.string(),
  uid: z.string().regex(/^[a-zA-Z0-9_-]{1,40}$/),
  panels: z.array(
    z.object({
      id: z.number().int(),
      type: z.string(),
      title: z.string().min(1),
      gridPos: z.object({ h: z.number(), w: z.number().max(24), x: z.number(), y: z.number() }),
      targets: z
        .array(z.object({ refId: z.string(), expr: z.string().min(1), legendFormat: z.string().optional() }))
        .optional(),
    }),
  ),
});

const rule = PrometheusRule.parse(documentsOf(join(dir, "prometheus-rule.yaml"))[0]);
const monitor = ServiceMonitor.parse(documentsOf(join(dir, "service-monitor.yaml"))[0]);
const dashboard = GrafanaDashboard.parse(
  JSON.parse(readFileSync(join(dir, "grafana-dashboard.json"), "utf8")),
);
const alerts = rule.spec.groups.flatMap((group) => group.rules);
const panelQueries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
);

describe("lintPromQL", () => {
  it.each([
    ["sum by (le) (rate(a_bucket[5m]))", [], ["a_bucket"]],
    ['x{code="claim_state_unknown"} > 0 unless y > 0.10', [], ["x", "y"]],
    ["sum(rate(a[5m])", ["unclosed brackets: )"], ["a"]],
    ["rate(a)", ["rate needs a range vector: a"], ["a"]],
    ["rates(a[5m])", ["unknown function rates"], ["a"]],
    ["increase(a[5 minutes])", ["bad range: [5 minutes]"], ["a"]],
    ["a{check=janitor}", ["bad label matcher: check=janitor"], ["a"]],
    ['rate(a{status=~"[45].."}[5m])', [], ["a"]],
  ])("%s", (expr, errors, metrics) => {
    expect(lintPromQL(expr)).toStrictEqual({ errors, metrics });
  });
});

describe("deploy/monitoring", () => {
  let served: ServedMetric[];
  let names: Set<string>;
  beforeAll(async () => {
    served = await scrapeServedMetrics();
    names = seriesNamesOf(served);
  });

  it("names each alert once, and has the alerts the runbook needs", () => {
    const alertNames = alerts.map((a) => a.alert);
    expect(new Set(alertNames).size).toBe(alertNames.length);
    expect(alertNames).toEqual(
      expect.arrayContaining([
        "ClaimHoldJanitorHalted",
        "ClaimHoldJanitorFailing",
        "ClaimHoldNotReady",
        "ClaimHoldAbsent",
        "ClaimHoldGitHubRateLimitLow",
        "ClaimHoldNotificationOutboxGrowing",
        "ClaimHoldClaimStateUnknown",
        "ClaimHoldNeedsHumanWaiting",
      ]),
    );
  });

  it.each(alerts.map((a) => [a.alert, a.expr]))("alert %s is well-formed PromQL", (_, expr) => {
    expect(lintPromQL(expr).errors).toEqual([]);
  });

  it.each(alerts.map((a) => [a.alert, a.annotations]))(
    "alert %s's annotations use only $labels and $value, through Prometheus' humanize functions",
    (_, annotations) => {
      const placeholder =
        /^\{\{\s*(\$labels\.[a-z_]+|\$value)(\s*\|\s*(humanize|humanizePercentage|humanizeDuration))?\s*\}\}$/;
      const text = Object.values(annotations).join("\n");
      expect((text.match(/\{\{/g) ?? []).length).toBe((text.match(/\}\}/g) ?? []).length);
      for (const [found] of text.matchAll(/\{\{.*?\}\}/g)) expect(found).toMatch(placeholder);
    },
  );

  it.each(panelQueries.map((q) => [q.panel, q.expr]))("panel %s queries well-formed PromQL", (_, expr) => {
    expect(lintPromQL(expr).errors).toEqual([]);
  });

  it("every metric an alert or a panel reads is one the App's /metrics serves", () => {
    const read = [...alerts.map((a) => a.expr), ...panelQueries.map((q) => q.expr)].flatMap(
      (expr) => lintPromQL(expr).metrics,
    );
    expect(read.length).toBeGreaterThan(20);
    expect([...new Set(read)].filter((name) => !names.has(name))).toEqual([]);
    // The check bites: a name the App does not serve is reported.
    expect(lintPromQL("claim_hold_claim_total > 0").metrics.filter((name) => !names.has(name))).toEqual([
      "claim_hold_claim_total",
    ]);
  });

  it("every claim_hold metric the App serves is on the dashboard (prom-client's process metrics: some)", async () => {
    const processMetrics = await processMetricNames();
    const onDashboard = new Set(panelQueries.flatMap((q) => lintPromQL(q.expr).metrics));
    const missing = served
      .map(({ name, type }) => (type === "histogram" ? `${name}_bucket` : name))
      .filter((name) => !processMetrics.has(name.replace(/_bucket$/, "")))
      .filter((name) => name.startsWith("claim_hold_") && !onDashboard.has(name))
      .filter((name) => name !== "claim_hold_claims_refreshed_timestamp_seconds");
    expect(missing).toEqual([]);
  });

  it("the dashboard's panels have unique ids and read the datasource variable", () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    const raw = JSON.parse(readFileSync(join(dir, "grafana-dashboard.json"), "utf8")) as {
      panels: { type: string; datasource?: { uid: string } }[];
    };
    // Grafana's variable syntax, not a template literal.
    const datasourceVariable = ["$", "{datasource}"].join("");
    for (const panel of raw.panels.filter((p) => p.type !== "row")) {
      expect(panel.datasource?.uid).toBe(datasourceVariable);
    }
  });

  it("the ServiceMonitor scrapes the App's Service (not Redis's) on its named port, with METRICS_TOKEN", () => {
    const services = readdirSync(k8sDir)
      .filter((file) => file.endsWith(".yaml"))
      .flatMap((file) => documentsOf(join(k8sDir, file)))
      .filter((object) => object.kind === "Service") as {
      metadata: { name: string; labels?: Record<string, string> };
      spec: { ports: { name: string }[] };
    }[];
    const selected = services.filter((service) =>
      Object.entries(monitor.spec.selector.matchLabels).every(
        ([label, value]) => service.metadata.labels?.[label] === value,
      ),
    );
    expect(selected.map((service) => service.metadata.name)).toEqual(["claim-hold"]);
    const [endpoint] = monitor.spec.endpoints;
    expect(selected[0]!.spec.ports.map((port) => port.name)).toContain(endpoint!.port);
    expect(endpoint!.path).toBe("/metrics");
    const secret = documentsOf(join(k8sDir, "secret.example.yaml"))[0] as {
      metadata: { name: string };
      stringData: Record<string, string>;
    };
    expect(endpoint!.authorization.credentials).toEqual({ name: secret.metadata.name, key: "METRICS_TOKEN" });
    expect(Object.keys(secret.stringData)).toContain("METRICS_TOKEN");
  });

  it("the kustomization applies the rule and the ServiceMonitor, and ships the dashboard as Grafana's ConfigMap", () => {
    const [kustomization] = documentsOf(join(dir, "kustomization.yaml")) as {
      resources: string[];
      configMapGenerator: { files: string[]; options: { labels: Record<string, string> } }[];
    }[];
    const yamlFiles = readdirSync(dir).filter(
      (file) => file.endsWith(".yaml") && file !== "kustomization.yaml",
    );
    expect([...kustomization!.resources].sort()).toEqual(yamlFiles.sort());
    expect(kustomization!.configMapGenerator[0]!.files).toEqual(["claim-hold.json=grafana-dashboard.json"]);
    expect(kustomization!.configMapGenerator[0]!.options.labels).toEqual({ grafana_dashboard: "1" });
  });
});
