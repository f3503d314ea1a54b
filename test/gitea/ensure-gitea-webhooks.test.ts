// The ensure pass against the Gitea simulator: the App's hook created or fixed on each repository the bot administers, each with its own secret, exact requests, idempotent, stopped by its signal.
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deriveGiteaWebhookSecret } from "../../src/config/gitea-config.js";
import { ensureGiteaWebhooks } from "../../src/providers/gitea/ensure-gitea-webhooks.js";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";
import { hookSecretOf } from "../../src/providers/gitea/gitea-hook-secret.js";
import { giteaHookEvents, hookUrlOf } from "../../src/providers/gitea/plan-gitea-webhook.js";
import type { SimRepo } from "../../tools/gitea-sim/index.js";
import { botLogin, botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
const endpoint = "https://claim-hold.example.com/api/gitea/webhooks";
const secret = deriveGiteaWebhookSecret(botToken);
const want = { endpoint, instanceSecret: secret };
/** What the App's hook on `repo` carries: that repository's own secret, its fingerprint in the URL. */
const hookOf = (repo: SimRepo, instanceSecret = secret) => {
  const own = hookSecretOf(instanceSecret, repo.id);
  return { secret: own, url: hookUrlOf({ endpoint, secret: own }) };
};

let fixture: GiteaSimFixture;
let client: GiteaClient;
/** Writes that went through the client's write limiter. */
let limited: number;
let logs: string[];
let log: pino.Logger;
let stale: SimRepo;
let foreign: SimRepo;
let readOnly: SimRepo;

beforeEach(async () => {
  fixture = await startGiteaSimFixture(clock);
  const { state } = fixture.sim;
  limited = 0;
  client = new GiteaClient({
    baseUrl: fixture.sim.url,
    token: botToken,
    writeLimiter: {
      run: (call) => {
        limited++;
        return call();
      },
    },
  });
  logs = [];
  log = pino({ level: "debug" }, { write: (line: string) => logs.push(line) });
  // octo/widgets (the fixture's): the bot is admin, no hook yet.
  stale = state.addRepo("octo/stale", { [botLogin]: "admin" });
  stale.hooks.push({
    id: state.nextId(),
    type: "gitea",
    active: false,
    events: ["push"],
    url: endpoint,
    contentType: "form",
    secret: "a-hand-made-secret-0000",
    branchFilter: "",
    createdAt: clock.now,
    updatedAt: clock.now,
  });
  foreign = state.addRepo("octo/foreign", { [botLogin]: "admin" });
  foreign.hooks.push({
    id: state.nextId(),
    type: "gitea",
    active: true,
    events: ["push"],
    url: "https://ci.example.com/hook",
    contentType: "json",
    secret: "ci-secret",
    branchFilter: "",
    createdAt: clock.now,
    updatedAt: clock.now,
  });
  readOnly = state.addRepo("octo/read-only", { [botLogin]: "write" });
});
afterEach(() => fixture.sim.close());

const theAppsHook = (repo: SimRepo) => repo.hooks.filter((hook) => hook.url.startsWith(endpoint));

describe("ensureGiteaWebhooks", () => {
  it("creates or fixes exactly one App hook per administered repository, leaves other hooks and other repositories alone", async () => {
    const mark = fixture.sim.requests.length;
    const report = await ensureGiteaWebhooks({ client, log }, want);
    expect(report).toEqual({
      repositories: 3,
      created: 2,
      edited: 1,
      deleted: 0,
      unchanged: 0,
      notAdmin: 1,
      failed: 0,
    });
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /user/repos",
      "GET /repos/{owner}/{repo}/hooks",
      "POST /repos/{owner}/{repo}/hooks",
      "GET /repos/{owner}/{repo}/hooks",
      "PATCH /repos/{owner}/{repo}/hooks/{id}",
      "GET /repos/{owner}/{repo}/hooks",
      "POST /repos/{owner}/{repo}/hooks",
    ]);
    expect(limited).toBe(3);
    for (const repo of [fixture.repo, stale, foreign]) {
      expect(theAppsHook(repo)).toEqual([
        expect.objectContaining({
          type: "gitea",
          active: true,
          ...hookOf(repo),
          contentType: "json",
          branchFilter: "*",
          events: expect.arrayContaining([...giteaHookEvents]),
        }),
      ]);
    }
    expect(foreign.hooks.find((hook) => hook.url === "https://ci.example.com/hook")).toMatchObject({
      secret: "ci-secret",
      events: ["push"],
    });
    expect(readOnly.hooks).toEqual([]);
    expect(
      fixture.sim.requests.slice(mark).filter((r) => r.path.startsWith("/repos/octo/read-only")),
    ).toEqual([]);
  });

  it("a second pass with nothing changed makes only the list reads", async () => {
    await ensureGiteaWebhooks({ client, log }, want);
    const mark = fixture.sim.requests.length;
    const writes = limited;
    const report = await ensureGiteaWebhooks({ client, log }, want);
    expect(report).toMatchObject({
      repositories: 3,
      created: 0,
      edited: 0,
      deleted: 0,
      unchanged: 3,
      notAdmin: 1,
    });
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /user/repos",
      "GET /repos/{owner}/{repo}/hooks",
      "GET /repos/{owner}/{repo}/hooks",
      "GET /repos/{owner}/{repo}/hooks",
    ]);
    expect(limited).toBe(writes);
  });

  it("a rotated token re-writes each App hook's secret once; a hook someone narrowed gets its events back", async () => {
    await ensureGiteaWebhooks({ client, log }, want);
    const [narrowed] = theAppsHook(fixture.repo);
    if (!narrowed) throw new Error("no hook");
    narrowed.events = ["push"];
    const rotated = {
      endpoint,
      instanceSecret: deriveGiteaWebhookSecret("gitea-sim-bot-token-rotated-000000"),
    };
    const mark = fixture.sim.requests.length;
    expect(await ensureGiteaWebhooks({ client, log }, rotated)).toMatchObject({ edited: 3, unchanged: 0 });
    expect(fixture.sim.routesSince(mark).filter((route) => route.startsWith("PATCH"))).toHaveLength(3);
    for (const repo of [fixture.repo, stale, foreign]) {
      expect(theAppsHook(repo)).toEqual([expect.objectContaining(hookOf(repo, rotated.instanceSecret))]);
    }
    expect(narrowed.events).toEqual(expect.arrayContaining([...giteaHookEvents]));
    expect(await ensureGiteaWebhooks({ client, log }, rotated)).toMatchObject({ edited: 0, unchanged: 3 });
  });

  it("deletes a duplicate App hook: deliveries would arrive twice", async () => {
    await ensureGiteaWebhooks({ client, log }, want);
    const { state } = fixture.sim;
    fixture.repo.hooks.push({
      ...fixture.repo.hooks[0]!,
      id: state.nextId(),
      url: endpoint,
      secret: "another-secret-00000000",
    });
    const report = await ensureGiteaWebhooks({ client, log }, want);
    expect(report).toMatchObject({ deleted: 1, unchanged: 2 });
    expect(theAppsHook(fixture.repo)).toHaveLength(1);
  });

  it("a repository whose hook cannot be written is logged without the secret and retried at the next pass", async () => {
    fixture.sim.failNext("POST /repos/{owner}/{repo}/hooks", 500);
    const first = await ensureGiteaWebhooks({ client, log }, want);
    expect(first).toMatchObject({ created: 1, edited: 1, failed: 1 });
    const warned = logs.filter((line) => line.includes("could not ensure the App's Gitea webhook"));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('"repository":"octo/widgets"');
    expect(logs.join("\n")).not.toContain(secret);
    expect(logs.join("\n")).not.toContain(hookOf(stale).secret);
    expect(logs.join("\n")).not.toContain(botToken);
    const second = await ensureGiteaWebhooks({ client, log }, want);
    expect(second).toMatchObject({ created: 1, failed: 0, unchanged: 2 });
    expect(theAppsHook(fixture.repo)).toHaveLength(1);
  });

  it("reads every page of the repository list", async () => {
    fixture.sim.state.addUser("bulk");
    for (let i = 0; i < 50; i++) fixture.sim.state.addRepo(`bulk/r${i}`, { reader: "read" });
    const mark = fixture.sim.requests.length;
    const report = await ensureGiteaWebhooks({ client, log }, want);
    expect(report).toMatchObject({ repositories: 3, notAdmin: 51 });
    expect(
      fixture.sim.requests
        .slice(mark)
        .filter((r) => r.path === "/user/repos")
        .map((r) => r.query),
    ).toEqual(["?page=1&limit=50", "?page=2&limit=50"]);
  });
});

