// Each repository's App hook has a secret of its own: what one repository's admin reads from her hook's settings signs for her repository only.

import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureGiteaWebhooks } from "../../src/providers/gitea/ensure-gitea-webhooks.js";
import {
  deliverySecretOf,
  hookSecretOf,
  repositoryIdOfRawBody,
} from "../../src/providers/gitea/gitea-hook-secret.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { giteaHookSecretsOf } from "../../src/wiring/gitea-webhook-registration.js";
import type { SimRepo } from "../../tools/gitea-sim/index.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { seedGiteaClaim } from "./seed-gitea-claim.js";
import {
  botLogin,
  botToken,
  type GiteaSimFixture,
  giteaInstallation,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const instanceSecret = "gitea-instance-secret-for-tests-0001";

describe("hookSecretOf", () => {
  it("is one secret per repository id, none of them the instance secret, the same on every replica", () => {
    const secrets = [1, 2, 3, 1_000_000].map((id) => hookSecretOf(instanceSecret, id));
    expect(new Set(secrets).size).toBe(4);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(secret).not.toContain(instanceSecret);
    }
    expect(hookSecretOf(instanceSecret, 2)).toBe(secrets[1]);
    expect(hookSecretOf("another-instance-secret", 2)).not.toBe(secrets[1]);
  });
});

describe("the secret a delivery is checked with", () => {
  const body = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value));
  it.each<[string, Buffer, number | null]>([
    ["a repository id", body({ repository: { id: 7, full_name: "octo/widgets" } }), 7],
    ["not JSON", body("{not json"), null],
    ["JSON null", body("null"), null],
    ["an array", body([{ repository: { id: 7 } }]), null],
    ["no repository", body({ action: "opened" }), null],
    ["an id as text", body({ repository: { id: "7" } }), null],
    ["a zero id", body({ repository: { id: 0 } }), null],
    ["a fractional id", body({ repository: { id: 7.5 } }), null],
  ])("%s", (_, raw, id) => {
    expect(repositoryIdOfRawBody(raw)).toBe(id);
    const perRepository = deliverySecretOf({ secret: instanceSecret, hookSecrets: "per-repository" }, raw);
    expect(perRepository).toBe(id === null ? null : hookSecretOf(instanceSecret, id));
    // Hand-made hooks all carry the instance secret, whatever the body says.
    expect(deliverySecretOf({ secret: instanceSecret, hookSecrets: "instance" }, raw)).toBe(instanceSecret);
  });
});

