// The Gitea/Forgejo intake made to act for the wrong repository, the wrong actor or twice (App-made hooks, one secret per repository): each attack with its control, from the review of the trust model.
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SubjectKey } from "../../src/domain/claim.js";
import { hookSecretOf } from "../../src/providers/gitea/gitea-hook-secret.js";
import { createMemoryStores } from "../../src/providers/memory/memory-store.js";
import type { Stores } from "../../src/providers/stores.js";
import type { SimIssue, SimRepo } from "../../tools/gitea-sim/index.js";
import { type AppHarness, startApp } from "../support/app-harness.js";
import { seedGiteaClaim } from "./seed-gitea-claim.js";
import {
  agentToken,
  botLogin,
  botToken,
  type GiteaSimFixture,
  giteaInstallation,
  maintainerToken,
  readerToken,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const instanceSecret = "review-gitea-instance-secret-0002";
const clock = { now: Date.parse("2026-12-06T10:00:00Z") };
let fixture: GiteaSimFixture;
let app: AppHarness;
let stores: Stores;
let alices: SimRepo;
const answers: unknown[] = [];

beforeAll(async () => {
  fixture = await startGiteaSimFixture(clock);
  fixture.sim.state.addUser("alice");
  fixture.sim.state.addUser("gitea-actions", undefined, -2);
  alices = fixture.sim.state.addRepo("alice/tool", { [botLogin]: "admin", alice: "admin" });
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
});
afterAll(async () => {
  await app.close();
  await fixture.sim.close();
});

const hookUrl = () => `${app.url}/api/gitea/webhooks`;
const secretOf = (repo: SimRepo) => hookSecretOf(instanceSecret, repo.id);

/** POSTs exactly `raw`, signed with `secret`, with the headers asked for (Gitea's by default). */
async function post(
  raw: string,
  secret: string,
  options: {
    event?: string;
    id?: string;
    flavour?: "gitea" | "forgejo" | "both";
    extra?: Record<string, string>;
  } = {},
) {
  const signature = createHmac("sha256", secret).update(raw).digest("hex");
  const id = options.id ?? randomUUID();
  const event = options.event ?? "issues";
  const flavour = options.flavour ?? "gitea";
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (flavour !== "forgejo")
    Object.assign(headers, {
      "x-gitea-event": event,
      "x-gitea-delivery": id,
      "x-gitea-signature": signature,
    });
  if (flavour !== "gitea")
    Object.assign(headers, {
      "x-forgejo-event": event,
      "x-forgejo-delivery": id,
      "x-forgejo-signature": signature,
    });
  Object.assign(headers, options.extra ?? {});
  const response = await fetch(hookUrl(), { method: "POST", headers, body: raw });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as unknown) : null;
  answers.push(body);
  return { status: response.status, body };
}

const keyOf = (issue: SimIssue): SubjectKey => ({
  installationId: giteaInstallation,
  repoId: fixture.repo.id,
  issue: issue.number,
});
const recordOf = (issue: SimIssue) => stores.claims.get(keyOf(issue));
const setLabels = (issue: SimIssue, names: string[]) => {
  issue.labelIds = names.map((name) => fixture.sim.state.label(fixture.repo, name).id);
};
const repoJson = (repo: SimRepo, fullName = `${repo.owner}/${repo.name}`) =>
  JSON.stringify({ id: repo.id, name: repo.name, full_name: fullName });

/** The victim's live claim, its label taken off on Gitea (so a person's delivery of it would revoke). */
async function victimWithLabelGone() {
  const issue = fixture.sim.state.addIssue(fixture.repo, { title: "victim", author: "octo" });
  const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
  setLabels(issue, []);
  return { issue, record };
}

/** `issues` label_cleared of `issue`'s number with `repository` spliced in as raw JSON text (one or more times). */
function labelClearedRaw(issue: SimIssue, repositories: string[], sender = "maintainer") {
  const payload = fixture.sim.payloads.issues(fixture.repo, issue, sender, "label_cleared") as Record<
    string,
    unknown
  >;
  const { repository: _drop, ...rest } = payload;
  const inner = JSON.stringify(rest).slice(1, -1);
  return `{${repositories.map((r) => `"repository":${r}`).join(",")},${inner}}`;
}

