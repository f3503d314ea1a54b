// A signed Gitea delivery is a hint, not evidence (docs/reference/gitea-surfaces.md#what-a-delivery-is-trusted-for): late, replayed or forged deliveries against the simulator change nothing Gitea does not show now.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ClaimRecord } from "../../src/domain/claim.js";
import { leaseIdOf } from "../../src/domain/claim.js";
import { renderClaimComment } from "../../src/domain/claim-marker.js";
import { createTokenMinter } from "../../src/lease/tokens.js";
import { GiteaAssignmentProvider } from "../../src/providers/gitea/gitea-assignment-provider.js";
import { MemoryLeaseEventBus } from "../../src/providers/memory/memory-lease-event-bus.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type AppHarness, startApp, testSeal, testTokenSecret } from "../support/app-harness.js";
import { authorDurations } from "../support/seed-claims.js";
import {
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const secret = "gitea-webhook-secret-for-tests";
const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
const minter = createTokenMinter(testTokenSecret);
const bus = new MemoryLeaseEventBus();
let fixture: GiteaSimFixture;
let app: AppHarness;
let stores: Stores;

beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
  fixture.sim.state.addUser("ci-runner");
  fixture.repo.permissions.set("ci-runner", "write");
  stores = createMemoryStores();
  app = await startApp({
    stores,
    now: clock.now,
    leaseEvents: bus,
    gitea: handMadeHooksGitea(fixture.sim, secret),
  });
  // The bot's login and the config are read once now, so each test's requests are its own.
  const warm = fixture.sim.state.addIssue(fixture.repo, { title: "warm-up", author: "octo" });
  await claimOnGitea(warm);
  await deliver("issues", fixture.sim.payloads.issues(fixture.repo, warm, "octo", "label_updated"));
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
});

const deliver = (event: string, payload: unknown, eventType?: string) =>
  fixture.sim.deliver({
    url: `${app.url}/api/gitea/webhooks`,
    secret,
    event,
    payload,
    ...(eventType ? { eventType } : {}),
  });
const keyOf = (issue: SimIssue) => ({
  installationId: giteaInstallation,
  repoId: fixture.repo.id,
  issue: issue.number,
});
const recordOf = (issue: SimIssue) => stores.claims.get(keyOf(issue));
const setLabels = (issue: SimIssue, names: string[]) => {
  issue.labelIds = names.map((name) => fixture.sim.state.label(fixture.repo, name).id);
};

/** A live agent claim of fleet-bot, as the lease core leaves it on Gitea (assignee, label, claim comment). */
async function claimOnGitea(issue: SimIssue): Promise<ClaimRecord> {
  const key = keyOf(issue);
  await stores.claims.epoch(giteaInstallation, app.clock.now);
  const outcome = await stores.claims.claim({
    key,
    repo: "octo/widgets",
    actor: { kind: "agent", login: "fleet-bot", sessionId: `s${issue.number}` },
    taskClass: "author",
    durations: authorDurations,
    branch: `agent/s${issue.number}/${issue.number}-work`,
    tokenDigest: minter.digest(minter.mint()),
    takeover: false,
    now: app.clock.now,
    minGeneration: 0,
    appAssigned: true,
    caps: { perSession: 5, perLogin: 50 },
  });
  if (outcome.kind !== "created") throw new Error(`claim not created: ${outcome.kind}`);
  const writer = new GiteaAssignmentProvider({ client: fixture.client, seal: testSeal });
  const applied = await writer.apply(
    { installationId: giteaInstallation, repo: "octo/widgets", issue: issue.number },
    {
      subjectNodeId: "",
      assign: ["fleet-bot"],
      addLabels: ["agent:claimed"],
      createClaimComment: renderClaimComment(outcome.record, "active"),
    },
  );
  const commentId = applied.claimComment?.databaseId ?? 0;
  await stores.claims.commitClaim(key, outcome.record.generation, {
    commentNodeId: String(commentId),
    commentId,
  });
  await stores.claims.markSynced(key, outcome.record.generation);
  await stores.installations.rememberInstallation(1);
  return (await stores.claims.get(key)) as ClaimRecord;
}

let issue: SimIssue;
let claimed: ClaimRecord;
let mark: number;
beforeEach(async () => {
  issue = fixture.sim.state.addIssue(fixture.repo, { title: "Fix the widget", author: "octo" });
  claimed = await claimOnGitea(issue);
  mark = fixture.sim.requests.length;
});

