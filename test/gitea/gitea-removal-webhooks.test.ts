// Gitea's label and assignee deliveries, `/budget` and a person's answer, end to end against the simulator: what a person took off revokes or resets; the App's own writes, another label's edit and agent accounts change nothing.

import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultRepoConfig } from "../../src/config/repo-config.js";
import type { ClaimRecord, SubjectKey } from "../../src/domain/claim.js";
import { leaseIdOf } from "../../src/domain/claim.js";
import { NeedsHumanShow } from "../../src/lease/calls/needs-human-show.js";
import { createTokenMinter } from "../../src/lease/tokens.js";
import { GiteaAssignmentProvider } from "../../src/providers/gitea/gitea-assignment-provider.js";
import { MemoryLeaseEventBus } from "../../src/providers/memory/memory-lease-event-bus.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type AppHarness, startApp, testSeal, testTokenSecret } from "../support/app-harness.js";
import { seedGiteaClaim } from "./seed-gitea-claim.js";
import {
  botLogin,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const secret = "gitea-webhook-secret-for-tests";
const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
const minter = createTokenMinter(testTokenSecret);
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
const labelsOf = (issue: SimIssue) =>
  issue.labelIds.map((id) => fixture.repo.labels.find((l) => l.id === id)?.name);
const recordOf = (issue: SimIssue) => stores.claims.get(keyOf(issue));

/** A live agent claim as the lease core leaves it on Gitea; `synced: false` stops before the write is marked landed. */
async function claimOnGitea(issue: SimIssue, options: { synced?: boolean } = {}) {
  return seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue, {
    ...options,
    assigneeNodeId: "fleet-bot",
  });
}

/** A failed attempt, its trip written: the needs-human label on the issue, as the breaker leaves it. */
async function trippedOnGitea(issue: SimIssue) {
  const { record, token } = await claimOnGitea(issue);
  const key = keyOf(issue);
  const released = await stores.claims.release({
    key,
    generation: record.generation,
    tokenDigest: minter.digest(token),
    now: app.clock.now,
    outcome: "failed",
  });
  if (released.kind !== "released") throw new Error("not released");
  await stores.claims.markTripWritten(key, record.generation);
  issue.labelIds = [fixture.sim.state.label(fixture.repo, "agent:needs-human").id];
  issue.assignees = [];
}

/** A person (or anyone) edits the issue's labels on Gitea: the issue changes, then the delivery. */
function setLabels(issue: SimIssue, names: string[]) {
  issue.labelIds = names.map((name) => fixture.sim.state.label(fixture.repo, name).id);
}
const labelDelivery = (issue: SimIssue, sender: string, action = "label_updated") =>
  deliver("issues", fixture.sim.payloads.issues(fixture.repo, issue, sender, action), "issue_label");

let issue: SimIssue;
let mark: number;
beforeEach(() => {
  issue = fixture.sim.state.addIssue(fixture.repo, { title: "Fix the widget", author: "octo" });
});