describe("promise 1: a delivery signed for one repository never acts on another", () => {
  it("duplicate `repository` keys: the signature's id and the handler's are the same one (JSON.parse: the last)", async () => {
    const { issue, record } = await victimWithLabelGone();
    // Victim first, hers last, signed with hers: verified for hers, handled for hers; the victim untouched.
    const hersLast = await post(
      labelClearedRaw(issue, [repoJson(fixture.repo), repoJson(alices)]),
      secretOf(alices),
    );
    expect([200, 202]).toContain(hersLast.status);
    // Hers first, the victim's last: checked under the victim's secret, which she does not have.
    const victimLast = await post(
      labelClearedRaw(issue, [repoJson(alices), repoJson(fixture.repo)]),
      secretOf(alices),
    );
    expect(victimLast).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    // Duplicate keys inside the object: her id then the victim's, or the victim's name after her id.
    const innerDup = `{"id":${alices.id},"full_name":"octo/widgets","id":${fixture.repo.id}}`;
    expect((await post(labelClearedRaw(issue, [innerDup]), secretOf(alices))).status).toBe(401);
    const innerDup2 = `{"id":${fixture.repo.id},"full_name":"octo/widgets","id":${alices.id}}`;
    expect((await post(labelClearedRaw(issue, [innerDup2]), secretOf(alices))).status).toBe(401);
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
  });

  it.each([
    ["the victim's name", "octo/widgets", 401],
    ["owner and name swapped", "tool/alice", 401],
    ["a path past her name", "alice/tool/../../octo/widgets", 401],
    ["her name with a trailing space", "alice/tool ", 401],
    ["her name in other case (the same repository)", "ALICE/Tool", 200],
  ])("her repository's id with %s → %i; the victim's claim untouched", async (_case, name, status) => {
    const { issue, record } = await victimWithLabelGone();
    const answer = await post(labelClearedRaw(issue, [repoJson(alices, name)]), secretOf(alices));
    expect(answer.status === 202 ? 200 : answer.status).toBe(status);
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
  });

  it("control: the victim's own hook, rightly named, revokes", async () => {
    const { issue, record } = await victimWithLabelGone();
    expect(
      (await post(labelClearedRaw(issue, [repoJson(fixture.repo)]), secretOf(fixture.repo))).status,
    ).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "revoked", generation: record.generation + 1 });
  });

  it("a deleted repository's id (its admin still holds the secret) is refused", async () => {
    const gone = fixture.sim.state.addRepo("alice/gone", { [botLogin]: "admin", alice: "admin" });
    fixture.sim.state.repos.splice(fixture.sim.state.repos.indexOf(gone), 1);
    const { issue } = await victimWithLabelGone();
    const answer = await post(labelClearedRaw(issue, [repoJson(gone, "alice/gone")]), secretOf(gone));
    expect(answer).toMatchObject({ status: 401, body: { error: "unauthorized" } });
  });
});

describe("promise 2: the App's account, Gitea's own users and the fleet act as no person", () => {
  const commentRaw = (issue: SimIssue, commentId: number, sender: string) =>
    JSON.stringify(fixture.sim.payloads.issueComment(fixture.repo, issue, commentId, sender));

  it.each([
    ["the App's bot account", botLogin],
    ["Gitea's Actions user", "gitea-actions"],
    ["the holder (a fleet login)", "fleet-bot"],
  ])(
    "a `/reclaim` comment %s wrote, delivered as a maintainer's, takes nothing back",
    async (_case, author) => {
      const issue = fixture.sim.state.addIssue(fixture.repo, { title: "x", author: "octo" });
      const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
      const comment = fixture.sim.state.addComment(issue, author, "/reclaim");
      const payload = JSON.parse(commentRaw(issue, comment.id, "maintainer")) as Record<
        string,
        Record<string, unknown>
      >;
      payload.comment = { ...payload.comment, user: payload.sender };
      const answer = await post(JSON.stringify(payload), secretOf(fixture.repo), { event: "issue_comment" });
      expect(answer.status).toBe(200);
      expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
      expect(issue.assignees).toEqual(["fleet-bot"]);
    },
  );

  it("control: a maintainer's own `/reclaim` takes it back", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "x", author: "octo" });
    const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
    const comment = fixture.sim.state.addComment(issue, "maintainer", "/reclaim");
    expect(
      (
        await post(commentRaw(issue, comment.id, "maintainer"), secretOf(fixture.repo), {
          event: "issue_comment",
        })
      ).status,
    ).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "human", generation: record.generation + 1 });
  });

  it.each([
    ["the bot account, login in other case", { login: botLogin.toUpperCase() }],
    ["id 0", { id: 0, login: "maintainer" }],
    ["the holder, login in other case", { login: "FLEET-BOT" }],
  ])("a label removal by %s revokes nothing", async (_case, who) => {
    const { issue, record } = await victimWithLabelGone();
    const payload = fixture.sim.payloads.issues(fixture.repo, issue, "maintainer", "label_cleared");
    const base =
      who.login === "FLEET-BOT"
        ? fixture.sim.state.user("fleet-bot")
        : who.login === botLogin.toUpperCase()
          ? fixture.sim.state.user(botLogin)
          : {};
    const forged = { ...payload, sender: { ...payload.sender, ...base, ...who } };
    expect((await post(JSON.stringify(forged), secretOf(fixture.repo))).status).toBe(200);
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
  });
});

