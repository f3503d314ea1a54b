// Two Gitea instances in one App: the same owner/repo/number on each is its own lease, named by `X-Claim-Hold-Forge: gitea:<host>`; claims, heartbeats, claims/next and webhooks of one instance never touch the other, and a token is only ever sent to the instance it was named for.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClaimHoldClient,
  createClaimHoldClient,
  isClaimHoldError,
} from "../../src/agent/client/index.js";
import { knownAccountNames } from "../../src/dashboard/account-names.js";
import { leaseIdOf } from "../../src/domain/claim.js";
import { giteaInstallationRecordId, giteaInstanceName } from "../../src/domain/forge.js";
import { webBasesOf } from "../../src/domain/web-links.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testAdminToken, testCredentials } from "../support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";
import { agentToken, type GiteaSimFixture, handMadeHooksGitea, startGiteaSimFixture } from "./sim-fixture.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const appId = 1;
const secretOne = "gitea-one-webhook-secret-0001";
const secretTwo = "gitea-two-webhook-secret-0002";
/** A token of an account that exists on instance 2 only. */
const twoOnlyToken = "gitea-sim-two-only-token-00000001";
const recordOne = giteaInstallationRecordId(1);
const recordTwo = giteaInstallationRecordId(2);

function countsOf(routes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const route of routes) counts[route] = (counts[route] ?? 0) + 1;
  return counts;
}

async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => null,
    (error: unknown) =>
      isClaimHoldError(error) ? { status: error.status, code: error.code, message: error.message } : error,
  );
}

const storeKinds = [
  { name: "the memory store", redis: undefined },
  ...(redisProbe.available ? [{ name: "Redis", redis: "shared" as const }] : []),
];

