// A Gitea claim beside a GitHub claim on the dashboard: each row, its notification and its installation's name point at its own forge; a Gitea delivery is timed in the webhook histogram.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import { NotifyEvent } from "../../src/config/repo-config.js";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import type { GiteaWebhookEvent } from "../../src/providers/gitea/gitea-webhook-events.js";
import { giteaDurationEvent } from "../../src/wiring/gitea-webhooks.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type SinkServer, startSinkServer } from "../notify/support/sink-server.js";
import { type AppHarness, startApp, testAdminToken, testCredentials } from "../support/app-harness.js";
import { seedAgentClaim } from "../support/seed-claims.js";
import {
  agentToken,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const repo = "octo/widgets";
const appId = 1;
const githubInstallation = 1;
const githubAgent = { login: "fleet-bot", id: 501, token: "ghp_fleetbot00000000000000000000000links" };
const webhookSecret = "gitea-webhook-secret-for-tests";

describe("links, names and metrics of a Gitea claim", () => {
  const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
  let gitea: GiteaSimFixture;
  let sink: SinkServer;
  let stack: LocalStack<AppHarness>;
  let issue: SimIssue;

  beforeAll(async () => {
    gitea = await startGiteaSimFixture(clock);
    sink = await startSinkServer();
    issue = gitea.sim.state.addIssue(gitea.repo, { title: "Gitea task", author: "maintainer" });
    stack = await startLocalStack({
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
    stack.sim.seed({
      users: [{ login: githubAgent.login, id: githubAgent.id, tokens: [githubAgent.token] }],
      repos: [
        {
          fullName: repo,
          id: gitea.repo.id,
          collaborators: { [githubAgent.login]: "write" },
          issues: [{ number: 7, title: "GitHub task", author: githubAgent.login }],
        },
      ],
      installations: [{ id: githubInstallation, account: "octo-on-github", repos: [repo] }],
    });
    await stack.sim.flush();
  });
  afterAll(async () => {
    await stack?.stop();
    await gitea?.sim.close();
    await sink?.close();
  });

  const client = (token: string, forge?: string) =>
    createClaimHoldClient({
      baseUrl: stack.app.url,
      githubToken: token,
      ...(forge ? { forge } : {}),
      retries: 0,
      sleep: async (ms) => {
        stack.app.clock.now += ms;
      },
    });

  async function login(): Promise<string> {
    const response = await fetch(`${stack.app.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: testAdminToken }).toString(),
      redirect: "manual",
    });
    return response.headers.get("set-cookie")!.split(";")[0]!;
  }

  async function fleetPage(cookie?: string): Promise<string> {
    const session = cookie ?? (await login());
    return (await fetch(`${stack.app.url}/`, { headers: { cookie: session } })).text();
  }

  it("the dashboard row and the notification of a Gitea claim link to the Gitea instance, a GitHub claim's to GitHub", async () => {
    const giteaAgent = client(agentToken, "gitea");
    const branch = "agent/g1/1-gitea-task";
    const { lease } = await giteaAgent.claim({
      repo,
      issue: issue.number,
      actor: { runtime: "claude-code", sessionId: "g1" },
      branch,
    });
    await client(githubAgent.token).claim({ repo, issue: 7, actor: { runtime: "codex", sessionId: "h1" } });
    // The Gitea holder asks for a person: the needs-human notification, delivered.
    expect(await giteaAgent.heartbeat(lease, { needsHuman: true, blocker: "which widget?" })).toMatchObject({
      state: "waiting",
    });
    await stack.app.services.notifier.flush();
    while ((await stack.app.services.sender.tick()) > 0);
    expect(sink.requests.map((r) => JSON.parse(r.body))).toMatchObject([
      { event: "needs-human", subject: `${repo}#${issue.number}`, installationId: giteaInstallation },
    ]);

    const page = await fleetPage();
    const giteaSection =
      new RegExp(`<section data-installation="${giteaInstallation}">[\\s\\S]*?</section>`).exec(page)?.[0] ??
      "";
    const githubSection =
      new RegExp(`<section data-installation="${githubInstallation}">[\\s\\S]*?</section>`).exec(page)?.[0] ??
      "";
    const giteaHost = new URL(gitea.sim.url).host;
    // The Gitea record is named after its instance, GitHub's after the account GitHub names.
    expect(giteaSection).toContain(`<h2 title="installation ${giteaInstallation}">${giteaHost}</h2>`);
    expect(githubSection).toContain(">octo-on-github</h2>");
    expect(giteaSection).toContain(`href="${gitea.sim.url}/octo/widgets/issues/${issue.number}"`);
    expect(giteaSection).toContain(`href="${gitea.sim.url}/octo/widgets/src/branch/agent/g1/1-gitea-task"`);
    expect(giteaSection).toContain(">Gitea</a>");
    expect(githubSection).toContain(`href="${stack.sim.url}/octo/widgets/issues/7"`);
    expect(githubSection).not.toContain(gitea.sim.url);

    const notifications = /<section id="recent-notifications">[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
    expect(notifications).toContain('data-notification="needs-human"');
    expect(notifications).toContain(`href="${gitea.sim.url}/octo/widgets/issues/${issue.number}"`);
    // GitHub was never asked for the Gitea record's account, so nothing was logged about it.
    expect(stack.app.logs.filter((line) => line.includes("installation account not read"))).toEqual([]);
  });

  it("a Gitea row's subject page and actions name the Gitea record; a form naming it never acts on GitHub's namesake", async () => {
    // The claims of the test before: the Gitea holder asks for a person, GitHub's #7 is held.
    const cookie = await login();
    const page = await fleetPage(cookie);
    const section = (id: number) =>
      new RegExp(`<section data-installation="${id}">[\\s\\S]*?</section>`).exec(page)?.[0] ?? "";
    const giteaPage = `/subjects/gitea/${giteaInstallation}/${repo}/${issue.number}`;
    expect(section(giteaInstallation)).toContain(`<a href="${giteaPage}" data-subject-page="true">`);
    expect(section(giteaInstallation)).toContain("/dashboard/actions/release");
    expect(section(giteaInstallation)).toContain(`name="installationId" value="${giteaInstallation}"`);
    expect(section(githubInstallation)).toContain("/dashboard/actions/release");
    expect(section(githubInstallation)).not.toContain('name="installationId"');
    const needsYou = /<section id="needs-you"[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
    expect(needsYou).toContain(`href="${giteaPage}"`);
    expect(needsYou).toContain("/dashboard/actions/clear-needs-human");
    // The notification's subject links to the Gitea subject's page.
    const notifications = /<section id="recent-notifications">[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
    expect(notifications).toContain(`href="${giteaPage}"`);

    // GitHub's #7 named with the Gitea record is Gitea's #7, which does not exist: nothing changes anywhere.
    const token = /name="token" value="([A-Za-z0-9_-]{43})"/.exec(page)![1]!;
    const before = structuredClone(stack.sim.issue(repo, 7));
    for (const action of ["release", "requeue", "clear-needs-human"]) {
      const forged = await fetch(`${stack.app.url}/dashboard/actions/${action}`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie,
          origin: stack.app.url,
        },
        body: new URLSearchParams({
          token,
          repo,
          issue: "7",
          installationId: String(giteaInstallation),
          confirm: "1",
        }).toString(),
        redirect: "manual",
      });
      expect(forged.status, action).toBe(409);
      expect(await forged.text(), action).toContain(`${repo}#7 is not an issue the App can read.`);
    }
    await stack.sim.flush();
    expect(stack.sim.issue(repo, 7)).toStrictEqual(before);
    expect(stack.sim.issue(repo, 7).assignees).toEqual([githubAgent.login]);
  });

  it("a handled Gitea delivery is observed in the webhook-duration histogram as gitea:<event>, an ignored one is not", async () => {
    const hooks = `${stack.app.url}/api/gitea/webhooks`;
    const pushed = await gitea.sim.deliver({
      url: hooks,
      secret: webhookSecret,
      event: "push",
      payload: gitea.sim.payloads.push(gitea.repo, "refs/heads/agent/g1/1-gitea-task", "fleet-bot"),
    });
    expect(pushed.status).toBe(200);
    const ignored = await gitea.sim.deliver({
      url: hooks,
      secret: webhookSecret,
      event: "repository",
      payload: { action: "created" },
    });
    expect(ignored.status).toBe(202);
    const observed = (await stack.app.services.metrics.webhookDuration.get()).values
      .filter((v) => v.metricName === "claim_hold_webhook_duration_seconds_count")
      .map((v) => [v.labels.event, v.value]);
    expect(observed).toContainEqual(["gitea:push", 1]);
    expect(observed.filter(([event]) => String(event).includes("repository"))).toEqual([]);
  });

  it("a claim of a Gitea record no instance is served under gets no link and no name, and GitHub is not asked about it", async () => {
    const unserved = giteaInstallationRecordId(2);
    await seedAgentClaim(stack.stores, {
      key: { installationId: unserved, repoId: 4242, issue: 3 },
      repo: "octo/elsewhere",
      actor: { login: "fleet-bot", sessionId: "u1", runtime: "claude-code" },
      now: stack.app.clock.now,
    });
    await stack.stores.installations.rememberInstallation(unserved);
    const page = await fleetPage();
    const section =
      new RegExp(`<section data-installation="${unserved}">[\\s\\S]*?</section>`).exec(page)?.[0] ?? "";
    expect(section).toContain("octo/elsewhere#3");
    expect(section).toContain(`<h2 title="installation ${unserved}">installation ${unserved}</h2>`);
    expect(section).not.toContain('href="http');
    expect(section).not.toContain(">Gitea</a>");
    expect(section).not.toContain(">GitHub</a>");
    expect(stack.app.logs.filter((line) => line.includes("installation account not read"))).toEqual([]);
  });
});

describe("giteaDurationEvent: a handled Gitea delivery's event label", () => {
  const repository = { id: 1, fullName: repo };
  const a = { id: 1, login: "a" };
  const pr = { number: 3, state: "open" as const, headSha: "abc", headRef: "b", headRepoId: 1, author: a };
  const changed = { body: false, base: false };
  it.each<[Exclude<GiteaWebhookEvent, { kind: "ignored" }>, string]>([
    [
      {
        kind: "comment-created",
        repository,
        issue: 1,
        onPullRequest: false,
        comment: { id: 1, body: "", author: a },
        sender: a,
      },
      "gitea:issue_comment.created",
    ],
    [{ kind: "issue-closed", repository, issue: 1, sender: a }, "gitea:issues.closed"],
    [
      {
        kind: "issue-lists-now",
        repository,
        issue: 1,
        action: "label_updated",
        changed: "labels",
        now: [],
        sender: a,
      },
      "gitea:issues.label_updated",
    ],
    [{ kind: "push", repository, ref: "refs/heads/x", deleted: false, sender: a }, "gitea:push"],
    [
      { kind: "pull-request", action: "synchronized", repository, pullRequest: pr, changed, sender: a },
      "gitea:pull_request.synchronize",
    ],
    [
      { kind: "pull-request", action: "opened", repository, pullRequest: pr, changed, sender: a },
      "gitea:pull_request.opened",
    ],
  ])("%o is observed as %s", (read, event) => {
    expect(giteaDurationEvent(read)).toBe(event);
  });
});
