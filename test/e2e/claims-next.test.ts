// End to end over HTTP on real Redis: claims/next hands N concurrent agents N distinct issues, in the queue's order, at a claim's GitHub cost.
import { afterEach, describe, expect, it } from "vitest";
import { NextResponseSchema, QueueResponseSchema } from "../../src/contract/queue-responses.js";
import type { CandidateFacts, QueueRepo } from "../../src/providers/queue-store.js";
import { startApp, testAdminToken } from "../support/app-harness.js";
import { probeRedis } from "../support/redis.js";
import {
  appId,
  claimMarkers,
  type E2eWorld,
  fleet,
  installationId,
  maintainer,
  reader,
  repo,
  startWorld,
} from "./support/e2e-world.js";

const redisProbe = await probeRedis();
const queueRepo: QueueRepo = { installationId, repoId: 1296269, repo };
const T0 = Date.parse("2026-11-01T00:00:00Z");
let world: E2eWorld;

afterEach(() => world?.close());

/** The index entry of an issue as the feed would write it (created an hour apart, in number order). */
function facts(issue: number, extra: Partial<CandidateFacts> = {}): CandidateFacts {
  return {
    issue,
    title: `Task ${issue}`,
    createdAt: T0 + issue * 3_600_000,
    labels: [],
    assignees: [],
    blockers: [],
    openSubIssues: 0,
    closingPullRequests: [],
    ...extra,
  };
}

/** A world whose octo/widgets has issues #1…#count, with `labels` on GitHub as the index will say. */
async function worldWith(
  count: number,
  config?: string,
  labels: Record<number, string[]> = {},
): Promise<E2eWorld> {
  const issues = Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    title: `Task ${i + 1}`,
    ...(labels[i + 1] ? { labels: labels[i + 1] } : {}),
  }));
  world = await startWorld({ issues, ...(config ? { config } : {}) });
  return world;
}

/** Warms the App's token, installation and permission caches (a read route costs them once). */
const warm = (token = fleet.token) => call("GET", `/api/v1/repos/${repo}/queue`, undefined, token);

interface Answer {
  status: number;
  body: Record<string, unknown> & {
    picked?: { issue: number; rank: number; reasons: string[] };
    lease?: { generation: number; subject: string; branch: string };
    error?: string;
    skipped?: Record<string, number>;
  };
}

async function call(
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  token = fleet.token,
  baseUrl = world.app.url,
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

const next = (sessionId: string, extra: Record<string, unknown> = {}, baseUrl?: string) =>
  call(
    "POST",
    "/api/v1/claims/next",
    { repo, actor: { runtime: "codex", sessionId }, ...extra },
    fleet.token,
    baseUrl,
  );

const claim = (issue: number, sessionId: string, extra: Record<string, unknown> = {}) =>
  call("POST", "/api/v1/claims", { repo, issue, actor: { runtime: "codex", sessionId }, ...extra });

/** 50 callers split over `urls`: 30 distinct 201s, 20 × queue_empty, every issue claimed once on GitHub. */
async function raceFifty(urls: string[]) {
  const { sim } = world;
  await world.stores.queue.replaceCandidates(
    queueRepo,
    Array.from({ length: 30 }, (_, i) => facts(i + 1)),
    world.app.clock.now,
  );
  // Warm the authentication caches of every replica, so the racers reach the store together.
  for (const url of urls) await call("GET", `/api/v1/repos/${repo}/queue`, undefined, fleet.token, url);
  const mark = sim.requests.mark();
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, n) => next(`racer-${n}`, {}, urls[n % urls.length])),
  );
  await sim.flush();
  const won = answers.filter((a) => a.status === 201);
  const issues = won.map((a) => a.body.picked!.issue).sort((a, b) => a - b);
  expect(issues).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  for (const a of won) expect(a.body.lease!.subject).toBe(`${repo}#${a.body.picked!.issue}`);
  const empty = answers.filter((a) => a.status !== 201);
  expect(empty.map((a) => [a.status, a.body.error])).toEqual(
    Array.from({ length: 20 }, () => [409, "queue_empty"]),
  );
  // Every issue has exactly one claim, on GitHub too: one mutation each, one claim comment each.
  expect(sim.requests.count({ operation: "ApplyTransition" }, mark)).toBe(30);
  for (let issue = 1; issue <= 30; issue++) {
    expect(claimMarkers(sim, issue)).toEqual([{ generation: 1, state: "active" }]);
  }
}