describe("D1: a late or replayed label or assignee delivery", () => {
  it("a label delivery whose list lacks agent:claimed, while Gitea shows it on again, revokes nothing: one issue read", async () => {
    // A person took the label off and put it back; the first change's delivery arrives late.
    setLabels(issue, []);
    const late = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "label_cleared");
    setLabels(issue, ["agent:claimed"]);
    mark = fixture.sim.requests.length;
    const answer = await deliver("issues", late, "issue_label");
    expect(answer.status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repos/{owner}/{repo}/issues/{index}"]);
    const logged = app.logs.filter((line) => line.includes("Gitea shows it back"));
    expect(logged.some((line) => line.includes(answer.deliveryId))).toBe(true);
  });

  it("an unassigned delivery replayed while Gitea shows the agent assigned revokes nothing: one issue read", async () => {
    issue.assignees = [];
    const replayed = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "unassigned");
    issue.assignees = ["fleet-bot"];
    mark = fixture.sim.requests.length;
    expect((await deliver("issues", replayed, "issue_assign")).status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
    expect(issue.assignees).toEqual(["fleet-bot"]);
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repos/{owner}/{repo}/issues/{index}"]);
  });

  it("the same delivery while Gitea still shows the label off revokes", async () => {
    setLabels(issue, []);
    const delivery = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "label_cleared");
    expect((await deliver("issues", delivery, "issue_label")).status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "revoked", generation: claimed.generation + 1 });
  });
});

describe("D2: a replayed issues.closed", () => {
  it("a close delivered after the issue was reopened completes nothing: one issue read", async () => {
    issue.state = "closed";
    const replayed = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "closed");
    issue.state = "open";
    mark = fixture.sim.requests.length;
    expect((await deliver("issues", replayed)).status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
    expect(labelsOf(issue)).toContain("agent:claimed");
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repos/{owner}/{repo}/issues/{index}"]);
    expect(app.logs.some((line) => line.includes("Gitea shows the issue open again"))).toBe(true);
  });

  it("a close Gitea still shows completes the claim", async () => {
    issue.state = "closed";
    const delivery = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "closed");
    expect((await deliver("issues", delivery)).status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "completed" });
  });
});

const labelsOf = (target: SimIssue) =>
  target.labelIds.map((id) => fixture.repo.labels.find((l) => l.id === id)?.name);