describe("a person takes the claimed label or the agent's assignment off", () => {
  it("the claimed label removed by a maintainer revokes the claim: its assignment goes, the claim comment says revoked", async () => {
    const { record } = await claimOnGitea(issue);
    setLabels(issue, ["bug"]);
    mark = fixture.sim.requests.length;
    const answer = await labelDelivery(issue, "maintainer");
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    expect(await recordOf(issue)).toMatchObject({ state: "revoked", generation: record.generation + 1 });
    expect(issue.assignees).toEqual([]);
    expect(labelsOf(issue)).toEqual(["bug"]);
    expect(issue.comments.at(-1)?.body).toContain("@maintainer removed the claim's label");
    expect(fixture.sim.routesSince(mark)).toEqual([
      // the issue as Gitea shows it now confirms the removal (a late delivery's list is no evidence)
      "GET /repos/{owner}/{repo}/issues/{index}",
      // the config is cached; endByPerson's write: the issue, the assignees, the claim comment, the audit comment
      "GET /repos/{owner}/{repo}/issues/{index}",
      "PATCH /repos/{owner}/{repo}/issues/{index}",
      "PATCH /repos/{owner}/{repo}/issues/comments/{id}",
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
    ]);
  });

  it("label_cleared by a person revokes too", async () => {
    await claimOnGitea(issue);
    setLabels(issue, []);
    expect((await labelDelivery(issue, "maintainer", "label_cleared")).status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "revoked" });
  });

  it("the agent unassigned by a person revokes the claim", async () => {
    const { record } = await claimOnGitea(issue);
    issue.assignees = ["maintainer"];
    const answer = await deliver(
      "issues",
      fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "unassigned"),
      "issue_assign",
    );
    expect(answer.status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "revoked", generation: record.generation + 1 });
    expect(issue.comments.at(-1)?.body).toContain("@maintainer removed the claim's assignment");
    expect(issue.assignees).toEqual(["maintainer"]);
  });

  it("another label's edit by a person changes nothing, with no Gitea request", async () => {
    const { record } = await claimOnGitea(issue);
    setLabels(issue, ["agent:claimed", "bug"]);
    mark = fixture.sim.requests.length;
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    expect(await recordOf(issue)).toEqual(record);
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });

  it("the App's own label removal is skipped unread", async () => {
    const { record } = await claimOnGitea(issue);
    setLabels(issue, []);
    mark = fixture.sim.requests.length;
    expect((await labelDelivery(issue, botLogin)).status).toBe(200);
    expect(await recordOf(issue)).toEqual(record);
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });

  it("while the claim's write is in flight (sync pending), a person's edit of another label is no evidence", async () => {
    const { record } = await claimOnGitea(issue, { synced: false });
    // The App's label write has not landed yet: the issue shows only the person's new label.
    setLabels(issue, ["bug"]);
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    expect(await recordOf(issue)).toEqual(record);
  });

  it("an agent account taking the claimed label off does not revoke", async () => {
    const { record } = await claimOnGitea(issue);
    setLabels(issue, []);
    expect((await labelDelivery(issue, "fleet-bot")).status).toBe(200);
    expect(await recordOf(issue)).toEqual(record);
  });

  it("a redelivery of the revoking delivery changes nothing more", async () => {
    await claimOnGitea(issue);
    setLabels(issue, []);
    const first = await labelDelivery(issue, "maintainer");
    const after = await recordOf(issue);
    const comments = issue.comments.length;
    mark = fixture.sim.requests.length;
    await fixture.sim.deliver({
      url: hookUrl(),
      secret,
      event: "issues",
      payload: fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "label_updated"),
      deliveryId: first.deliveryId,
    });
    expect(await recordOf(issue)).toEqual(after);
    expect(issue.comments).toHaveLength(comments);
  });
});

describe("the failure breaker's needs-human label", () => {
  it("a person taking it off resets the breaker, with no Gitea write (one read confirms it)", async () => {
    await trippedOnGitea(issue);
    expect(await stores.claims.failures(keyOf(issue))).toHaveLength(1);
    setLabels(issue, []);
    mark = fixture.sim.requests.length;
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    expect(await stores.claims.failures(keyOf(issue))).toEqual([]);
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repos/{owner}/{repo}/issues/{index}"]);
  });

  it("an agent account taking it off cannot reset the breaker", async () => {
    await trippedOnGitea(issue);
    setLabels(issue, []);
    expect((await labelDelivery(issue, "fleet-bot")).status).toBe(200);
    expect(await stores.claims.failures(keyOf(issue))).toHaveLength(1);
  });

  it("another label's edit while the trip is shown resets nothing", async () => {
    await trippedOnGitea(issue);
    setLabels(issue, ["agent:needs-human", "bug"]);
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    expect(await stores.claims.failures(keyOf(issue))).toHaveLength(1);
  });

  it("before the trip is written, a person's edit of another label resets nothing", async () => {
    const { record, token } = await claimOnGitea(issue);
    await stores.claims.release({
      key: keyOf(issue),
      generation: record.generation,
      tokenDigest: minter.digest(token),
      now: app.clock.now,
      outcome: "failed",
    });
    setLabels(issue, ["bug"]);
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    expect(await stores.claims.failures(keyOf(issue))).toHaveLength(1);
  });
});