describe.skipIf(!redisProbe.available)("POST /api/v1/claims/next through the simulator", () => {
  it("50 concurrent callers over 30 eligible issues: 30 distinct claims and 20 × 409 queue_empty", async () => {
    await worldWith(30, "limits: { claimsPerLogin: 100 }\n");
    await raceFifty([world.app.url]);
  });

  it("the same with two App replicas on one Redis", async () => {
    await worldWith(30, "limits: { claimsPerLogin: 100 }\n");
    const replica = await world.stack.addApp((wiring) =>
      startApp({
        stores: wiring.stores,
        fences: wiring.fences,
        githubBaseUrl: wiring.githubBaseUrl,
        appId,
        now: world.app.clock.now,
        adminToken: testAdminToken,
      }),
    );
    await raceFifty([world.app.url, replica.url]);
  });

  it("picks in the queue's order with its reasons, at exactly a claim's GitHub requests", async () => {
    const { sim } = await worldWith(5, undefined, { 3: ["p1"], 5: ["p0"] });
    await world.stores.queue.replaceCandidates(
      queueRepo,
      [facts(1), facts(2), facts(3, { labels: ["p1"] }), facts(4), facts(5, { labels: ["p0"] })],
      world.app.clock.now,
    );
    await warm();
    const first = await next("s1");
    expect(first.status).toBe(201);
    expect(first.body.picked).toEqual({ issue: 5, rank: 1, reasons: ["priority:p0", "oldest"] });
    expect(NextResponseSchema.safeParse(first.body).success).toBe(true);
    expect(first.body).toMatchObject({
      lease: { generation: 1, subject: `${repo}#5` },
      resume: null,
      overlaps: [],
    });
    expect(sim.issue(repo, 5)).toMatchObject({ assignees: [fleet.login], labels: ["p0", "agent:claimed"] });

    let mark = sim.requests.mark();
    const second = await next("s2");
    expect(second.body.picked).toEqual({ issue: 3, rank: 1, reasons: ["priority:p1", "oldest"] });
    const pickRequests = sim.requests.counts(mark);
    expect(pickRequests).toEqual({ "graphql:SubjectStatus": 1, "graphql:ApplyTransition": 1 });

    // A direct claim of the same repository costs the same.
    mark = sim.requests.mark();
    expect((await claim(4, "s3")).status).toBe(201);
    expect(sim.requests.counts(mark)).toEqual(pickRequests);

    const third = await next("s4");
    expect(third.body.picked).toEqual({ issue: 1, rank: 1, reasons: ["unprioritized", "oldest"] });
  });

  it("queue.order newest and the caller's label filters, merged with the repository's", async () => {
    await worldWith(5, "queue: { order: newest, excludeLabels: [wontfix] }\n", {
      1: ["agent-ready"],
      2: ["agent-ready", "needs-design"],
      4: ["agent-ready", "wontfix"],
    });
    await world.stores.queue.replaceCandidates(
      queueRepo,
      [
        facts(1, { labels: ["agent-ready"] }),
        facts(2, { labels: ["agent-ready", "needs-design"] }),
        facts(3),
        facts(4, { labels: ["agent-ready", "wontfix"] }),
      ],
      world.app.clock.now,
    );
    const picked = await next("s1", { labels: ["agent-ready"], excludeLabels: ["needs-design"] });
    expect(picked.body.picked).toEqual({ issue: 1, rank: 1, reasons: ["unprioritized", "newest"] });
    const empty = await next("s2", { labels: ["agent-ready"], excludeLabels: ["needs-design"] });
    expect(empty).toMatchObject({ status: 409, body: { error: "queue_empty" } });
    expect(empty.body.skipped).toMatchObject({ held: 1, filtered: 3 });
    expect((await next("s3")).body.picked?.issue).toBe(3);
  });

  it("a stale index entry never yields an ineligible claim: the claim's read catches it, the entry is corrected", async () => {
    const { sim } = await worldWith(4);
    await world.stores.queue.replaceCandidates(
      queueRepo,
      [facts(1), facts(2), facts(3), facts(4)],
      world.app.clock.now,
    );
    // Deliveries the index never saw: #1 closed, a human took #2, someone else's PR closes #3.
    sim.closeIssue({ repo, issue: 1, login: maintainer.login });
    sim.assign({ repo, issue: 2, assignees: [maintainer.login], login: maintainer.login });
    sim.openPull({ repo, author: maintainer.login, head: "feature/three", body: "Fixes #3" });
    await sim.flush();
    // The feed saw those webhooks; the index goes back to what it was, as if they had been dropped.
    await world.stores.queue.replaceCandidates(
      queueRepo,
      [facts(1), facts(2), facts(3), facts(4)],
      world.app.clock.now,
    );
    await warm();
    const mark = sim.requests.mark();
    const answer = await next("s1");
    expect(answer.status).toBe(201);
    expect(answer.body.picked?.issue).toBe(4);
    // One confirming read per stale entry, and a write only for the claim made.
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 4, "graphql:ApplyTransition": 1 });
    expect(claimMarkers(sim, 1)).toEqual([]);
    expect(claimMarkers(sim, 2)).toEqual([]);
    expect(claimMarkers(sim, 3)).toEqual([]);
    expect(sim.issue(repo, 2).assignees).toEqual([maintainer.login]);
    const page = await world.stores.queue.rankedCandidates(
      queueRepo,
      { priority: ["p0", "p1", "p2", "p3"], order: "oldest" },
      {
        offset: 0,
        limit: 10,
      },
    );
    expect(page.candidates.map((c) => c.issue)).toEqual([2, 3, 4]);
    expect(page.candidates[0]?.assignees).toEqual([maintainer.login]);
    expect(page.candidates[1]?.closingPullRequests.map((pr) => pr.headRefName)).toEqual(["feature/three"]);
    // The corrected index costs the next pick nothing: nothing is left, and nothing is read.
    const before = sim.requests.mark();
    expect(await next("s2")).toMatchObject({ status: 409, body: { error: "queue_empty" } });
    expect(sim.requests.count({}, before)).toBe(0);
  });

  it("gives up after 5 confirming reads that show stale entries; the next pick goes on from there", async () => {
    const { sim } = await worldWith(7);
    for (let issue = 1; issue <= 6; issue++) sim.closeIssue({ repo, issue, login: maintainer.login });
    await sim.flush();
    const stale = Array.from({ length: 7 }, (_, i) => facts(i + 1));
    await world.stores.queue.replaceCandidates(queueRepo, stale, world.app.clock.now);
    await warm();
    let mark = sim.requests.mark();
    const gaveUp = await next("s1");
    expect(gaveUp).toMatchObject({ status: 409, body: { error: "queue_empty", skipped: { closed: 5 } } });
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 5 });
    mark = sim.requests.mark();
    const picked = await next("s1");
    expect(picked.body.picked?.issue).toBe(7);
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 2, "graphql:ApplyTransition": 1 });
  });

  it("409 queue_empty counts why each issue was skipped", async () => {
    await worldWith(6);
    await world.stores.queue.replaceCandidates(
      queueRepo,
      [
        facts(1),
        facts(2, { blockers: [`${repo}#1`] }),
        facts(3, { closingPullRequests: [{ number: 40, headRefName: "feature/x", author: "alice" }] }),
        facts(4, { labels: ["claim-hold:pinned"] }),
        facts(5, { assignees: ["alice"] }),
        facts(6, { openSubIssues: 2, labels: ["agent:over-budget"] }),
      ],
      world.app.clock.now,
    );
    expect((await claim(1, "holder")).status).toBe(201);
    const empty = await next("s1");
    expect(empty).toMatchObject({ status: 409, body: { error: "queue_empty" } });
    expect(empty.body.skipped).toEqual({
      held: 1,
      human: 1,
      blocked: 1,
      prOpen: 1,
      filtered: 0,
      missingCapability: 0,
      failing: 0,
      exempt: 1,
      overBudget: 1,
      subIssues: 0,
      closed: 0,
      reserved: 0,
    });
  });

  it("includeTakeovers offers a reclaimable claim: taken over, resumed on its branch", async () => {
    await worldWith(1);
    await world.stores.queue.replaceCandidates(queueRepo, [facts(1)], world.app.clock.now);
    const first = await next("A");
    expect(first.body.picked?.issue).toBe(1);
    world.app.clock.now += 61_000; // silent past reclaimAfter (60 s)
    expect(await next("B")).toMatchObject({
      status: 409,
      body: { error: "queue_empty", skipped: { held: 1 } },
    });
    const taken = await next("B", { includeTakeovers: true });
    expect(taken.status).toBe(201);
    expect(taken.body.picked).toEqual({
      issue: 1,
      rank: 1,
      reasons: ["unprioritized", "oldest", "takeover"],
    });
    expect(taken.body).toMatchObject({
      lease: { generation: 2, branch: first.body.lease!.branch },
      resume: { previousGeneration: 1, branch: first.body.lease!.branch },
    });
  });

  it("picks from the index the installation's refresh built, with no seeding", async () => {
    const { sim } = await worldWith(3, undefined, { 2: ["p0"] });
    await sim.flush();
    const answer = await next("s1");
    expect(answer.status).toBe(201);
    expect(answer.body.picked).toEqual({ issue: 2, rank: 1, reasons: ["priority:p0", "oldest"] });
  });

  it("a repository the index never held is refreshed by its first pick", async () => {
    const { sim } = await worldWith(2);
    await sim.flush();
    await world.stores.installations.purgeInstallation(installationId);
    expect(await world.stores.queue.repoOf(installationId, repo)).toBeNull();
    const answer = await next("s1");
    expect(answer.status).toBe(201);
    expect(answer.body.picked?.issue).toBe(1);
    expect(await world.stores.queue.refreshedAt(queueRepo)).not.toBeNull();
  });

  it("rejects unknown fields by name and needs write permission", async () => {
    await worldWith(1);
    const unknown = await call("POST", "/api/v1/claims/next", { repo, actor: { sessionId: "s" }, issue: 1 });
    expect(unknown).toMatchObject({ status: 422, body: { error: "invalid_request" } });
    expect(JSON.stringify(unknown.body)).toContain("issue");
    const readOnly = await call(
      "POST",
      "/api/v1/claims/next",
      { repo, actor: { sessionId: "s" } },
      reader.token,
    );
    expect(readOnly).toMatchObject({ status: 403, body: { error: "forbidden" } });
  });
});