describe("D3: a comment's author and body are Gitea's, not the delivery's", () => {
  it("a `/reclaim` payload naming a maintainer for a fleet account's comment is refused as the fleet account's", async () => {
    const comment = fixture.sim.state.addComment(issue, "fleet-bot", "/reclaim");
    const forged = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer");
    forged.comment = {
      ...forged.comment,
      user: fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer").sender,
    };
    expect((await deliver("issue_comment", forged)).status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
    expect(issue.comments.at(-1)?.body).toContain(
      "`/reclaim` is for people. `fleet-bot` runs agent sessions here",
    );
    expect(fixture.sim.routesSince(mark)[0]).toBe("GET /repos/{owner}/{repo}/issues/comments/{id}");
  });

  it("a payload whose body says `/reclaim` for a comment Gitea shows without it does nothing: one comment read, logged with the delivery id", async () => {
    const comment = fixture.sim.state.addComment(issue, "maintainer", "thanks, looks good");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer");
    payload.comment = { ...payload.comment, body: "/reclaim" };
    const answer = await deliver("issue_comment", payload);
    expect(answer.status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
    expect(comment.reactions).toEqual([]);
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repos/{owner}/{repo}/issues/comments/{id}"]);
    const logged = app.logs.filter((line) => line.includes("does not act"));
    expect(logged.some((line) => line.includes(answer.deliveryId))).toBe(true);
  });

  it("a `/reclaim` comment deleted before its delivery is handled does nothing: one comment read, logged with the delivery id", async () => {
    const comment = fixture.sim.state.addComment(issue, "maintainer", "/reclaim");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, issue, comment.id, "maintainer");
    issue.comments = issue.comments.filter((c) => c !== comment);
    const answer = await deliver("issue_comment", payload);
    expect(answer.status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
    expect(fixture.sim.routesSince(mark)).toEqual(["GET /repos/{owner}/{repo}/issues/comments/{id}"]);
    const logged = app.logs.filter((line) => line.includes("no such comment now"));
    expect(logged.some((line) => line.includes(answer.deliveryId))).toBe(true);
  });

  it("a comment of another issue named under this one does nothing", async () => {
    const other = fixture.sim.state.addIssue(fixture.repo, { title: "elsewhere", author: "octo" });
    const comment = fixture.sim.state.addComment(other, "maintainer", "/reclaim");
    const payload = fixture.sim.payloads.issueComment(fixture.repo, other, comment.id, "maintainer");
    const moved = {
      ...payload,
      issue: fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "x").issue,
    };
    expect((await deliver("issue_comment", moved)).status).toBe(200);
    expect(await recordOf(issue)).toEqual(claimed);
  });
});

describe("a needs-human answer is a person's", () => {
  async function asking(): Promise<unknown[]> {
    const asked = await stores.claims.heartbeat({
      key: keyOf(issue),
      generation: claimed.generation,
      tokenDigest: claimed.tokenDigest as string,
      now: app.clock.now,
      needsHuman: true,
      blocker: "which database?",
      phaseEditEveryMs: 60_000,
    });
    if (asked.kind !== "ok") throw new Error(asked.kind);
    const heard: unknown[] = [];
    const stop = bus.subscribe(leaseIdOf(keyOf(issue), claimed.generation), (event) => heard.push(event));
    stops.push(stop);
    return heard;
  }
  const stops: (() => void)[] = [];
  const settle = async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    for (const stop of stops.splice(0)) stop();
  };

  it("another fleet account's reply (learned from an agent claim) answers nothing; a person's does", async () => {
    await stores.fleetLogins.rememberFleetLogin(giteaInstallation, "ci-runner");
    const heard = await asking();
    const fleet = fixture.sim.state.addComment(issue, "ci-runner", "use Postgres");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, fleet.id, "ci-runner"),
    );
    const person = fixture.sim.state.addComment(issue, "maintainer", "use Postgres");
    await deliver(
      "issue_comment",
      fixture.sim.payloads.issueComment(fixture.repo, issue, person.id, "maintainer"),
    );
    await settle();
    expect(heard).toEqual([
      expect.objectContaining({
        event: "needs_human_answered",
        data: expect.objectContaining({ by: "maintainer" }),
      }),
    ]);
  });

  it("a payload naming a person for a fleet account's reply answers nothing", async () => {
    await stores.fleetLogins.rememberFleetLogin(giteaInstallation, "ci-runner");
    const heard = await asking();
    const fleet = fixture.sim.state.addComment(issue, "ci-runner", "use Postgres");
    const forged = fixture.sim.payloads.issueComment(fixture.repo, issue, fleet.id, "maintainer");
    forged.comment = { ...forged.comment, user: forged.sender };
    await deliver("issue_comment", forged);
    await settle();
    expect(heard).toEqual([]);
  });
});

describe("a pull request from the claim's branch is progress", () => {
  it("opened and synchronized by the holder from the claim's branch note progress; another author's PR does not", async () => {
    const pr = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Fix",
      author: "fleet-bot",
      headRef: claimed.branch ?? "",
    });
    app.clock.now += 60_000;
    expect(
      (
        await deliver(
          "pull_request",
          fixture.sim.payloads.pullRequest(fixture.repo, pr, "fleet-bot", "opened"),
        )
      ).status,
    ).toBe(200);
    expect((await recordOf(issue))?.lastPushAt).toBe(app.clock.now);
    app.clock.now += 60_000;
    fixture.sim.state.pushCommit(pr, "more");
    await deliver(
      "pull_request",
      fixture.sim.payloads.pullRequest(fixture.repo, pr, "fleet-bot", "synchronized"),
    );
    expect((await recordOf(issue))?.lastPushAt).toBe(app.clock.now);
    const before = (await recordOf(issue))?.lastPushAt;
    app.clock.now += 60_000;
    const other = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "Mine",
      author: "maintainer",
      headRef: claimed.branch ?? "",
    });
    await deliver(
      "pull_request",
      fixture.sim.payloads.pullRequest(fixture.repo, other, "maintainer", "opened"),
    );
    expect((await recordOf(issue))?.lastPushAt).toBe(before);
  });
});