describe("comments: `/budget` and a person's answer", () => {
  it("`/budget 20` by a maintainer raises the subject's limit through the GitHub handler", async () => {
    await claimOnGitea(issue);
    const comment = fixture.sim.state.addComment(issue, "maintainer", "/budget 20");
    mark = fixture.sim.requests.length;
    const answer = await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer"),
    );
    expect(answer.status).toBe(200);
    expect(await stores.spend.budgetLimitOf(keyOf(issue))).toBe(20_000_000);
    expect(comment.reactions).toEqual([{ login: botLogin, content: "eyes" }]);
    expect(issue.comments.at(-1)).toMatchObject({ author: botLogin, body: expect.stringContaining("$20") });
    expect(fixture.sim.routesSince(mark)).toEqual([
      // the comment's author and body as Gitea shows them, not the delivery's
      "GET /repos/{owner}/{repo}/issues/comments/{id}",
      "POST /repos/{owner}/{repo}/issues/comments/{id}/reactions",
      "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/issues/{index}/comments",
      "GET /repos/{owner}/{repo}/pulls",
      // no over-budget label to take off: the audit comment alone, no issue read
      "POST /repos/{owner}/{repo}/issues/{index}/comments",
    ]);
  });

  it("a person's reply while the holder asks for a person reaches its live stream; the holder's own comment does not", async () => {
    const { record } = await claimOnGitea(issue);
    await stores.claims.heartbeat({
      key: keyOf(issue),
      generation: record.generation,
      tokenDigest: record.tokenDigest as string,
      now: app.clock.now,
      needsHuman: true,
      blocker: "which database?",
      phaseEditEveryMs: 60_000,
    });
    expect(await recordOf(issue)).toMatchObject({ needsHuman: true });
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), record.generation), (event) => heard.push(event));
    const own = fixture.sim.state.addComment(issue, "fleet-bot", "still waiting");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, own.id, "fleet-bot"),
    );
    const reply = fixture.sim.state.addComment(issue, "maintainer", "use Postgres");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, reply.id, "maintainer"),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toEqual([
      {
        event: "needs_human_answered",
        data: {
          by: "maintainer",
          how: "replied",
          at: new Date(app.clock.now).toISOString(),
          commentUrl: `${fixture.sim.url}/octo/widgets/issues/${issue.number}#issuecomment-${reply.id}`,
        },
      },
    ]);
  });
});

describe("the holder's ask for a person", () => {
  /** A live claim whose holder asks, its needs-human label written on Gitea by the App's own code. */
  async function askingOnGitea(target: SimIssue) {
    const { record } = await claimOnGitea(target);
    const asked = await stores.claims.heartbeat({
      key: keyOf(target),
      generation: record.generation,
      tokenDigest: record.tokenDigest as string,
      now: app.clock.now,
      needsHuman: true,
      blocker: "which database?",
      phaseEditEveryMs: 60_000,
    });
    if (asked.kind !== "ok") throw new Error(`heartbeat refused: ${asked.kind}`);
    const current = (await recordOf(target)) as ClaimRecord;
    const show = new NeedsHumanShow({
      stores,
      assignments: new GiteaAssignmentProvider({ client: fixture.client, seal: testSeal }),
      now: () => app.clock.now,
      log: pino({ level: "silent" }),
    });
    await show.changed(current, defaultRepoConfig, { kind: "asked", blocker: "which database?" });
    expect(labelsOf(target)).toEqual(["agent:claimed", "agent:needs-human"]);
    return current;
  }

  it("a person taking agent:needs-human off tells the holder's stream once; a later label edit tells it nothing more", async () => {
    const record = await askingOnGitea(issue);
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), record.generation), (event) => heard.push(event));
    setLabels(issue, ["agent:claimed"]);
    mark = fixture.sim.requests.length;
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    setLabels(issue, ["agent:claimed", "bug"]);
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toEqual([
      {
        event: "needs_human_answered",
        data: { by: "maintainer", how: "cleared", at: new Date(app.clock.now).toISOString() },
      },
    ]);
    // The claim stands: only the needs-human label was taken off.
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
    // The first delivery's removal is confirmed by one read; the second names no removal, read nothing.
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repos/{owner}/{repo}/issues/{index}"]);
  });

  it("before the ask's label write is recorded, a person's edit of another label answers nothing", async () => {
    const { record } = await claimOnGitea(issue);
    await stores.claims.heartbeat({
      key: keyOf(issue),
      generation: record.generation,
      tokenDigest: record.tokenDigest as string,
      now: app.clock.now,
      needsHuman: true,
      blocker: "which database?",
      phaseEditEveryMs: 60_000,
    });
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), record.generation), (event) => heard.push(event));
    setLabels(issue, ["agent:claimed", "bug"]);
    expect((await labelDelivery(issue, "maintainer")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toEqual([]);
  });

  it("an agent account taking it off answers nothing", async () => {
    const record = await askingOnGitea(issue);
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), record.generation), (event) => heard.push(event));
    setLabels(issue, ["agent:claimed"]);
    expect((await labelDelivery(issue, "fleet-bot")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toEqual([]);
  });
});