describe.skipIf(!redisProbe.available)("direct claims refuse blocked and duplicate work", () => {
  it("409 blocked from the index's blockers, overridden by ignoreBlockers", async () => {
    const { sim } = await worldWith(2);
    await world.stores.queue.replaceCandidates(
      queueRepo,
      [facts(1), facts(2, { blockers: [`${repo}#1`] })],
      world.app.clock.now,
    );
    await warm();
    const mark = sim.requests.mark();
    const blocked = await claim(2, "s1");
    expect(blocked).toMatchObject({
      status: 409,
      body: { error: "blocked", blockers: [{ subject: `${repo}#1`, state: "open" }] },
    });
    // Answered from the claim's one read: no second GitHub request, no write.
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 1 });
    expect((await claim(2, "s1", { ignoreBlockers: true })).status).toBe(201);
  });

  it("409 pr_open for someone else's PR; not for a PR from the subject's own claim branch; overrides", async () => {
    const { sim } = await worldWith(2);
    sim.openPull({ repo, author: maintainer.login, head: "feature/one", body: "Fixes #1" });
    await sim.flush();
    const refused = await claim(1, "s1");
    expect(refused).toMatchObject({
      status: 409,
      body: { error: "pr_open", pullRequests: [{ headRef: "feature/one", author: maintainer.login }] },
    });
    expect((await claim(1, "s1", { allowOpenPullRequest: true })).status).toBe(201);

    // #2: a claim opens its PR from its branch, hands off; the next claim continues that work.
    const first = await claim(2, "s2");
    const { branch } = first.body.lease!;
    sim.openPull({ repo, author: fleet.login, head: branch, body: "Fixes #2" });
    await sim.flush();
    const { id, token } = first.body.lease as unknown as { id: string; token: string };
    const release = await call("POST", `/api/v1/leases/${id}/release`, { outcome: "handoff" }, token);
    expect(release.status).toBe(200);
    expect(await claim(2, "s3")).toMatchObject({ status: 201, body: { lease: { generation: 2, branch } } });
  });

  it("takeover overrides pr_open", async () => {
    const { sim } = await worldWith(1);
    sim.openPull({ repo, author: maintainer.login, head: "feature/one", body: "Fixes #1" });
    await sim.flush();
    expect((await claim(1, "s1", { takeover: true })).status).toBe(201);
  });
});

