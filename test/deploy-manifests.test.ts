// The Kubernetes manifests in deploy/k8s: every object validates against the Kubernetes API schemas
// (kubernetes-models), and they fit the App: probes on /readyz and /healthz, the Service reaching the pods,
// only variables the App reads, every secret key the Secret's shape names.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { Env } from "../src/config/env.js";

const dir = resolve(import.meta.dirname, "../deploy/k8s");

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** Every YAML document of deploy/k8s, with the file it came from. */
function manifests(): { file: string; object: K8sObject }[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".yaml"))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), "utf8")).map((doc) => {
        expect(doc.errors, file).toEqual([]);
        return { file, object: doc.toJS() as K8sObject };
      }),
    );
}

/** The kubernetes-models module of an apiVersion: `apps/v1` → apps/v1, `v1` → v1. */
async function modelOf(object: K8sObject): Promise<new (data: unknown) => { validate(): void }> {
  const module = (await import(`kubernetes-models/${object.apiVersion}`)) as Record<string, unknown>;
  const model = module[object.kind];
  if (typeof model !== "function") throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  return model as new (
    data: unknown,
  ) => { validate(): void };
}

const all = manifests();
const kubernetes = all.filter(({ object }) => object.apiVersion !== "kustomize.config.k8s.io/v1beta1");
const find = (kind: string, name: string) => {
  const found = all.find(({ object }) => object.kind === kind && object.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/k8s`);
  // biome-ignore lint/suspicious/noExplicitAny: free-form YAML; each test reads the few fields it pins
  return found.object as K8sObject & Record<string, any>;
};

describe("deploy/k8s", () => {
  it.each(kubernetes.map(({ file, object }) => [`${file}: ${object.kind} ${object.metadata.name}`, object]))(
    "%s validates against the Kubernetes schema",
    async (_, object) => {
      const Model = await modelOf(object as K8sObject);
      expect(() => new Model(object).validate()).not.toThrow();
    },
  );

  it("the schema check bites: a wrong type is refused", async () => {
    const deployment = structuredClone(find("Deployment", "claim-hold"));
    deployment.spec.replicas = "three";
    const Model = await modelOf(deployment);
    expect(() => new Model(deployment).validate()).toThrow(/replicas must be integer/);
  });

  it("the kustomization lists every manifest but the Secret's example", () => {
    const kustomization = all.find(({ object }) => object.kind === "Kustomization")?.object as
      | { resources: string[] }
      | undefined;
    const files = readdirSync(dir).filter(
      (file) => file.endsWith(".yaml") && !["kustomization.yaml", "secret.example.yaml"].includes(file),
    );
    expect([...(kustomization?.resources ?? [])].sort()).toEqual(files.sort());
  });

  it("probes readiness on /readyz and liveness on /healthz, on the container's port", () => {
    const pod = find("Deployment", "claim-hold").spec.template.spec;
    const [container] = pod.containers;
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.ports).toEqual([{ name: "http", containerPort: 3000 }]);
    expect(find("ConfigMap", "claim-hold").data.PORT).toBe("3000");
    // Longer than the App's 10 s drain after SIGTERM.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(10);
    expect(pod.securityContext.runAsUser).toBe(1000);
  });

  it("the Service selects the Deployment's pods on the named port", () => {
    const deployment = find("Deployment", "claim-hold");
    const service = find("Service", "claim-hold");
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(deployment.spec.selector.matchLabels).toEqual(service.spec.selector);
    expect(service.spec.ports[0].targetPort).toBe("http");
    const redis = find("Service", "claim-hold-redis");
    expect(find("StatefulSet", "claim-hold-redis").spec.template.metadata.labels).toMatchObject(
      redis.spec.selector,
    );
  });

  it("sets only variables the App reads, secrets from the Secret whose example names every key", () => {
    const known = new Set([...Object.keys(Env.shape), "NODE_ENV"]);
    const container = find("Deployment", "claim-hold").spec.template.spec.containers[0];
    const fromSecret = (
      container.env as { name: string; valueFrom: { secretKeyRef: { key: string } } }[]
    ).map((entry) => entry.valueFrom.secretKeyRef.key);
    const names = [...fromSecret, ...Object.keys(find("ConfigMap", "claim-hold").data)];
    expect(names.filter((name) => !known.has(name))).toEqual([]);
    expect(Object.keys(find("Secret", "claim-hold").stringData).sort()).toEqual([...fromSecret].sort());
  });
});
