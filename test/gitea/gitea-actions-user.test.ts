// Gitea's own users (its Actions user, a deleted account's ghost) are no person: their removal revokes nothing, their comment answers no ask; a fleet login's removal is logged as ignored (simulator-backed).

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import type { SubjectKey } from "../../src/domain/claim.js";
import { leaseIdOf } from "../../src/domain/claim.js";
import { giteaUserIsPerson } from "../../src/providers/gitea/gitea-person.js";
import { MemoryLeaseEventBus } from "../../src/providers/memory/memory-lease-event-bus.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { seedGiteaClaim } from "./seed-gitea-claim.js";
import {
  botLogin,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  maintainerToken,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const secret = "gitea-webhook-secret-for-tests";
const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
let fixture: GiteaSimFixture;
let app: AppHarness;
let stores: Stores;
const bus = new MemoryLeaseEventBus();

beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
  fixture.repo.files.set(".gitea/claim-hold.yml", "budgets:\n  author:\n    maxUsd: 10\n");
  stores = createMemoryStores();
  app = await startApp({
    stores,
    now: clock.now,
    leaseEvents: bus,
    gitea: handMadeHooksGitea(fixture.sim, secret),
  });
  // The bot's login (once per process) and the config (cached) are read now, so each test's requests are its own.
  const warm = fixture.sim.state.addIssue(fixture.repo, { title: "warm-up", author: "octo" });
  await claimOnGitea(warm);
  const mark = fixture.sim.requests.length;
  await deliver("issues", fixture.sim.payloads.issues(fixture.repo, warm, "octo", "label_updated"));
  expect(fixture.sim.routesSince(mark)).toEqual(["GET /user", "GET /repos/{owner}/{repo}/raw/{filepath}"]);
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
});

const hookUrl = () => `${app.url}/api/gitea/webhooks`;
const deliver = (event: string, payload: unknown, eventType?: string) =>
  fixture.sim.deliver({ url: hookUrl(), secret, event, payload, ...(eventType ? { eventType } : {}) });

const keyOf = (issue: SimIssue): SubjectKey => ({
  installationId: giteaInstallation,
  repoId: fixture.repo.id,
  issue: issue.number,
});
const recordOf = (issue: SimIssue) => stores.claims.get(keyOf(issue));

/** A live agent claim as the lease core leaves it on Gitea; `synced: false` stops before the write is marked landed. */
async function claimOnGitea(issue: SimIssue, options: { synced?: boolean } = {}) {
  return seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue, {
    ...options,
    assigneeNodeId: "fleet-bot",
  });
}

/** A person (or anyone) edits the issue's labels on Gitea: the issue changes, then the delivery. */
function setLabels(issue: SimIssue, names: string[]) {
  issue.labelIds = names.map((name) => fixture.sim.state.label(fixture.repo, name).id);
}
const labelDelivery = (issue: SimIssue, sender: string, action = "label_updated") =>
  deliver("issues", fixture.sim.payloads.issues(fixture.repo, issue, sender, action), "issue_label");

let issue: SimIssue;

/** Gitea's Actions user as its webhooks and API name it: id -2, login gitea-actions (Forgejo: forgejo-actions). */
const actionsUser = { id: -2, login: "gitea-actions" };
/** A deleted account's comments and acts are shown as Gitea's ghost user: id -1. */
const ghostUser = { id: -1, login: "Ghost" };

describe("giteaUserIsPerson: one rule for deliveries, comment reads and the timeline", () => {
  it.each<[string, { id: number; login: string } | null | undefined, boolean]>([
    ["a person", { id: 7, login: "maintainer" }, true],
    ["the App's bot account", { id: 3, login: botLogin }, false],
    ["the App's bot account, other case", { id: 3, login: botLogin.toUpperCase() }, false],
    ["Gitea's Actions user", actionsUser, false],
    ["Forgejo's Actions user", { id: -2, login: "forgejo-actions" }, false],
    ["a deleted account's ghost", ghostUser, false],
    ["id 0", { id: 0, login: "zero" }, false],
    ["no user named", null, false],
    ["no user field", undefined, false],
  ])("%s", (_name, user, person) => {
    expect(giteaUserIsPerson(user, botLogin)).toBe(person);
  });
});

beforeEach(() => {
  issue = fixture.sim.state.addIssue(fixture.repo, { title: "Fix the widget", author: "octo" });
});

