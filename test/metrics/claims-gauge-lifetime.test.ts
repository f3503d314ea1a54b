// The claims gauge's background count: made once at start-up (the first scrape has counts) and stopped with the App.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { mapStores } from "../../src/providers/stores.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { minute, seedAgentClaim } from "../support/seed-claims.js";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const harnesses: AppHarness[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

function sample(text: string, name: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : undefined;
}

describe("the claims gauge's background count", () => {
  it("counts the store's claims at start-up, so a scrape has them before any scrape asked for a count", async () => {
    const stores = createMemoryStores({ now: () => T0 });
    await seedAgentClaim(stores, {
      key: { installationId: 7, repoId: 1001, issue: 1 },
      repo: "acme/widgets",
      actor: { login: "octo-agent", runtime: "codex", sessionId: "s-1" },
      now: T0 - minute,
    });
    const app = await startApp({ stores, now: T0 });
    harnesses.push(app);
    let text = "";
    for (let i = 0; i < 100; i++) {
      text = await (await fetch(`${app.url}/metrics`)).text();
      if (sample(text, "claim_hold_claims_refreshed_timestamp_seconds")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(sample(text, "claim_hold_claims_refreshed_timestamp_seconds")).toBe(T0 / 1000);
    expect(sample(text, 'claim_hold_claims{state="active"}')).toBe(1);
  });

  it("has the live claims on the first scrape when the start-up count failed (the store was still connecting)", async () => {
    const memory = createMemoryStores({ now: () => T0 });
    for (let issue = 1; issue <= 6; issue++) {
      await seedAgentClaim(memory, {
        key: { installationId: 7, repoId: 1001, issue },
        repo: "acme/widgets",
        actor: { login: "octo-agent", runtime: "codex", sessionId: `s-${issue}` },
        now: T0 - minute,
      });
    }
    const store = { connecting: true };
    let firstCountFailed!: () => void;
    const countFailed = new Promise<void>((resolve) => {
      firstCountFailed = resolve;
    });
    const connecting = mapStores(
      memory,
      (part) =>
        new Proxy(part, {
          get(target, property, receiver) {
            const value = Reflect.get(target, property, receiver);
            if (typeof value !== "function") return value;
            if (property !== "installations") return value.bind(target);
            return (...args: unknown[]) => {
              if (!store.connecting) return value.apply(target, args);
              firstCountFailed();
              return Promise.reject(new Error("Connection is not established yet"));
            };
          },
        }),
    );
    const app = await startApp({ stores: connecting, now: T0 });
    harnesses.push(app);
    await countFailed; // the start-up count failed; its retry waits for its backoff
    store.connecting = false;
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(sample(text, 'claim_hold_claims{state="active"}')).toBe(6);
    expect(sample(text, "claim_hold_claims_refreshed_timestamp_seconds")).toBe(T0 / 1000);
  });

  it("leaves no metrics timer running once the App is closed", async () => {
    const started: unknown[] = [];
    const cleared = new Set<unknown>();
    const realSetInterval = globalThis.setInterval;
    const realClearInterval = globalThis.clearInterval;
    const realClearTimeout = globalThis.clearTimeout;
    vi.spyOn(globalThis, "setInterval").mockImplementation(((
      fn: () => void,
      ms?: number,
      ...rest: unknown[]
    ) => {
      const handle = realSetInterval(fn, ms, ...rest);
      if (ms === 30_000) started.push(handle);
      return handle;
    }) as typeof setInterval);
    vi.spyOn(globalThis, "clearInterval").mockImplementation(((handle?: NodeJS.Timeout) => {
      cleared.add(handle);
      realClearInterval(handle);
    }) as typeof clearInterval);
    vi.spyOn(globalThis, "clearTimeout").mockImplementation(((handle?: NodeJS.Timeout) => {
      cleared.add(handle);
      realClearTimeout(handle);
    }) as typeof clearTimeout);
    const app = await startApp({ stores: createMemoryStores() });
    await fetch(`${app.url}/metrics`);
    await app.close();
    const leftRunning = started.filter((handle) => !cleared.has(handle));
    for (const handle of leftRunning) realClearInterval(handle as NodeJS.Timeout);
    expect(started.length).toBeGreaterThan(0);
    expect(leftRunning).toHaveLength(0);
  });
});