describe("each repository's hook has a secret of its own", () => {
  it("no two repositories' hooks share one, and none carries the instance secret", async () => {
    await ensureGiteaWebhooks({ client, log }, want);
    const secrets = [fixture.repo, stale, foreign].map((repo) => theAppsHook(repo)[0]?.secret);
    expect(secrets).toEqual([hookOf(fixture.repo).secret, hookOf(stale).secret, hookOf(foreign).secret]);
    expect(new Set(secrets).size).toBe(3);
    expect(secrets).not.toContain(secret);
  });

  it("hooks keyed with the one instance secret (before this) are re-keyed once by the next pass", async () => {
    const shared = { endpoint, secret };
    for (const repo of [fixture.repo, stale, foreign]) {
      repo.hooks = repo.hooks.filter((hook) => !hook.url.startsWith(endpoint));
      repo.hooks.push({
        id: fixture.sim.state.nextId(),
        type: "gitea",
        active: true,
        events: [...giteaHookEvents],
        url: hookUrlOf(shared),
        contentType: "json",
        secret,
        branchFilter: "*",
        createdAt: clock.now,
        updatedAt: clock.now,
      });
    }
    const mark = fixture.sim.requests.length;
    expect(await ensureGiteaWebhooks({ client, log }, want)).toMatchObject({
      edited: 3,
      created: 0,
      deleted: 0,
    });
    expect(fixture.sim.routesSince(mark).filter((route) => !route.startsWith("GET"))).toEqual([
      "PATCH /repos/{owner}/{repo}/hooks/{id}",
      "PATCH /repos/{owner}/{repo}/hooks/{id}",
      "PATCH /repos/{owner}/{repo}/hooks/{id}",
    ]);
    for (const repo of [fixture.repo, stale, foreign]) {
      expect(theAppsHook(repo)).toEqual([expect.objectContaining(hookOf(repo))]);
    }
    expect(await ensureGiteaWebhooks({ client, log }, want)).toMatchObject({ edited: 0, unchanged: 3 });
  });

  it("a branch filter set on the App's hook is cleared: Gitea would drop other branches' pushes", async () => {
    await ensureGiteaWebhooks({ client, log }, want);
    const [hook] = theAppsHook(fixture.repo);
    if (!hook) throw new Error("no hook");
    hook.branchFilter = "main";
    expect(await ensureGiteaWebhooks({ client, log }, want)).toMatchObject({ edited: 1, unchanged: 2 });
    expect(hook.branchFilter).toBe("*");
  });
});