describe.each(storeKinds)("two Gitea instances in one App, on $name", ({ redis }) => {
  const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
  let one: GiteaSimFixture;
  let two: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;
  const issues: { one: SimIssue[]; two: SimIssue[] } = { one: [], two: [] };
  const nameOf = (fixture: GiteaSimFixture) => `gitea:${giteaInstanceName(fixture.sim.url)}`;
  const agent = (forge: string, token = agentToken): ClaimHoldClient =>
    createClaimHoldClient({
      baseUrl: stack.app.url,
      githubToken: token,
      forge,
      retries: 0,
      sleep: async (ms) => {
        stack.app.clock.now += ms;
      },
    });
  /** Marks on both simulators; `since()` answers what each received after it. */
  const mark = () => {
    const at = { one: one.sim.requests.length, two: two.sim.requests.length };
    return () => ({ one: one.sim.routesSince(at.one), two: two.sim.routesSince(at.two) });
  };

  beforeAll(async () => {
    // Built alike, so the repository has the same name and id, and the issues the same numbers, on both.
    one = await startGiteaSimFixture(clock);
    two = await startGiteaSimFixture(clock);
    two.sim.state.addUser("two-only", twoOnlyToken);
    two.repo.permissions.set("two-only", "write");
    for (const [fixture, list] of [
      [one, issues.one],
      [two, issues.two],
    ] as const) {
      list.push(fixture.sim.state.addIssue(fixture.repo, { title: "Task 1", author: "maintainer" }));
      clock.now += 60_000;
      list.push(fixture.sim.state.addIssue(fixture.repo, { title: "Task 2", author: "maintainer" }));
    }
    stack = await startLocalStack({
      ...(redis ? { redis: { kind: redis, keyPrefix: uniqueKeyPrefix("gitea-two") } } : {}),
      credentials: testCredentials(appId),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: clock.now,
          adminToken: testAdminToken,
          gitea: [handMadeHooksGitea(one.sim, secretOne), handMadeHooksGitea(two.sim, secretTwo, 2)],
        }),
    });
    await stack.sim.flush();
  });
  afterAll(async () => {
    await stack?.stop();
    await one?.sim.close();
    await two?.sim.close();
  });

  it("the two instances hold the same repository id and issue numbers (what the keys must keep apart)", () => {
    expect(one.repo.id).toBe(two.repo.id);
    expect(issues.one.map((issue) => issue.number)).toEqual(issues.two.map((issue) => issue.number));
    expect(nameOf(one)).not.toBe(nameOf(two));
  });

  it("a bare gitea is 422 naming both instances, and neither instance is asked", async () => {
    const since = mark();
    const refused = await refusal(
      agent("gitea").claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "x1" } }),
    );
    expect(refused).toEqual({
      status: 422,
      code: "invalid_request",
      message: `This claim-hold serves several Gitea instances: name one in X-Claim-Hold-Forge, one of ${nameOf(one)}, ${nameOf(two)}.`,
    });
    expect(since()).toEqual({ one: [], two: [] });
  });

  it("a token named for instance 1 is sent there alone: refused by it, never tried on instance 2 where it is valid", async () => {
    const since = mark();
    const refused = await refusal(
      agent(nameOf(one), twoOnlyToken).claim({
        repo,
        issue: 1,
        actor: { runtime: "codex", sessionId: "x2" },
      }),
    );
    expect(refused).toMatchObject({ status: 401, code: "unauthorized" });
    expect(since()).toEqual({ one: ["GET /user"], two: [] });
  });

  it("the same owner/repo#1 claimed on each instance is two leases; each claim and heartbeat asks only its own instance", async () => {
    const actor = { runtime: "claude-code", sessionId: "m1", host: "build-1" };
    let since = mark();
    const onOne = await agent(nameOf(one)).claim({ repo, issue: 1, actor, branch: "agent/m1/1-task-1" });
    const first = since();
    expect(countsOf(first.one)).toEqual(CLAIM_REQUESTS);
    expect(first.two).toEqual([]);

    since = mark();
    const onTwo = await agent(nameOf(two)).claim({ repo, issue: 1, actor, branch: "agent/m1/1-task-1" });
    const second = since();
    expect(countsOf(second.two)).toEqual(CLAIM_REQUESTS);
    expect(second.one).toEqual([]);

    expect(onOne).toMatchObject({ created: true, lease: { generation: 1 } });
    expect(onTwo).toMatchObject({ created: true, lease: { generation: 1 } });
    expect(onOne.lease.id).toBe(leaseIdOf({ installationId: recordOne, repoId: one.repo.id, issue: 1 }, 1));
    expect(onTwo.lease.id).toBe(leaseIdOf({ installationId: recordTwo, repoId: two.repo.id, issue: 1 }, 1));
    expect(issues.one[0]?.assignees).toEqual(["fleet-bot"]);
    expect(issues.two[0]?.assignees).toEqual(["fleet-bot"]);

    // Heartbeats are the store's alone, each on its own lease.
    since = mark();
    for (let beat = 0; beat < 2; beat++) {
      stack.app.clock.now += 10_000;
      expect(await agent(nameOf(one)).heartbeat(onOne.lease)).toMatchObject({ state: "active" });
      expect(await agent(nameOf(two)).heartbeat(onTwo.lease)).toMatchObject({ state: "active" });
    }
    expect(since()).toEqual({ one: [], two: [] });
    expect(await agent(nameOf(one)).subject(repo, 1)).toMatchObject({ state: "active", generation: 1 });
    expect(await agent(nameOf(two)).subject(repo, 1)).toMatchObject({ state: "active", generation: 1 });
  });

  it("claims/next on instance 2 picks instance 2's free issue; instance 1 is not asked and its #2 stays free", async () => {
    const since = mark();
    const picked = await agent(nameOf(two)).claimNext({
      repo,
      actor: { runtime: "claude-code", sessionId: "m2" },
    });
    expect(picked.picked).toMatchObject({ issue: 2, rank: 1 });
    expect(picked.lease.id).toBe(leaseIdOf({ installationId: recordTwo, repoId: two.repo.id, issue: 2 }, 1));
    const seen = since();
    expect(countsOf(seen.two)).toEqual(CLAIM_NEXT_REQUESTS);
    expect(seen.one).toEqual([]);
    expect(issues.two[1]?.assignees).toEqual(["fleet-bot"]);
    expect(issues.one[1]?.assignees).toEqual([]);
  });

  it("a pull_request from instance 2 gets its claim-hold status on instance 2 alone; the namesake PR on instance 1 gets its own", async () => {
    const hookUrl = `${stack.app.url}/api/gitea/webhooks`;
    const statusesOn = (fixture: GiteaSimFixture, sha: string) =>
      (fixture.sim.state.repos[0]?.statuses.get(sha) ?? [])
        .filter((status) => status.context === "claim-hold")
        .map((status) => `${status.state}: ${status.description}`);
    const pulls = [one, two].map((fixture) =>
      fixture.sim.state.addPullRequest(fixture.repo, {
        title: "Task 1",
        author: "fleet-bot",
        body: "Closes #1",
        headRef: "agent/m1/1-task-1",
      }),
    );
    const [onOne, onTwo] = pulls as [SimIssue, SimIssue];
    expect(onOne.number).toBe(onTwo.number);
    let since = mark();
    const answer = await two.sim.deliver({
      url: hookUrl,
      secret: secretTwo,
      event: "pull_request",
      payload: two.sim.payloads.pullRequest(two.repo, onTwo, "fleet-bot", "opened"),
    });
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    let seen = since();
    expect(seen.one).toEqual([]);
    expect(seen.two).toEqual(FENCE_REQUESTS);
    expect(statusesOn(two, onTwo.pull?.headSha ?? "")).toEqual([
      "failure: Not attested by the current holder",
    ]);
    expect(statusesOn(one, onOne.pull?.headSha ?? "")).toEqual([]);

    since = mark();
    await one.sim.deliver({
      url: hookUrl,
      secret: secretOne,
      event: "pull_request",
      payload: one.sim.payloads.pullRequest(one.repo, onOne, "fleet-bot", "opened"),
    });
    seen = since();
    expect(seen.two).toEqual([]);
    expect(seen.one).toEqual(FENCE_REQUESTS);
    expect(statusesOn(one, onOne.pull?.headSha ?? "")).toEqual([
      "failure: Not attested by the current holder",
    ]);
  });

  it("the dashboard names each instance's record after its host and links its claims to its own instance", async () => {
    const login = await fetch(`${stack.app.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: testAdminToken }).toString(),
      redirect: "manual",
    });
    const cookie = login.headers.get("set-cookie")?.split(";")[0] ?? "";
    const page = await (await fetch(`${stack.app.url}/`, { headers: { cookie } })).text();
    const section = (record: number) =>
      new RegExp(`<section data-installation="${record}">[\\s\\S]*?</section>`).exec(page)?.[0] ?? "";
    for (const [record, own, other] of [
      [recordOne, one, two],
      [recordTwo, two, one],
    ] as const) {
      const rows = section(record);
      expect(rows).toContain(`<h2 title="installation ${record}">${giteaInstanceName(own.sim.url)}</h2>`);
      expect(rows).toContain(`href="${own.sim.url}/octo/widgets/issues/1"`);
      expect(rows).not.toContain(other.sim.url);
    }
    const subject = await fetch(`${stack.app.url}/subjects/gitea/${recordTwo}/octo/widgets/2`, {
      headers: { cookie },
    });
    expect(subject.status).toBe(200);
    const html = await subject.text();
    expect(html).toContain(`href="${two.sim.url}/octo/widgets/issues/2"`);
    expect(html).not.toContain(one.sim.url);
  });

  let reclaimDelivery = "";
  it("/reclaim delivered from instance 2 takes back instance 2's #1 and leaves instance 1's claim alone", async () => {
    const hookUrl = `${stack.app.url}/api/gitea/webhooks`;
    const issue = issues.two[0] as SimIssue;
    const comment = two.sim.state.addComment(issue, "maintainer", "/reclaim");
    const payload = two.sim.payloads.issueComment(two.repo, issue, comment.id, "maintainer");

    // The App's own hook URL naming instance 1 does not make instance 2's signature instance 1's.
    let since = mark();
    const misnamed = await two.sim.deliver({
      url: `${hookUrl}?instance=1`,
      secret: secretTwo,
      event: "issue_comment",
      payload,
    });
    expect(misnamed.status).toBe(401);
    expect(since()).toEqual({ one: [], two: [] });

    since = mark();
    const answer = await two.sim.deliver({
      url: `${hookUrl}?instance=2&fingerprint=x`,
      secret: secretTwo,
      event: "issue_comment",
      payload,
    });
    expect(answer).toMatchObject({ status: 200, body: { status: "processed" } });
    reclaimDelivery = answer.deliveryId;
    const seen = since();
    expect(seen.one).toEqual([]);
    expect(countsOf(seen.two)).toEqual(countsOf([...RECLAIM_REQUESTS, ...FENCE_RECHECK_REQUESTS]));
    expect(issue.assignees).toEqual(["maintainer"]);
    // Past the reads' shared answer window (docs/reference/http-api.md#reads).
    stack.app.clock.now += 6_000;
    expect(await agent(nameOf(two)).subject(repo, 1)).toMatchObject({
      state: "human",
      generation: 2,
      actor: { kind: "human", login: "maintainer" },
    });
    // Instance 1's claim of the same owner/repo#1: untouched, in the store and on instance 1.
    expect(await agent(nameOf(one)).subject(repo, 1)).toMatchObject({
      state: "active",
      generation: 1,
      actor: { login: "fleet-bot" },
    });
    expect(issues.one[0]?.assignees).toEqual(["fleet-bot"]);
    expect(issues.one[0]?.comments.some((c) => c.body.includes("/reclaim"))).toBe(false);
  });

  it("the same /reclaim signed with instance 1's secret, under the same delivery id, acts on instance 1, not instance 2", async () => {
    const issue = issues.one[0] as SimIssue;
    const comment = one.sim.state.addComment(issue, "maintainer", "/reclaim");
    const since = mark();
    const answer = await one.sim.deliver({
      url: `${stack.app.url}/api/gitea/webhooks`,
      secret: secretOne,
      event: "issue_comment",
      payload: one.sim.payloads.issueComment(one.repo, issue, comment.id, "maintainer"),
      // Each instance's delivery ids are its own: instance 2's, handled, never hides instance 1's.
      deliveryId: reclaimDelivery,
    });
    expect(answer.status).toBe(200);
    const seen = since();
    expect(seen.two).toEqual([]);
    // The PR author's permission was read on instance 1 by the subject read just before: cached.
    expect(countsOf(seen.one)).toEqual(countsOf([...RECLAIM_REQUESTS, ...FENCE_REQUESTS.slice(0, 3)]));
    expect(issue.assignees).toEqual(["maintainer"]);
    stack.app.clock.now += 6_000;
    expect(await agent(nameOf(one)).subject(repo, 1)).toMatchObject({ state: "human", generation: 2 });
    // Instance 2's claims/next pick (#2) is still held.
    expect(await agent(nameOf(two)).subject(repo, 2)).toMatchObject({ state: "active", generation: 1 });
  });
});

describe.each(storeKinds)("the janitor over two Gitea instances, on $name", ({ redis }) => {
  const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
  let one: GiteaSimFixture;
  let two: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;
  const issues: { one?: SimIssue; two?: SimIssue } = {};

  beforeAll(async () => {
    one = await startGiteaSimFixture(clock);
    two = await startGiteaSimFixture(clock);
    issues.one = one.sim.state.addIssue(one.repo, { title: "Task 1", author: "maintainer" });
    issues.two = two.sim.state.addIssue(two.repo, { title: "Task 1", author: "maintainer" });
    stack = await startLocalStack({
      ...(redis ? { redis: { kind: redis, keyPrefix: uniqueKeyPrefix("gitea-two-janitor") } } : {}),
      credentials: testCredentials(appId),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: clock.now,
          gitea: [handMadeHooksGitea(one.sim, secretOne), handMadeHooksGitea(two.sim, secretTwo, 2)],
        }),
    });
    await stack.sim.flush();
  });
  afterAll(async () => {
    await stack?.stop();
    await one?.sim.close();
    await two?.sim.close();
  });

  it("reaps instance 2's silent claim on instance 2, and leaves instance 1's live claim of the same owner/repo#1 alone", async () => {
    const agent = (fixture: GiteaSimFixture) =>
      createClaimHoldClient({
        baseUrl: stack.app.url,
        githubToken: agentToken,
        forge: `gitea:${giteaInstanceName(fixture.sim.url)}`,
        retries: 0,
        sleep: async (ms) => {
          stack.app.clock.now += ms;
        },
      });
    const actor = { runtime: "codex", sessionId: "j1" };
    const onOne = await agent(one).claim({ repo, issue: 1, actor });
    await agent(two).claim({ repo, issue: 1, actor });
    // Instance 2's holder falls silent; instance 1's keeps heartbeating.
    for (let beat = 0; beat < 24; beat++) {
      stack.app.clock.now += 5 * 60_000;
      await agent(one).heartbeat(onOne.lease);
    }
    const at = { one: one.sim.requests.length, two: two.sim.requests.length };
    const report = await stack.app.services.janitor.sweep();
    // One subject name on two records: the one reaped is instance 2's (its issue, its requests).
    expect(report.installations).toBe(2);
    expect(report.actions.map((action) => [action.subject, action.action])).toEqual([[`${repo}#1`, "reap"]]);
    expect(one.sim.routesSince(at.one)).toEqual([]);
    expect(countsOf(two.sim.routesSince(at.two))).toEqual(REAP_REQUESTS);
    expect(issues.one?.assignees).toEqual(["fleet-bot"]);
    expect(issues.two?.assignees).toEqual([]);
  });
});

