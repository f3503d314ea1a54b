// The ensure pass against the Gitea simulator: the App's hook created or fixed on each repository the bot administers, exact requests, idempotent.
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deriveGiteaWebhookSecret } from "../../src/config/gitea-config.js";
import { ensureGiteaWebhooks } from "../../src/providers/gitea/ensure-gitea-webhooks.js";
import { GiteaClient } from "../../src/providers/gitea/gitea-client.js";
import { giteaHookEvents, hookUrlOf } from "../../src/providers/gitea/plan-gitea-webhook.js";
import type { SimRepo } from "../../tools/gitea-sim/index.js";
import { botLogin, botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
const endpoint = "https://claim-hold.example.com/api/gitea/webhooks";
const secret = deriveGiteaWebhookSecret(botToken);
const want = { endpoint, secret };

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
          url: hookUrlOf(want),
          contentType: "json",
          secret,
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
    const rotated = { endpoint, secret: deriveGiteaWebhookSecret("gitea-sim-bot-token-rotated-000000") };
    const mark = fixture.sim.requests.length;
    expect(await ensureGiteaWebhooks({ client, log }, rotated)).toMatchObject({ edited: 3, unchanged: 0 });
    expect(fixture.sim.routesSince(mark).filter((route) => route.startsWith("PATCH"))).toHaveLength(3);
    for (const repo of [fixture.repo, stale, foreign]) {
      expect(theAppsHook(repo)).toEqual([
        expect.objectContaining({ secret: rotated.secret, url: hookUrlOf(rotated) }),
      ]);
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