/** A delivery of Gitea's own user: the sim renders `login`, then the id is Gitea's (not positive). */
function asGiteaUser<T extends { sender?: unknown }>(payload: T, user: { id: number; login: string }): T {
  return { ...payload, sender: { ...(payload.sender as object), ...user } };
}

async function askForPerson(record: { generation: number; tokenDigest?: string | null }) {
  await stores.claims.heartbeat({
    key: keyOf(issue),
    generation: record.generation,
    tokenDigest: record.tokenDigest as string,
    now: app.clock.now,
    needsHuman: true,
    blocker: "which database?",
    phaseEditEveryMs: 60_000,
  });
}

describe("a Gitea Actions workflow or a ghost acts as no person", () => {
  it.each([
    ["the Actions user", actionsUser],
    ["a deleted account's ghost", ghostUser],
  ])("%s taking agent:claimed off does not revoke the agent's claim", async (_name, who) => {
    const { record } = await claimOnGitea(issue);
    setLabels(issue, ["bug"]);
    const payload = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "label_updated");
    const mark = fixture.sim.requests.length;
    expect((await deliver("issues", asGiteaUser(payload, who), "issue_label")).status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
    // Skipped as GitHub's bots are: nothing read from Gitea.
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });

  it("a person's same removal still revokes (the control)", async () => {
    const { record } = await claimOnGitea(issue);
    setLabels(issue, ["bug"]);
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "revoked", generation: record.generation + 1 });
  });

  it.each([
    ["the Actions user", actionsUser, "gitea-actions"],
    ["a deleted account's ghost", ghostUser, "Ghost"],
  ])("%s's comment does not answer the holder's needs-human ask", async (_name, who, login) => {
    const { record } = await claimOnGitea(issue);
    await askForPerson(record);
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), record.generation), (event) => heard.push(event));
    if (!fixture.sim.state.users.some((u) => u.login === login))
      fixture.sim.state.addUser(login, undefined, who.id);
    const comment = fixture.sim.state.addComment(issue, login, "CI: build 123 passed");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, login);
    expect((await deliver("issue_comment", asGiteaUser(payload, who))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toEqual([]);
  });

  it("a comment the delivery names as a person's, that Gitea shows as the Actions user's, answers nothing", async () => {
    const { record } = await claimOnGitea(issue);
    await askForPerson(record);
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), record.generation), (event) => heard.push(event));
    if (!fixture.sim.state.users.some((u) => u.login === "gitea-actions"))
      fixture.sim.state.addUser("gitea-actions", undefined, actionsUser.id);
    const comment = fixture.sim.state.addComment(issue, "gitea-actions", "CI: build 124 passed");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer");
    const maintainer = payload.sender;
    const named = { ...payload, comment: { ...(payload.comment as object), user: maintainer } };
    const mark = fixture.sim.requests.length;
    expect((await deliver("issue_comment", named)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toEqual([]);
    // The re-read is what decided: Gitea named its Actions user.
    expect(fixture.sim.routesSince(mark)).toContain("GET /repos/{owner}/{repo}/issues/comments/{id}");
  });

  it("a person's comment still answers it (the control)", async () => {
    const { record } = await claimOnGitea(issue);
    await askForPerson(record);
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), record.generation), (event) => heard.push(event));
    const comment = fixture.sim.state.addComment(issue, "maintainer", "Use Postgres.");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer"),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toHaveLength(1);
  });
});

describe("a person who once ran an agent session under their own account stays a fleet login", () => {
  it("their removal revokes nothing, and the delivery's log says why", async () => {
    const own = fixture.sim.state.addIssue(fixture.repo, { title: "try the CLI once", author: "octo" });
    const me = createClaimHoldClient({
      baseUrl: app.url,
      githubToken: maintainerToken,
      forge: "gitea",
      retries: 0,
    });
    const tried = await me.claim({
      repo: "octo/widgets",
      issue: own.number,
      actor: { runtime: "claude-code", sessionId: "once", host: "laptop" },
      branch: `agent/once/${own.number}`,
    });
    await me.release(tried.lease, { outcome: "abandoned" } as never);
    const { record } = await claimOnGitea(issue);
    setLabels(issue, ["bug"]);
    const logged = app.logs.length;
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
    const lines = app.logs.slice(logged).filter((line) => line.includes("is a fleet login"));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(line).toMatchObject({ login: "maintainer", level: 30 });
    expect(typeof line.deliveryId).toBe("string");
    expect(lines[0]).not.toContain(maintainerToken);
    expect(lines[0]).not.toContain(secret);
  });
});