describe("each instance's writes are serialised apart", () => {
  const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
  let one: GiteaSimFixture;
  let two: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;

  beforeAll(async () => {
    one = await startGiteaSimFixture(clock);
    two = await startGiteaSimFixture(clock);
    for (const fixture of [one, two]) {
      fixture.sim.state.addIssue(fixture.repo, { title: "Task 1", author: "maintainer" });
    }
    stack = await startLocalStack({
      credentials: testCredentials(appId),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: clock.now,
          gitea: [handMadeHooksGitea(one.sim, secretOne), handMadeHooksGitea(two.sim, secretTwo, 2)],
        }),
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await one?.sim.close();
    await two?.sim.close();
  });

  it("a write held on instance 1 does not hold instance 2's claim: each instance has its own write limiter", async () => {
    const agent = (fixture: GiteaSimFixture) =>
      createClaimHoldClient({
        baseUrl: stack.app.url,
        githubToken: agentToken,
        forge: `gitea:${giteaInstanceName(fixture.sim.url)}`,
        retries: 0,
      });
    const held = one.sim.hold({ route: "PATCH /repos/{owner}/{repo}/issues/{index}" });
    const onOne = agent(one).claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "w1" } });
    await held.arrived;
    // Instance 1's limiter is busy with the held write; instance 2's claim writes all the same.
    const onTwo = await Promise.race([
      agent(two).claim({ repo, issue: 1, actor: { runtime: "codex", sessionId: "w2" } }),
      new Promise<"stuck">((resolve) => setTimeout(() => resolve("stuck"), 5_000)),
    ]);
    expect(onTwo).toMatchObject({ created: true });
    held.release();
    expect(await onOne).toMatchObject({ created: true });
  });
});