describe.skipIf(!redisProbe.available)("GET /api/v1/repos/{o}/{r}/queue", () => {
  it("lists the ranked eligible issues with reasons, then the first skipped with why, to a reader", async () => {
    await worldWith(5);
    await world.stores.queue.replaceCandidates(
      queueRepo,
      [facts(1), facts(2, { labels: ["p2"] }), facts(3, { blockers: [`${repo}#9`] }), facts(4), facts(5)],
      world.app.clock.now,
    );
    expect((await claim(4, "holder")).status).toBe(201);
    const view = await call("GET", `/api/v1/repos/${repo}/queue`, undefined, reader.token);
    expect(view).toEqual({
      status: 200,
      body: {
        queue: [
          { issue: 2, title: "Task 2", rank: 1, reasons: ["priority:p2", "oldest"] },
          { issue: 1, title: "Task 1", rank: 2, reasons: ["unprioritized", "oldest"] },
          { issue: 5, title: "Task 5", rank: 3, reasons: ["unprioritized", "oldest"] },
        ],
        skipped: [
          { issue: 3, reason: "blocked" },
          { issue: 4, reason: "held" },
        ],
        truncated: false,
      },
    });
    expect(QueueResponseSchema.safeParse(view.body).success).toBe(true);
    const limited = await call("GET", `/api/v1/repos/${repo}/queue?limit=1`, undefined, reader.token);
    expect(limited.body).toMatchObject({ queue: [{ issue: 2 }], skipped: [{ issue: 3 }], truncated: true });
    expect(await call("GET", `/api/v1/repos/${repo}/queue?limit=0`, undefined, reader.token)).toMatchObject({
      status: 422,
      body: { error: "invalid_request", field: "limit" },
    });
  });
});
