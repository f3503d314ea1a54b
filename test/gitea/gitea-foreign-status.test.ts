// A `claim-hold` status someone else posts on a PR head is answered at once: the App's hook subscribes to Gitea's `status` event and the PRs at that commit are evaluated again (exact Gitea requests).
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureGiteaWebhooks } from "../../src/providers/gitea/ensure-gitea-webhooks.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { seedGiteaClaim } from "./seed-gitea-claim.js";
import { agentToken, botLogin, botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const instanceSecret = "gitea-instance-secret-for-status-tests";
const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
let fixture: GiteaSimFixture;
let app: AppHarness;
let stores: Stores;

beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
  stores = createMemoryStores();
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
  // The App's own hook (with its `status` event), as its ensure pass makes it.
  await ensureGiteaWebhooks(
    { client: fixture.client, log: pino({ level: "silent" }) },
    { endpoint: `${app.url}/api/gitea/webhooks`, instanceSecret },
  );
  // The bot's login and the repository config are read once: read here, so the tests pin the same requests.
  const warmUp = fixture.sim.state.addIssue(fixture.repo, { title: "warm up", author: "octo" });
  await toHook("issues", fixture.sim.payloads.issues(fixture.repo, warmUp, "octo", "closed"));
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
});

/** Delivered as Gitea does: to the repository's hooks subscribed to the event, signed with each one's secret. */
async function toHook(event: string, payload: unknown) {
  const answers = await fixture.sim.deliverToHooks(fixture.repo, { event, payload });
  expect(answers).toHaveLength(1);
  return answers[0] as (typeof answers)[number];
}

/** What Gitea delivers for the status just written to `sha` (the simulator's `status` event). */
function lastStatusDelivery(sha: string) {
  const delivery = fixture.sim.webhooks.deliveries.filter((d) => d.event === "status").at(-1);
  expect(delivery?.payload).toMatchObject({ sha, repository: { id: fixture.repo.id } });
  return delivery?.payload ?? {};
}

const claimHoldOn = (sha: string) =>
  (fixture.sim.state.repos[0]?.statuses.get(sha) ?? [])
    .filter((s) => s.context === "claim-hold")
    .map((s) => `${s.creator}: ${s.state}`);

async function post(token: string, sha: string, context: string, state: string) {
  const answer = await fetch(`${fixture.sim.url}/api/v1/repos/octo/widgets/statuses/${sha}`, {
    method: "POST",
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ state, context, description: "ok" }),
  });
  expect(answer.status).toBe(201);
}

describe("a claim-hold status posted by someone other than the App", () => {
  it("re-evaluates the PR at that commit: the App's failure is the newest claim-hold status again", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "Fix", author: "octo" });
    const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Fix",
      author: "fleet-bot",
      headRef: record.branch ?? "",
      body: `Closes #${issue.number}`,
    });
    // Another open PR on another commit is not evaluated again.
    fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Other",
      author: "octo",
      headRef: "other",
      body: "",
    });
    const head = pull.pull?.headSha ?? "";
    const opened = fixture.sim.payloads.pullRequest(fixture.repo, pull, "fleet-bot", "opened");
    expect((await toHook("pull_request", opened)).status).toBe(200);
    expect(claimHoldOn(head)).toEqual([`${botLogin}: failure`]);
    // The App's own status delivery: nothing to answer, nothing read.
    let mark = fixture.sim.requests.length;
    expect((await toHook("status", lastStatusDelivery(head))).status).toBe(200);
    expect(fixture.sim.routesSince(mark)).toEqual([]);

    // The agent (write access) posts its own green under the App's context.
    await post(agentToken, head, "claim-hold", "success");
    const foreign = lastStatusDelivery(head);
    expect(foreign).toMatchObject({
      context: "claim-hold",
      state: "success",
      sender: { login: "fleet-bot" },
    });
    mark = fixture.sim.requests.length;
    expect(await toHook("status", foreign)).toMatchObject({ status: 200, body: { status: "processed" } });
    expect(claimHoldOn(head)).toEqual([`${botLogin}: failure`, "fleet-bot: success", `${botLogin}: failure`]);
    expect(fixture.sim.routesSince(mark)).toEqual([
      "GET /repos/{owner}/{repo}/pulls",
      "GET /repos/{owner}/{repo}/pulls/{index}",
      "GET /repos/{owner}/{repo}/pulls/{index}/commits",
      "GET /repos/{owner}/{repo}/statuses/{sha}",
      "POST /repos/{owner}/{repo}/statuses/{sha}",
    ]);
  });

  it("a status under another context is ignored without a request", async () => {
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "CI",
      author: "octo",
      headRef: "ci",
      body: "",
    });
    const head = pull.pull?.headSha ?? "";
    await post(agentToken, head, "ci/build", "success");
    const mark = fixture.sim.requests.length;
    expect(await toHook("status", lastStatusDelivery(head))).toMatchObject({
      status: 202,
      body: { status: "ignored", event: "status" },
    });
    expect(fixture.sim.routesSince(mark)).toEqual([]);
  });
});
