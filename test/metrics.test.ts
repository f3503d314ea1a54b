// /metrics and /readyz: per-App Prometheus registry, METRICS_TOKEN, and readiness that fails for the right reasons.
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { mapStores } from "../src/providers/stores.js";
import { type AppHarness, startApp, testAdminToken } from "./support/app-harness.js";
import { minute, seedAgentClaim, seedHumanClaim } from "./support/seed-claims.js";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const harnesses: AppHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

async function start(options: Parameters<typeof startApp>[0]): Promise<AppHarness> {
  const harness = await startApp({ now: T0, ...options });
  harnesses.push(harness);
  return harness;
}

function sample(text: string, name: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : undefined;
}

describe("GET /metrics", () => {
  it("counts heartbeats, transitions, claims by state and store latency on the App's own registry", async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const app = await start({ stores });
    const other = await start({ stores: createMemoryStores() });
    const claim = await seedAgentClaim(stores, {
      key: { installationId: 7, repoId: 1001, issue: 1 },
      repo: "acme/widgets",
      actor: { login: "octo-agent", runtime: "codex", sessionId: "s-1" },
      now: T0 - minute,
    });
    await seedAgentClaim(stores, {
      key: { installationId: 7, repoId: 1001, issue: 2 },
      repo: "acme/widgets",
      actor: { login: "octo-agent", runtime: "codex", sessionId: "s-2" },
      now: T0 - minute,
    });
    const beat = await fetch(`${app.url}/api/v1/leases/${claim.leaseId}/heartbeat`, {
      method: "POST",
      headers: { authorization: `Bearer ${claim.token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(beat.status).toBe(200);
    app.clock.now = T0 + 45 * minute; // claim 2 (no heartbeat since T0 - 1 min) is stale now
    await app.services.metrics.refreshClaims(); // the background refresh, which a scrape never makes
    const response = await fetch(`${app.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(sample(text, 'claim_hold_heartbeats_total{outcome="ok"}')).toBe(1);
    expect(sample(text, 'claim_hold_claims{state="stale"}')).toBe(2);
    expect(text).toMatch(
      /claim_hold_store_command_duration_seconds_count\{method="heartbeat",result="ok"\} 1/,
    );
    expect(text).toContain("# TYPE claim_hold_github_requests_total counter");
    expect(text).toContain("# TYPE claim_hold_webhook_duration_seconds histogram");
    expect(text).toContain("# TYPE claim_hold_janitor_sweep_duration_seconds histogram");
    expect(text).toContain("claim_hold_github_rate_limit_remaining");
    // Another App in the same process has its own registry: nothing of the first leaks into it.
    const otherText = await (await fetch(`${other.url}/metrics`)).text();
    expect(otherText).not.toContain('claim_hold_heartbeats_total{outcome="ok"}');
  });

  it("serves the claims gauge from memory: a scrape of many claims makes no store call, a refresh counts the fleet", async () => {
    const memory = createMemoryStores({ now: () => T0 });
    const widgets = { installationId: 7, repoId: 1001 };
    for (let issue = 1; issue <= 120; issue++) {
      // Three ages of heartbeat: active, stale and reclaimable by the time the gauge is counted.
      const age = [1, 40, 70][issue % 3]! * minute;
      await seedAgentClaim(memory, {
        key: { ...widgets, issue },
        repo: "acme/widgets",
        actor: { login: `agent-${issue % 4}`, runtime: "codex", sessionId: `s-${issue}` },
        now: T0 - age,
      });
    }
    for (let issue = 121; issue <= 125; issue++) {
      await seedHumanClaim(memory, {
        key: { ...widgets, issue },
        repo: "acme/widgets",
        login: "maintainer",
        now: T0,
      });
    }
    const calls: string[] = [];
    const counted = mapStores(
      memory,
      (store) =>
        new Proxy(store, {
          get(target, property, receiver) {
            const value = Reflect.get(target, property, receiver);
            if (typeof value !== "function") return value;
            return (...args: unknown[]) => {
              calls.push(String(property));
              return value.apply(target, args);
            };
          },
        }),
    );
    const app = await start({ stores: counted, adminToken: testAdminToken });
    const gauge = async () => {
      calls.length = 0;
      const text = await (await fetch(`${app.url}/metrics`)).text();
      // The readiness gauge's store ping is the scrape's only store call.
      expect(calls).toStrictEqual(["ping"]);
      const counts: Record<string, number> = {};
      for (const [, state, value] of text.matchAll(/^claim_hold_claims\{state="([a-z_]+)"\} (\d+)$/gm)) {
        counts[state!] = Number(value);
      }
      return { counts, refreshedAt: sample(text, "claim_hold_claims_refreshed_timestamp_seconds") };
    };
    expect(await (await fetch(`${app.url}/metrics`)).text()).toContain("counted by a background read");
    // The count made at start-up (joined here if it still runs), or one made now.
    calls.length = 0;
    await app.services.metrics.refreshClaims();
    if (calls.length > 0) expect(calls).toContain("listRepository");
    const login = await fetch(`${app.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: testAdminToken }).toString(),
      redirect: "manual",
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    const fleetCounts = async () =>
      (
        (await (await fetch(`${app.url}/dashboard/fleet.json`, { headers: { cookie } })).json()) as {
          counts: Record<string, number>;
        }
      ).counts;
    const first = await gauge();
    expect(first.refreshedAt).toBe(T0 / 1000);
    expect(first.counts).toStrictEqual(await fleetCounts());
    expect(Object.values(first.counts).reduce((a, b) => a + b, 0)).toBe(125);
    expect(Object.keys(first.counts).length).toBeGreaterThanOrEqual(3);

    // Time moves the derived states; the scrape keeps serving the last counts until the next refresh.
    app.clock.now = T0 + 50 * minute;
    expect((await gauge()).counts).toStrictEqual(first.counts);
    await app.services.metrics.refreshClaims();
    const later = await gauge();
    expect(later.refreshedAt).toBe((T0 + 50 * minute) / 1000);
    expect(later.counts).toStrictEqual(await fleetCounts());
    expect(later.counts).not.toStrictEqual(first.counts);
  });

  it("serves prom-client's process metrics, prefixed claim_hold_, on every App's own registry", async () => {
    const first = await start({ stores: createMemoryStores() });
    const second = await start({ stores: createMemoryStores() });
    for (const app of [first, second]) {
      const text = await (await fetch(`${app.url}/metrics`)).text();
      expect(text).toContain("# TYPE claim_hold_process_cpu_user_seconds_total counter");
      expect(text).toContain("# TYPE claim_hold_nodejs_heap_size_used_bytes gauge");
      expect(text).toContain("# TYPE claim_hold_nodejs_eventloop_lag_p99_seconds gauge");
      expect(text).toContain("# TYPE claim_hold_nodejs_gc_duration_seconds histogram");
      expect(sample(text, "claim_hold_process_resident_memory_bytes")).toBeGreaterThan(0);
    }
  });

  it("requires METRICS_TOKEN as a Bearer credential when it is set", async () => {
    const app = await start({ stores: createMemoryStores(), metricsToken: "metrics-secret-123" });
    expect((await fetch(`${app.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${app.url}/metrics`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${app.url}/metrics`, {
      headers: { authorization: "Bearer metrics-secret-123" },
    });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("claim_hold_claims");
  });

  it("times webhook handling by event", async () => {
    const app = await start({ stores: createMemoryStores() });
    const delivered = await app.deliver("issues", {
      action: "unlabeled",
      issue: {
        number: 1,
        labels: [],
        assignees: [],
        state: "open",
        node_id: "I_1",
        title: "t",
        user: { login: "u", type: "User" },
      },
      label: { name: "bug" },
      repository: { id: 1001, full_name: "acme/widgets", name: "widgets", owner: { login: "acme" } },
      installation: { id: 7 },
      sender: { login: "someone", type: "User" },
    });
    expect(delivered.status).toBe(200);
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toMatch(/claim_hold_webhook_duration_seconds_count\{event="issues\.unlabeled"\} [1-9]/);
  });
});

describe("GET /readyz", () => {
  it("is ready with a reachable store, credentials and a healthy janitor", async () => {
    const app = await start({ stores: createMemoryStores() });
    const response = await fetch(`${app.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual({
      status: "ready",
      checks: { store: "ok", credentials: "ok", janitor: "ok" },
    });
  });

  it("fails when the credentials are missing, and claim_hold_ready says which check failed", async () => {
    const app = await start({ stores: createMemoryStores(), credentialsLoaded: false });
    const response = await fetch(`${app.url}/readyz`);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { checks: object }).checks).toMatchObject({ credentials: "missing" });
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(sample(metrics, 'claim_hold_ready{check="credentials"}')).toBe(0);
    expect(sample(metrics, 'claim_hold_ready{check="store"}')).toBe(1);
    expect(sample(metrics, 'claim_hold_ready{check="janitor"}')).toBe(1);
  });

  it("fails when the store is unreachable, and when the janitor leader's sweeps failed three times running", async () => {
    const down = { value: false };
    const memory = createMemoryStores();
    // A store that knows its installation: a sweep with nothing due asks GitHub nothing.
    await memory.installations.rememberInstallation(7);
    const flaky = mapStores(
      memory,
      (store) =>
        new Proxy(store, {
          get(target, property, receiver) {
            const value = Reflect.get(target, property, receiver);
            if (typeof value !== "function") return value;
            return (...args: unknown[]) => {
              if (down.value && (property === "ping" || property === "installations")) {
                return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6379"));
              }
              return value.apply(target, args);
            };
          },
        }),
    );
    const app = await start({ stores: flaky });
    down.value = true;
    let body = (await (await fetch(`${app.url}/readyz`)).json()) as { checks: Record<string, string> };
    expect(body.checks).toMatchObject({ store: "unreachable", janitor: "ok" });

    for (let i = 0; i < 2; i++) expect(await app.services.jobs.tick("janitor")).toBe(false);
    down.value = false; // the store answers pings again, but installations() keeps failing below
    const installations = memory.installations.installations.bind(memory.installations);
    memory.installations.installations = () => Promise.reject(new Error("janitor blew up"));
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200); // two failures: not yet
    expect(await app.services.jobs.tick("janitor")).toBe(false);
    const failing = await fetch(`${app.url}/readyz`);
    expect(failing.status).toBe(503);
    body = (await failing.json()) as { checks: Record<string, string> };
    expect(body.checks).toStrictEqual({ store: "ok", credentials: "ok", janitor: "failing" });
    memory.installations.installations = installations;
    expect(await app.services.jobs.tick("janitor")).toBe(true);
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(sample(metrics, 'claim_hold_janitor_sweeps_total{result="failed"}')).toBe(3);
    expect(sample(metrics, 'claim_hold_janitor_sweeps_total{result="ok"}')).toBe(1);
  });
});
