// The App registers its own Gitea webhooks: two variables and a public URL, a pass at start, deliveries signed with the derived secret accepted.
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv } from "../../src/config/env.js";
import { type GiteaConfig, giteaConfigOf } from "../../src/config/gitea-config.js";
import { JobRegistry, jobLockNames } from "../../src/janitor/job-registry.js";
import { ensureGiteaWebhooks } from "../../src/providers/gitea/ensure-gitea-webhooks.js";
import { hookSecretOf } from "../../src/providers/gitea/gitea-hook-secret.js";
import { hookUrlOf } from "../../src/providers/gitea/plan-gitea-webhook.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import { giteaWebhookJob, registerGiteaWebhookJob } from "../../src/wiring/gitea-webhook-registration.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
const publicUrl = "https://claim-hold.example.com";
let fixture: GiteaSimFixture;
let app: AppHarness | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
  await fixture.sim.close();
});

/** The instance as `GITEA_URL` and `GITEA_TOKEN` alone configure it (`GITEA_MANAGE_WEBHOOKS` optional). */
function twoVariables(extra: Record<string, string> = {}): GiteaConfig {
  const config = giteaConfigOf(
    parseEnv({ GITEA_URL: fixture.sim.url, GITEA_TOKEN: botToken, GITEA_WRITE_SPACING_MS: "0", ...extra }),
  );
  if (!config) throw new Error("no Gitea config");
  return config;
}

const hookRoutes = (mark: number) =>
  fixture.sim.routesSince(mark).filter((route) => route.includes("/hooks") || route === "GET /user/repos");

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe("the App's own Gitea webhooks", () => {
  it("with CLAIM_HOLD_PUBLIC_URL, a pass at start registers the hook, with the repository's own secret derived from the token", async () => {
    fixture = await startGiteaSimFixture(clock);
    const mark = fixture.sim.requests.length;
    const gitea = twoVariables();
    app = await startApp({ stores: createMemoryStores(), now: clock.now, publicUrl, gitea });
    await until(() => app?.logs.some((line) => line.includes("Gitea webhooks ensured")) === true);
    expect(hookRoutes(mark)).toEqual([
      "GET /user/repos",
      "GET /repos/{owner}/{repo}/hooks",
      "POST /repos/{owner}/{repo}/hooks",
    ]);
    const own = hookSecretOf(gitea.webhookSecret, fixture.repo.id);
    expect(fixture.repo.hooks).toEqual([
      expect.objectContaining({
        url: hookUrlOf({ endpoint: `${publicUrl}/api/gitea/webhooks`, secret: own }),
        secret: own,
        active: true,
      }),
    ]);
    const logged = app.logs.join("\n");
    expect(logged).not.toContain(gitea.webhookSecret);
    expect(logged).not.toContain(own);
    expect(logged).not.toContain(botToken);
  });

  it("without CLAIM_HOLD_PUBLIC_URL: no pass, one warning naming the variable (with GITEA_WEBHOOK_SECRET given, the hooks made by hand: an info line)", async () => {
    fixture = await startGiteaSimFixture(clock);
    const mark = fixture.sim.requests.length;
    app = await startApp({ stores: createMemoryStores(), now: clock.now, gitea: twoVariables() });
    const warnings = app.logs.filter((line) => line.includes("Gitea webhooks are not registered"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("CLAIM_HOLD_PUBLIC_URL is not set");
    expect(warnings[0]).toContain('"level":40');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hookRoutes(mark)).toEqual([]);
    await app.close();
    const given = twoVariables({ GITEA_WEBHOOK_SECRET: "a-hand-made-secret-0000" });
    app = await startApp({ stores: createMemoryStores(), now: clock.now, gitea: given });
    const lines = app.logs.filter((line) => line.includes("Gitea webhooks are not registered"));
    expect(lines).toEqual([expect.stringContaining('"level":30')]);
    expect(lines[0]).toContain("GITEA_MANAGE_WEBHOOKS=0");
  });

  it("GITEA_MANAGE_WEBHOOKS=0: no pass and no warning (the hooks are made by hand with GITEA_WEBHOOK_SECRET)", async () => {
    fixture = await startGiteaSimFixture(clock);
    const mark = fixture.sim.requests.length;
    const gitea = twoVariables({
      GITEA_MANAGE_WEBHOOKS: "0",
      GITEA_WEBHOOK_SECRET: "a-hand-made-secret-0000",
    });
    app = await startApp({ stores: createMemoryStores(), now: clock.now, publicUrl, gitea });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hookRoutes(mark)).toEqual([]);
    expect(app.logs.some((line) => line.includes("Gitea webhooks"))).toBe(false);
  });

  it("a delivery to the registered hook, signed with its repository's secret, is accepted; one signed with another secret is refused", async () => {
    fixture = await startGiteaSimFixture(clock);
    const gitea = twoVariables();
    // The App's pass needs its own URL, known once it listens: the same pass, run with it.
    app = await startApp({ stores: createMemoryStores(), now: clock.now, gitea });
    const endpoint = `${app.url}/api/gitea/webhooks`;
    const log = pino({ level: "silent" });
    expect(
      await ensureGiteaWebhooks(
        { client: fixture.client, log },
        { endpoint, instanceSecret: gitea.webhookSecret },
      ),
    ).toMatchObject({
      created: 1,
    });
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "Hooked", author: "octo" });
    const comment = fixture.sim.state.addComment(issue, "octo", "a plain comment");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "octo");
    const delivered = await fixture.sim.deliverToHooks(fixture.repo, { event: "issue_comment", payload });
    expect(delivered).toEqual([expect.objectContaining({ status: 200 })]);
    const [hook] = fixture.repo.hooks;
    const forged = await fixture.sim.deliver({
      url: hook?.url ?? "",
      secret: "another-secret-0000000000",
      event: "issue_comment",
      payload,
    });
    expect(forged.status).toBe(401);
  });
});

describe("the ensure job", () => {
  it("stops its pass when its run loses the lock: the writes it had not made yet are not made", async () => {
    fixture = await startGiteaSimFixture(clock);
    const stores = createMemoryStores();
    const registry = new JobRegistry({ store: stores.locks, log: pino({ level: "silent" }), now: Date.now });
    const registered = registerGiteaWebhookJob(registry, {
      config: twoVariables(),
      client: fixture.client,
      publicUrl,
      log: pino({ level: "silent" }),
    });
    expect(registered).not.toBeNull();
    const held = fixture.sim.hold({ route: "GET /repos/{owner}/{repo}/hooks" });
    const mark = fixture.sim.requests.length;
    const ticked = registry.tick(giteaWebhookJob);
    await held.arrived;
    // Another replica takes the run lock: the next renewal (a third of the 6 s lock) finds it gone.
    const lock = jobLockNames(giteaWebhookJob).run;
    await stores.locks.releaseLock(lock, registry.owner);
    expect(await stores.locks.acquireLock(lock, "another-replica", 60_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    held.release();
    expect(await ticked).toBe(false);
    expect(hookRoutes(mark)).toEqual(["GET /user/repos", "GET /repos/{owner}/{repo}/hooks"]);
    expect(fixture.repo.hooks).toEqual([]);
    expect(registry.status(giteaWebhookJob)?.consecutiveFailures).toBe(1);
  }, 10_000);
});