describe("promise 3: a pull request counts as progress only from the holder, in the repository", () => {
  it.each([
    ["a reader's PR on the claim's branch (AGit: head in the repository)", "reader", "same"],
    ["the holder's PR from a fork", "fleet-bot", "fork"],
    ["the holder's PR whose head repository Gitea did not name", "fleet-bot", "none"],
  ] as const)("%s is no progress", async (_case, author, head) => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "y", author: "octo" });
    const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
    const before = (await recordOf(issue))?.lastPushAt;
    app.clock.now += 60_000;
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "work",
      author,
      headRef: record.branch as string,
    });
    const payload = fixture.sim.payloads.pullRequest(fixture.repo, pull, author, "opened") as {
      pull_request: { head: Record<string, unknown> };
    };
    if (head === "fork") payload.pull_request.head = { ...payload.pull_request.head, repo_id: alices.id };
    if (head === "none")
      payload.pull_request.head = { ...payload.pull_request.head, repo_id: null, repo: null };
    expect(
      (await post(JSON.stringify(payload), secretOf(fixture.repo), { event: "pull_request" })).status,
    ).toBe(200);
    expect((await recordOf(issue))?.lastPushAt).toBe(before);
  });
});

describe("promise 3, control", () => {
  it("the holder's PR on its branch in the repository is progress", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "y", author: "octo" });
    const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
    app.clock.now += 60_000;
    const pull = fixture.sim.state.addPullRequest(fixture.repo, {
      title: "work",
      author: "fleet-bot",
      headRef: record.branch as string,
    });
    const payload = fixture.sim.payloads.pullRequest(fixture.repo, pull, "fleet-bot", "opened");
    expect(
      (await post(JSON.stringify(payload), secretOf(fixture.repo), { event: "pull_request" })).status,
    ).toBe(200);
    expect((await recordOf(issue))?.lastPushAt).toBe(app.clock.now);
  });
});

describe("promise 4: delivery ids and Forgejo's headers", () => {
  it("Forgejo's headers alone are accepted; a redelivery under the same id in Gitea's or Forgejo's headers is handled once", async () => {
    const issue = fixture.sim.state.addIssue(fixture.repo, { title: "z", author: "octo" });
    const { record } = await seedGiteaClaim({ stores, fixture, now: app.clock.now }, issue);
    const raw = JSON.stringify(
      fixture.sim.payloads.push(fixture.repo, `refs/heads/${record.branch}`, "fleet-bot"),
    );
    const id = randomUUID();
    app.clock.now += 60_000;
    const first = app.clock.now;
    expect((await post(raw, secretOf(fixture.repo), { event: "push", id, flavour: "forgejo" })).status).toBe(
      200,
    );
    expect((await recordOf(issue))?.lastPushAt).toBe(first);
    for (const flavour of ["gitea", "both", "forgejo"] as const) {
      app.clock.now += 60_000;
      expect((await post(raw, secretOf(fixture.repo), { event: "push", id, flavour })).status).toBe(200);
      expect((await recordOf(issue))?.lastPushAt).toBe(first);
    }
  });

  it("a valid Forgejo signature does not carry a wrong Gitea one, nor the reverse", async () => {
    const raw = JSON.stringify(fixture.sim.payloads.push(fixture.repo, "refs/heads/main", "octo"));
    const bad = "0".repeat(64);
    expect(
      (
        await post(raw, secretOf(fixture.repo), {
          event: "push",
          flavour: "forgejo",
          extra: { "x-gitea-signature": bad },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await post(raw, secretOf(fixture.repo), {
          event: "push",
          flavour: "gitea",
          extra: { "x-forgejo-signature": bad },
        })
      ).status,
    ).toBe(401);
  });
});

describe("promise 5: refusals are {error, message}; no secret anywhere", () => {
  it("each refusal is a 4xx {error, message} and changes nothing; no secret or token in any answer or log line", async () => {
    const { issue, record } = await victimWithLabelGone();
    const good = labelClearedRaw(issue, [repoJson(fixture.repo)]);
    const cases = [
      await post(good, secretOf(alices)),
      await post(good, "wrong"),
      await post("{not json", secretOf(fixture.repo)),
      await post(good, secretOf(fixture.repo), { id: "bad id with spaces" }),
      await post(
        JSON.stringify({
          action: "label_cleared",
          number: 1,
          repository: JSON.parse(repoJson(fixture.repo)),
        }),
        secretOf(fixture.repo),
      ),
    ];
    for (const answer of cases) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body).toEqual({ error: expect.any(String), message: expect.any(String) });
    }
    expect(await recordOf(issue)).toMatchObject({ state: "active", generation: record.generation });
    const secrets = [
      instanceSecret,
      secretOf(fixture.repo),
      secretOf(alices),
      botToken,
      agentToken,
      maintainerToken,
      readerToken,
    ];
    const everything = [...answers.map((a) => JSON.stringify(a)), ...app.logs].join("\n");
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});