describe("an aborted pass (the job lost its lock)", () => {
  it("stops between repositories: nothing after the write that saw the abort", async () => {
    const controller = new AbortController();
    const aborting = new GiteaClient({
      baseUrl: fixture.sim.url,
      token: botToken,
      writeLimiter: {
        run: async (call) => {
          const answer = await call();
          controller.abort(new Error("lost the lock"));
          return answer;
        },
      },
    });
    const mark = fixture.sim.requests.length;
    await expect(ensureGiteaWebhooks({ client: aborting, log }, want, controller.signal)).rejects.toThrow(
      "lost the lock",
    );
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /user/repos",
      "GET /repos/{owner}/{repo}/hooks",
      "POST /repos/{owner}/{repo}/hooks",
    ]);
    expect(theAppsHook(stale)[0]).toMatchObject({ active: false });
  });

  it("stops between the writes of one repository", async () => {
    const { state } = fixture.sim;
    // Two App hooks, neither current: the oldest edited, then the other deleted.
    for (const hook of [1, 2]) {
      fixture.repo.hooks.push({
        id: state.nextId(),
        type: "gitea",
        active: true,
        events: ["push"],
        url: `${endpoint}?fingerprint=old${hook}`,
        contentType: "json",
        secret: `old-${hook}`,
        branchFilter: "",
        createdAt: clock.now,
        updatedAt: clock.now,
      });
    }
    const controller = new AbortController();
    const aborting = new GiteaClient({
      baseUrl: fixture.sim.url,
      token: botToken,
      writeLimiter: {
        run: async (call) => {
          const answer = await call();
          controller.abort(new Error("lost the lock"));
          return answer;
        },
      },
    });
    const mark = fixture.sim.requests.length;
    await expect(ensureGiteaWebhooks({ client: aborting, log }, want, controller.signal)).rejects.toThrow(
      "lost the lock",
    );
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /user/repos",
      "GET /repos/{owner}/{repo}/hooks",
      "PATCH /repos/{owner}/{repo}/hooks/{id}",
    ]);
    expect(theAppsHook(fixture.repo)).toHaveLength(2);
  });

  it("an already aborted signal reads nothing", async () => {
    const mark = fixture.sim.requests.length;
    await expect(
      ensureGiteaWebhooks({ client, log }, want, AbortSignal.abort(new Error("stopped"))),
    ).rejects.toThrow("stopped");
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });
});