describe("each instance's record has its own web base and dashboard name", () => {
  const instances = [
    { url: "https://gitea.example.com", installationId: 1 },
    { url: "http://127.0.0.1:3001/", installationId: 2 },
  ];
  it.each([
    [recordOne, { forge: "gitea", url: "https://gitea.example.com" }, "gitea.example.com"],
    [recordTwo, { forge: "gitea", url: "http://127.0.0.1:3001" }, "127.0.0.1:3001"],
    [giteaInstallationRecordId(3), null, ""],
    [42, { forge: "github", url: "https://github.com" }, null],
  ])("record %s", (record, base, name) => {
    expect(webBasesOf({ github: "https://github.com", gitea: instances })(record)).toEqual(base);
    expect(knownAccountNames(instances)(record)).toBe(name);
  });
});

/** A first claim on a repository of two open issues: as in test/gitea/gitea-lease-api.test.ts, a dependency read per open issue. */
const CLAIM_REQUESTS: Record<string, number> = {
  "GET /user": 2,
  "GET /repos/{owner}/{repo}": 1,
  "GET /repos/{owner}/{repo}/issues": 1,
  "GET /repos/{owner}/{repo}/issues/{index}/dependencies": 2,
  "GET /repos/{owner}/{repo}/pulls": 2,
  "GET /repos/{owner}/{repo}/branches/{branch}": 1,
  "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": 1,
  "GET /repos/{owner}/{repo}/raw/{filepath}": 2,
  "GET /repos/{owner}/{repo}/issues/{index}": 2,
  "GET /repos/{owner}/{repo}/labels": 1,
  "POST /repos/{owner}/{repo}/labels": 1,
  "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/labels": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
};
/**
 * A pick on instance 2's fresh index: as in test/gitea/gitea-queue.test.ts, with the agent's token
 * and the bot's login known to instance 2's identity (its claim) and the labels already made.
 */