describe("a delivery signed with the secret another repository's admin reads from her own hook", () => {
  const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
  let fixture: GiteaSimFixture;
  let app: AppHarness;
  let stores: Stores;
  let alices: SimRepo;
  beforeAll(async () => {
    fixture = await startGiteaSimFixture(clock);
    stores = createMemoryStores();
    // The App makes the hooks (the default): no public URL here, the same pass is run with the App's URL.
    app = await startApp({
      stores,
      now: clock.now,
      gitea: {
        url: fixture.sim.url,
        token: botToken,
        webhookSecret: instanceSecret,
        installationId: 1,
        writeSpacingMs: 0,
      },
    });
    fixture.sim.state.addUser("alice");
    alices = fixture.sim.state.addRepo("alice/tool", { [botLogin]: "admin", alice: "admin" });
    await ensureGiteaWebhooks(
      { client: fixture.client, log: pino({ level: "silent" }) },
      { endpoint: `${app.url}/api/gitea/webhooks`, instanceSecret },
    );
  });
  afterAll(async () => {
    await app.close();
    await fixture.sim.close();
  });

  it("is refused for octo/widgets (401) and records nothing; her own repository's deliveries and octo/widgets' own are accepted", async () => {
    const readByAlice = alices.hooks[0]?.secret ?? "";
    expect(readByAlice).toBe(hookSecretOf(instanceSecret, alices.id));
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "victim's issue", author: "octo" });
    const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
    app.clock.now += 3_600_000;
    const key = { installationId: giteaInstallation, repoId: fixture.repo.id, issue: issue.number };
    const push = fixture.sim.payloads.push(fixture.repo, `refs/heads/${record.branch}`, "alice");
    const forged = await fixture.sim.deliver({
      url: `${app.url}/api/gitea/webhooks`,
      secret: readByAlice,
      event: "push",
      payload: push,
    });
    expect(forged.status).toBe(401);
    expect((await stores.claims.get(key))?.lastPushAt).not.toBe(app.clock.now);
    // The instance secret itself is in no hook and signs nothing either.
    const withInstance = await fixture.sim.deliver({
      url: `${app.url}/api/gitea/webhooks`,
      secret: instanceSecret,
      event: "push",
      payload: push,
    });
    expect(withInstance.status).toBe(401);

    const own = fixture.sim.payloads.push(alices, "refs/heads/main", "alice");
    const [fromHers] = await fixture.sim.deliverToHooks(alices, { event: "push", payload: own });
    expect(fromHers?.status).toBe(200);

    const [fromWidgets] = await fixture.sim.deliverToHooks(fixture.repo, { event: "push", payload: push });
    expect(fromWidgets?.status).toBe(200);
    expect((await stores.claims.get(key))?.lastPushAt).toBe(app.clock.now);
  });

  it("her own repository's id with another repository's name is refused (401): the name is checked against the id, read once", async () => {
    const readByAlice = alices.hooks[0]?.secret ?? "";
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Victim",
      author: "octo",
      headRef: "v",
      body: "",
    });
    const head = pull.pull?.headSha ?? "";
    const disguised = {
      id: 1,
      sha: head,
      context: "claim-hold",
      state: "failure",
      description: "",
      target_url: "",
      repository: {
        ...fixture.sim.payloads.push(fixture.repo, "refs/heads/v", "alice").repository,
        id: alices.id,
      },
      sender: fixture.sim.payloads.push(fixture.repo, "refs/heads/v", "alice").sender,
    };
    const mark = fixture.sim.requests.length;
    const answer = await fixture.sim.deliver({
      url: `${app.url}/api/gitea/webhooks`,
      secret: readByAlice,
      event: "status",
      payload: disguised,
    });
    expect(answer).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repositories/{id}"]);
    expect(fixture.repo.statuses.get(head) ?? []).toEqual([]);
    // Her repository under its own name: the name Gitea gave is remembered, nothing is read again.
    const own = fixture.sim.payloads.push(alices, "refs/heads/main", "alice");
    const before = fixture.sim.requests.length;
    expect((await fixture.sim.deliverToHooks(alices, { event: "push", payload: own }))[0]?.status).toBe(200);
    expect(fixture.sim.routesSince(before)).toEqual([]);
  });

  it("a branch filter set on the App's hook drops other branches' pushes until the next ensure pass clears it", async () => {
    const [hook] = fixture.repo.hooks;
    if (!hook) throw new Error("no hook");
    hook.branchFilter = "main";
    const push = fixture.sim.payloads.push(fixture.repo, "refs/heads/agent/7-fix", "fleet-bot");
    expect(await fixture.sim.deliverToHooks(fixture.repo, { event: "push", payload: push })).toEqual([]);
    const toMain = fixture.sim.payloads.push(fixture.repo, "refs/heads/main", "octo");
    expect(await fixture.sim.deliverToHooks(fixture.repo, { event: "push", payload: toMain })).toHaveLength(
      1,
    );
    const report = await ensureGiteaWebhooks(
      { client: fixture.client, log: pino({ level: "silent" }) },
      { endpoint: `${app.url}/api/gitea/webhooks`, instanceSecret },
    );
    expect(report).toMatchObject({ edited: 1, unchanged: 1 });
    expect(hook.branchFilter).toBe("*");
    const answers = await fixture.sim.deliverToHooks(fixture.repo, { event: "push", payload: push });
    expect(answers).toEqual([expect.objectContaining({ status: 200 })]);
  });

  it("a body naming no repository is refused: there is no secret to check it with", async () => {
    const answer = await fixture.sim.deliver({
      url: `${app.url}/api/gitea/webhooks`,
      secret: instanceSecret,
      event: "push",
      payload: { ref: "refs/heads/main", after: "1".repeat(40) },
    });
    expect(answer).toMatchObject({
      status: 401,
      body: { error: "unauthorized", message: expect.stringMatching(/names no repository\.id/) },
    });
  });
});

describe("giteaHookSecretsOf: which secret an instance's deliveries are checked under", () => {
  it.each([
    [
      "the App makes its hooks",
      { manageWebhooks: true, webhookSecretDerived: true },
      "https://ch.example",
      "per-repository",
    ],
    [
      "the App makes its hooks, the secret given",
      { manageWebhooks: true, webhookSecretDerived: false },
      "https://ch.example",
      "per-repository",
    ],
    [
      "hooks made by hand",
      { manageWebhooks: false, webhookSecretDerived: false },
      "https://ch.example",
      "instance",
    ],
    [
      "no public URL, the secret given: hooks made by hand",
      { manageWebhooks: true, webhookSecretDerived: false },
      undefined,
      "instance",
    ],
    [
      "no public URL, the secret derived: only earlier App hooks",
      { manageWebhooks: true, webhookSecretDerived: true },
      undefined,
      "per-repository",
    ],
  ] as const)("%s → %s", (_case, config, publicUrl, expected) => {
    expect(giteaHookSecretsOf(config, publicUrl)).toBe(expected);
  });
});
