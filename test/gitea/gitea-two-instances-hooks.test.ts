// The App's own webhooks on two Gitea instances: a pass per instance, each hook's URL naming its instance (`?instance=N`), signed with its own secret; a delivery to that URL is its instance's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../../src/config/env.js";
import { type GiteaConfig, giteaConfigsOf } from "../../src/config/gitea-config.js";
import { hookSecretOf } from "../../src/providers/gitea/gitea-hook-secret.js";
import { hookUrlOf } from "../../src/providers/gitea/plan-gitea-webhook.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
const publicUrl = "https://claim-hold.example.com";
const secondToken = "gitea-sim-second-bot-token-000001";
let one: GiteaSimFixture;
let two: GiteaSimFixture;
let configs: GiteaConfig[];
let app: AppHarness;

const hookRoutes = (fixture: GiteaSimFixture) =>
  fixture.sim.routesSince(0).filter((route) => route.includes("/hooks") || route === "GET /user/repos");

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

beforeAll(async () => {
  one = await startGiteaSimFixture(clock);
  two = await startGiteaSimFixture(clock);
  // Instance 2's bot has its own token, so its derived webhook secret is its own.
  two.sim.state.addUser("claim-hold-bot-2", secondToken);
  two.repo.permissions.set("claim-hold-bot-2", "admin");
  const raw = {
    GITEA_URL: one.sim.url,
    GITEA_TOKEN: botToken,
    GITEA_WRITE_SPACING_MS: "0",
    GITEA_URL_2: two.sim.url,
    GITEA_TOKEN_2: secondToken,
    GITEA_WRITE_SPACING_MS_2: "0",
  };
  configs = giteaConfigsOf(parseEnv(raw), raw);
  const [first, second] = configs as [GiteaConfig, GiteaConfig];
  app = await startApp({ stores: createMemoryStores(), now: clock.now, publicUrl, gitea: [first, second] });
  await until(() => app.logs.filter((line) => line.includes("Gitea webhooks ensured")).length === 2);
});
afterAll(async () => {
  await app?.close();
  await one?.sim.close();
  await two?.sim.close();
});

describe("the App's own webhooks on two instances", () => {
  it("registers a hook on each instance, its URL naming the instance, signed with its repository's secret under that instance's", () => {
    const [first, second] = configs as [GiteaConfig, GiteaConfig];
    expect(first.webhookSecret).not.toBe(second.webhookSecret);
    for (const [fixture, config] of [
      [one, first],
      [two, second],
    ] as const) {
      expect(hookRoutes(fixture)).toEqual([
        "GET /user/repos",
        "GET /repos/{owner}/{repo}/hooks",
        "POST /repos/{owner}/{repo}/hooks",
      ]);
      const secret = hookSecretOf(config.webhookSecret, fixture.repo.id);
      expect(fixture.repo.hooks).toEqual([
        expect.objectContaining({
          url: hookUrlOf({
            endpoint: `${publicUrl}/api/gitea/webhooks?instance=${config.installationId}`,
            secret,
          }),
          secret,
          active: true,
        }),
      ]);
    }
    expect(one.repo.hooks[0]?.url).toMatch(/\/api\/gitea\/webhooks\?instance=1&fingerprint=[0-9a-f]{16}$/);
    // Each pass is its own job and says which instance it ensured.
    const ensured = app.logs
      .filter((line) => line.includes("Gitea webhooks ensured"))
      .map((line) => (JSON.parse(line) as { instance?: number }).instance);
    expect(ensured.sort()).toEqual([1, 2]);
    const logged = app.logs.join("\n");
    for (const secret of [first.webhookSecret, second.webhookSecret, botToken, secondToken]) {
      expect(logged).not.toContain(secret);
    }
  });

  it("a delivery to each registered hook's URL is accepted; instance 2's signature under instance 1's URL is refused", async () => {
    const local = (fixture: GiteaSimFixture) => {
      const url = new URL(fixture.repo.hooks[0]?.url ?? "");
      return `${app.url}${url.pathname}${url.search}`;
    };
    const [first, second] = configs as [GiteaConfig, GiteaConfig];
    for (const [fixture, config] of [
      [one, first],
      [two, second],
    ] as const) {
      const issue = fixture.sim.state.addIssue(fixture.repo, { title: "Hooked", author: "octo" });
      const comment = fixture.sim.state.addComment(issue, "octo", "a plain comment");
      const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "octo");
      const delivered = await fixture.sim.deliver({
        url: local(fixture),
        secret: hookSecretOf(config.webhookSecret, fixture.repo.id),
        event: "issue_comment",
        payload,
      });
      expect(delivered.status).toBe(200);
    }
    const issue = two.sim.state.addIssue(two.repo, { title: "Crossed", author: "octo" });
    const comment = two.sim.state.addComment(issue, "octo", "a plain comment");
    const crossed = await two.sim.deliver({
      url: local(one),
      secret: hookSecretOf(second.webhookSecret, two.repo.id),
      event: "issue_comment",
      payload: two.sim.payloads.issueComment(two.repo, issue, comment.id, "octo"),
    });
    expect(crossed.status).toBe(401);
  });
});
