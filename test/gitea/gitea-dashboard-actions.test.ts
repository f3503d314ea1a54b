// The dashboard on a Gitea subject, end to end: its page at /subjects/gitea/{record}/…, and each operator action changing the Gitea simulator and Redis as on GitHub — beside a GitHub issue of the same name that no action touches; a stale page 409, an unserved record 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClaimHoldClient, createClaimHoldClient } from "../../src/agent/client/index.js";
import { NotifyEvent } from "../../src/config/repo-config.js";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type SinkServer, startSinkServer } from "../notify/support/sink-server.js";
import { type AppHarness, startApp, testAdminToken, testCredentials } from "../support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";
import {
  agentToken,
  botLogin,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const appId = 1;
const githubInstallation = 1;
const githubAgent = { login: "fleet-bot", id: 501, token: "ghp_fleetbot0000000000000000000000dashgt" };
const webhookSecret = "gitea-webhook-secret-for-tests";
/** A record in Gitea's id space that this App does not serve (instance 2). */
const unservedRecord = giteaInstallationRecordId(2);

describe.skipIf(!redisProbe.available)("the dashboard on a Gitea subject", () => {
  const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
  let gitea: GiteaSimFixture;
  let sink: SinkServer;
  let stack: LocalStack<AppHarness>;
  /** Gitea issues #1 (the agent's, then asks for a person) and #2 (a maintainer's hold). */
  let first: SimIssue;
  let second: SimIssue;
  let cookie: string;
  let token: string;

  const client = (tokenOf: string, forge?: string): ClaimHoldClient =>
    createClaimHoldClient({
      baseUrl: stack.app.url,
      githubToken: tokenOf,
      ...(forge ? { forge } : {}),
      retries: 0,
      sleep: async (ms) => {
        stack.app.clock.now += ms;
      },
    });
  const keyOf = (issue: number) => ({ installationId: giteaInstallation, repoId: gitea.repo.id, issue });
  const labelsOf = (subject: SimIssue) =>
    subject.labelIds.map((id) => gitea.repo.labels.find((label) => label.id === id)?.name);
  const pageOf = (issue: number) => `/subjects/gitea/${giteaInstallation}/${repo}/${issue}`;

  function post(action: string, fields: Record<string, string>): Promise<Response> {
    return fetch(`${stack.app.url}/dashboard/actions/${action}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: stack.app.url },
      body: new URLSearchParams({ token, ...fields }).toString(),
      redirect: "manual",
    });
  }
  const get = (path: string) => fetch(`${stack.app.url}${path}`, { headers: { cookie }, redirect: "manual" });

  /** Everything an action could change: the Gitea issue, its GitHub namesake, the Redis record and failures. */
  async function everything(issue: SimIssue) {
    await stack.sim.flush();
    return {
      gitea: structuredClone({ ...issue, labels: labelsOf(issue) }),
      github: structuredClone(stack.sim.issue(repo, 1)),
      record: await stack.stores.claims.get(keyOf(issue.number)),
      failures: await stack.stores.claims.failures(keyOf(issue.number)),
    };
  }

  beforeAll(async () => {
    gitea = await startGiteaSimFixture(clock);
    sink = await startSinkServer();
    first = gitea.sim.state.addIssue(gitea.repo, { title: "Gitea task", author: "maintainer" });
    second = gitea.sim.state.addIssue(gitea.repo, { title: "Maintainer's task", author: "maintainer" });
    stack = await startLocalStack({
      redis: { kind: "shared", keyPrefix: uniqueKeyPrefix("gitea-dash") },
      credentials: testCredentials(appId),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: clock.now,
          adminToken: testAdminToken,
          notify: {
            notifySinks: [{ url: `${sink.base}/all`, format: "json", events: [...NotifyEvent.options] }],
            notifySender: { pollMs: 3_600_000 },
          },
          gitea: handMadeHooksGitea(gitea.sim, webhookSecret),
        }),
    });
    // GitHub's installation 1 has octo/widgets too, with an issue #1 its own agent holds: the namesake.
    stack.sim.seed({
      users: [{ login: githubAgent.login, id: githubAgent.id, tokens: [githubAgent.token] }],
      repos: [
        {
          fullName: repo,
          id: gitea.repo.id,
          collaborators: { [githubAgent.login]: "write" },
          issues: [{ number: 1, title: "GitHub task", author: githubAgent.login }],
        },
      ],
      installations: [{ id: githubInstallation, account: "octo-on-github", repos: [repo] }],
    });
    await stack.sim.flush();
    await client(githubAgent.token).claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "h1" } });
    await stack.sim.flush();

    const login = await fetch(`${stack.app.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: testAdminToken }).toString(),
      redirect: "manual",
    });
    cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const fleet = await (await get("/")).text();
    token = /name="token" value="([A-Za-z0-9_-]{43})"/.exec(fleet)![1]!;
  });
  afterAll(async () => {
    await stack?.stop();
    await gitea?.sim.close();
    await sink?.close();
  });

  it("the subject page: the claim view, timeline, heartbeat sparkline, Gitea links and needs-human, with the Gitea-addressed action forms", async () => {
    const agent = client(agentToken, "gitea");
    const { lease } = await agent.claim({
      repo,
      issue: first.number,
      actor: { runtime: "claude-code", sessionId: "g1" },
      branch: "agent/g1/1-gitea-task",
    });
    for (let beat = 0; beat < 3; beat++) {
      stack.app.clock.now += 10_000;
      await agent.heartbeat(lease);
    }
    await agent.heartbeat(lease, { needsHuman: true, blocker: "which widget?" });
    expect(labelsOf(first)).toEqual(["agent:claimed", "agent:needs-human"]);

    const githubMark = stack.sim.requests.mark();
    const response = await get(pageOf(first.number));
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain(`<title>${repo}#${first.number} — claim-hold</title>`);
    // The claim view: holder, generation, blocker asking for a person.
    expect(page).toMatch(/<dt>Holder<\/dt><dd><span>claude-code <b>@fleet-bot<\/b>/);
    expect(page).toContain('<dd id="blocker">which widget?<b> (asks for a person)</b></dd>');
    // The timeline of transitions and the sparkline of the heartbeats' gaps.
    expect(page).toContain('data-transition="claimed" data-generation="1"');
    expect(page).toContain('id="heartbeat-sparkline"');
    expect(page.match(/data-gap-ms="10000"/g)).toHaveLength(3);
    // Links to the Gitea issue and claim comment, never to GitHub.
    expect(page).toContain(`href="${gitea.sim.url}/${repo}/issues/${first.number}">Gitea</a>`);
    expect(page).toMatch(
      new RegExp(`href="${gitea.sim.url}/${repo}/issues/1#issuecomment-\\d+" id="claim-comment"`),
    );
    expect(page).not.toContain(stack.sim.url);
    // Needs a person, and its forms name the Gitea record.
    expect(page).toContain('<p id="needs-person">Needs a person: @fleet-bot asks for one.</p>');
    const actions = /<section id="actions">[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
    expect(actions.match(/name="installationId" value="(\d+)"/g)).toEqual([
      `name="installationId" value="${giteaInstallation}"`,
      `name="installationId" value="${giteaInstallation}"`,
    ]);
    expect(actions).toContain('data-action="clear-needs-human"');
    expect(actions).toContain('data-action="release"');
    // The page read Gitea and the store only.
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});

    // The fleet page links the Gitea row to this page and offers its actions; GitHub's namesake keeps its URL.
    const fleet = await (await get("/")).text();
    expect(fleet).toContain(`<a href="${pageOf(first.number)}" data-subject-page="true">`);
    expect(fleet).toContain(`<a href="/subjects/${repo}/1" data-subject-page="true">`);
    const needsYou = /<section id="needs-you"[\s\S]*?<\/section>/.exec(fleet)?.[0] ?? "";
    expect(needsYou).toContain(`href="${pageOf(first.number)}"`);
    expect(needsYou).toContain(`name="installationId" value="${giteaInstallation}"`);
    // GitHub's subject page of the same name is GitHub's issue, unchanged.
    const github = await (await get(`/subjects/${repo}/1`)).text();
    expect(github).toContain(`href="${stack.sim.url}/${repo}/issues/1">GitHub</a>`);
    expect(github).toContain("@fleet-bot");
    expect(github).not.toContain("which widget?");
  });

  it("a GitHub-format record, an unserved Gitea record, another forge or an unknown repository: 404 with {error, message}, nothing read from GitHub", async () => {
    const githubMark = stack.sim.requests.mark();
    for (const path of [
      `/subjects/gitea/${githubInstallation}/${repo}/1`,
      `/subjects/gitea/${unservedRecord}/${repo}/1`,
      `/subjects/github/${githubInstallation}/${repo}/1`,
      `/subjects/forgejo/${giteaInstallation}/${repo}/1`,
      `/subjects/gitea/not-a-number/${repo}/1`,
      `/subjects/gitea/${giteaInstallation}/octo/nothing-here/1`,
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      const body = await response.json();
      expect(body, path).toStrictEqual({ error: "not_found", message: expect.any(String) });
      // Nothing of the path but a served subject is echoed back.
      expect(body.message, path).not.toMatch(/not-a-number|forgejo/);
    }
    const malformed = await get(`/subjects/gitea/${giteaInstallation}/octo/<x>/1`);
    expect(malformed.status).toBe(422);
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
  });

  it("clear needs-human on Gitea: the plan changes nothing, a stale page 409, the confirm clears the Gitea label and Redis; GitHub untouched", async () => {
    const before = await everything(first);
    const plan = await post("clear-needs-human", {
      repo,
      issue: String(first.number),
      installationId: String(giteaInstallation),
      generation: "1",
    });
    expect(plan.status).toBe(200);
    const planText = await plan.text();
    expect(planText).toContain(`Clear needs-human on ${repo}#${first.number} on Gitea`);
    expect(planText).toContain("Note (quoted in the comment on Gitea)");
    expect(planText).toContain(`name="installationId" value="${giteaInstallation}"`);
    expect(await everything(first)).toStrictEqual(before);

    const stale = await post("clear-needs-human", {
      repo,
      issue: String(first.number),
      installationId: String(giteaInstallation),
      generation: "7",
      confirm: "1",
    });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("is at generation 1 now, not the 7 the page showed");
    expect(await everything(first)).toStrictEqual(before);

    const githubMark = stack.sim.requests.mark();
    const done = await post("clear-needs-human", {
      repo,
      issue: String(first.number),
      installationId: String(giteaInstallation),
      generation: "1",
      confirm: "1",
      note: "use the blue one",
    });
    expect(done.status).toBe(200);
    const result = await done.text();
    expect(result).toContain("The App took the needs-human label off and commented on the issue.");
    expect(result).toContain(`href="${pageOf(first.number)}" id="back"`);
    expect(labelsOf(first)).toEqual(["agent:claimed"]);
    const reply = first.comments.at(-1)!;
    expect(reply.author).toBe(botLogin);
    expect(reply.body).toContain("✅ An operator (claim-hold dashboard) cleared needs-human (generation 1).");
    expect(reply.body).toContain("Note: use the blue one");
    // The ask is withdrawn in Redis; the claim stands.
    const record = await stack.stores.claims.get(keyOf(first.number));
    expect(record).toMatchObject({ state: "active", generation: 1 });
    expect(record).not.toHaveProperty("needsHuman");
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
    expect((await everything(first)).github).toStrictEqual(before.github);
  });

  it("release on Gitea: a stale page 409 unchanged, the confirm is /reclaim release on the Gitea issue and in Redis; GitHub's #1 stays held", async () => {
    const before = await everything(first);
    const stale = await post("release", {
      repo,
      issue: String(first.number),
      installationId: String(giteaInstallation),
      generation: "2",
      confirm: "1",
    });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("is at generation 1 now, not the 2 the page showed");
    expect(await everything(first)).toStrictEqual(before);

    const githubMark = stack.sim.requests.mark();
    const done = await post("release", {
      repo,
      issue: String(first.number),
      installationId: String(giteaInstallation),
      generation: "1",
      confirm: "1",
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(`${repo}#${first.number} is back in the queue at generation 2`);
    expect(first.assignees).toEqual([]);
    expect(labelsOf(first)).toEqual([]);
    expect(first.comments.at(-1)).toMatchObject({
      author: botLogin,
      body: expect.stringContaining(
        "🔁 An operator (claim-hold dashboard) released this issue back to the queue (generation 2)",
      ),
    });
    expect(await stack.stores.claims.get(keyOf(first.number))).toMatchObject({
      state: "released",
      generation: 2,
      actor: { kind: "human", login: "claim-hold[dashboard]" },
    });
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
    expect(stack.sim.issue(repo, 1).assignees).toEqual([githubAgent.login]);
    // Free again: another Gitea session claims it at generation 3.
    const again = await client(agentToken, "gitea").claim({
      repo,
      issue: first.number,
      actor: { runtime: "claude-code", sessionId: "g2" },
    });
    expect(again.lease.generation).toBe(3);
  });

  it("hand back to the queue on Gitea: a maintainer's /reclaim hold ends, nobody assigned, the labels off", async () => {
    const command = gitea.sim.state.addComment(second, "maintainer", "/reclaim");
    const delivered = await gitea.sim.deliver({
      url: `${stack.app.url}/api/gitea/webhooks`,
      secret: webhookSecret,
      event: "issue_comment",
      payload: gitea.sim.payloads.issueComment(gitea.repo, second, command.id, "maintainer"),
    });
    expect(delivered.status).toBe(200);
    await stack.app.services.settled();
    expect(second.assignees).toEqual(["maintainer"]);
    expect(await stack.stores.claims.get(keyOf(second.number))).toMatchObject({ state: "human" });

    // A page that showed another generation changes nothing.
    const held = await everything(second);
    const stale = await post("requeue", {
      repo,
      issue: String(second.number),
      installationId: String(giteaInstallation),
      generation: "5",
      confirm: "1",
    });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("is at generation 1 now, not the 5 the page showed");
    expect(await everything(second)).toStrictEqual(held);

    const githubMark = stack.sim.requests.mark();
    const done = await post("requeue", {
      repo,
      issue: String(second.number),
      installationId: String(giteaInstallation),
      confirm: "1",
    });
    expect(done.status).toBe(200);
    expect(second.assignees).toEqual([]);
    expect(labelsOf(second)).toEqual([]);
    expect(second.comments.at(-1)?.body).toContain(
      "An operator (claim-hold dashboard) released this issue back to the queue",
    );
    expect(await stack.stores.claims.get(keyOf(second.number))).toMatchObject({ state: "released" });
    // Sent again (a double click): free already, nothing changed.
    const before = await everything(second);
    const twice = await post("requeue", {
      repo,
      issue: String(second.number),
      installationId: String(giteaInstallation),
      confirm: "1",
    });
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain("is free already");
    expect(await everything(second)).toStrictEqual(before);
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
  });

  it("an action naming an unserved Gitea record answers 404 before its plan; nothing changes on Gitea, GitHub or in Redis", async () => {
    const before = await everything(first);
    const giteaMark = gitea.sim.requests.length;
    for (const action of ["release", "requeue", "clear-needs-human"]) {
      for (const confirm of [{}, { confirm: "1" }] as Record<string, string>[]) {
        const refused = await post(action, {
          repo,
          issue: "1",
          installationId: String(unservedRecord),
          ...confirm,
        });
        expect(refused.status, action).toBe(404);
        expect(await refused.json()).toStrictEqual({ error: "not_found", message: expect.any(String) });
      }
    }
    // A malformed record is a malformed form.
    expect((await post("release", { repo, issue: "1", installationId: "1e15" })).status).toBe(422);
    expect(gitea.sim.requests.length).toBe(giteaMark);
    expect(await everything(first)).toStrictEqual(before);
  });

  it("the Gitea subject's notification waiting to retry links to its Gitea page; retry now and drop act on it; the janitor pauses the Gitea record", async () => {
    sink.answer = 500;
    const agent = client(agentToken, "gitea");
    // A new holder of #2 asks for a person: a needs-human notification whose delivery fails.
    const claim = await agent.claim({
      repo,
      issue: second.number,
      actor: { runtime: "claude-code", sessionId: "g3" },
    });
    await agent.heartbeat(claim.lease, { needsHuman: true, blocker: "stuck" });
    await stack.app.services.notifier.flush();
    while ((await stack.app.services.sender.tick()) > 0);
    const retrying = await stack.app.services.outbox.retrying(10);
    const delivery = retrying.find((d) => d.subject === `${repo}#${second.number}`);
    expect(delivery).toMatchObject({ installationId: giteaInstallation, event: "needs-human" });

    const fleet = await (await get("/")).text();
    const waiting = /<section id="retrying-notifications">[\s\S]*?<\/section>/.exec(fleet)?.[0] ?? "";
    expect(waiting).toContain(`href="${pageOf(second.number)}"`);
    expect(waiting).toContain(`name="delivery" value="${delivery!.id}"`);

    const tried = sink.requests.length;
    const retried = await post("notification-retry", { delivery: delivery!.id, confirm: "1" });
    expect(retried.status).toBe(200);
    expect(await retried.text()).toContain(`The notification delivery ${delivery!.id} is due now`);
    while ((await stack.app.services.sender.tick()) > 0);
    // Sent again at once (and failed again): the sink saw the Gitea record's delivery.
    expect(sink.requests.length).toBe(tried + 1);
    expect(sink.requests.at(-1)?.body).toContain(`"installationId":${giteaInstallation}`);
    const dropped = await post("notification-drop", { delivery: delivery!.id, confirm: "1" });
    expect(dropped.status).toBe(200);
    expect((await stack.app.services.outbox.retrying(10)).map((d) => d.id)).not.toContain(delivery!.id);

    const paused = await post("janitor-pause", { installationId: String(giteaInstallation), confirm: "1" });
    expect(paused.status).toBe(200);
    expect(await paused.text()).toContain(`The janitor is paused for ${new URL(gitea.sim.url).host}.`);
    expect(await stack.stores.documents.getDocument(`janitor:paused:${giteaInstallation}`)).not.toBeNull();
    expect(
      (await post("janitor-resume", { installationId: String(giteaInstallation), confirm: "1" })).status,
    ).toBe(200);
  });
});