const CLAIM_NEXT_REQUESTS: Record<string, number> = {
  "GET /repos/{owner}/{repo}/issues/{index}": 2,
  "GET /repos/{owner}/{repo}/pulls": 1,
  "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/labels": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
};
/**
 * `/reclaim` with the bot's login, the config and the instance's labels known (its claims read them):
 * the comment as Gitea serves it, 👀, the maintainer's permission, the take-back's reads and writes,
 * as in test/gitea/gitea-webhooks.test.ts.
 */
const RECLAIM_REQUESTS = [
  "GET /repos/{owner}/{repo}/issues/comments/{id}",
  "POST /repos/{owner}/{repo}/issues/comments/{id}/reactions",
  "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission",
  "GET /repos/{owner}/{repo}/issues/{index}",
  "GET /repos/{owner}/{repo}/issues/{index}/comments",
  "GET /repos/{owner}/{repo}/pulls",
  "GET /repos/{owner}/{repo}/issues/{index}",
  "PATCH /repos/{owner}/{repo}/issues/{index}",
  "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}",
  "PATCH /repos/{owner}/{repo}/issues/comments/{id}",
  "POST /repos/{owner}/{repo}/issues/{index}/comments",
  "POST /repos/{owner}/{repo}/issues/{index}/comments",
];
/** One fence evaluation, its status written: as in test/gitea/gitea-fence.test.ts, the repository config cached by the claim. */
const FENCE_REQUESTS = [
  "GET /repos/{owner}/{repo}/pulls/{index}",
  "GET /repos/{owner}/{repo}/pulls/{index}/commits",
  "GET /repos/{owner}/{repo}/statuses/{sha}",
  "POST /repos/{owner}/{repo}/statuses/{sha}",
];
/**
 * The fence's re-check of the issue's open PR after the take-back, among the take-back's writes: no
 * write, the status already saying it. The PR's author's permission is the instance's shared cache's
 * (read by the take-back's subject read), so it costs no request here.
 */
const FENCE_RECHECK_REQUESTS = FENCE_REQUESTS.slice(0, 3);
/**
 * A silent claim reaped, as in test/gitea/gitea-queue.test.ts: the config (`.gitea/` then
 * `.github/`), the due claim's issue, comments, open pull requests and branch; then the reap's
 * writes (the issue read again, the assignee, the label, the claim comment, the audit comment).
 */
const REAP_REQUESTS: Record<string, number> = {
  "GET /repos/{owner}/{repo}/raw/{filepath}": 2,
  "GET /repos/{owner}/{repo}/issues/{index}": 2,
  "GET /repos/{owner}/{repo}/issues/{index}/comments": 1,
  "GET /repos/{owner}/{repo}/pulls": 1,
  "GET /repos/{owner}/{repo}/branches/{branch}": 1,
  "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
  "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}": 1,
  "PATCH /repos/{owner}/{repo}/issues/comments/{id}": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
};
