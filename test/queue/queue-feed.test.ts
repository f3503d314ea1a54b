// The candidate index follows GitHub through the real App's webhooks (simulator deliveries), costs GitHub requests only where a payload lacks the facts, and heals at the next refresh.
import { afterEach, describe, expect, it } from "vitest";
import type { CandidateFacts, QueueRepo } from "../../src/providers/queue-store.js";
import type { GitHubSimulator } from "../../tools/github-sim/index.js";
import type { StackRedisChoice } from "../../tools/local-stack/stack-stores.js";
import { defaultApp, type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { probeRedis } from "../support/redis.js";

const repoName = "octo/widgets";
const installationId = 42;
const queueRepo: QueueRepo = { installationId, repoId: 777, repo: repoName };
const ranking = { priority: ["p0", "p1", "p2", "p3"], order: "oldest" as const };
/** The GitHub calls the feed makes (other handlers make their own on some of these events). */
const feedCalls = [
  "GET /repos/{owner}/{repo}/issues",
  "GET /repos/{owner}/{repo}/issues/{issue_number}",
  "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by",
  "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocking",
  "graphql:QueueOpenPullRequests",
  "graphql:QueueIssueClosingPullRequests",
];

const redisProbe = await probeRedis();
let stack: LocalStack;

async function startStack(redis: StackRedisChoice = { kind: "memory" }) {
  stack = await startLocalStack({
    redis,
    startApp: defaultApp({ throttle: false, disabledJobs: ["janitor"] }),
  });
  stack.sim.seed({
    users: [{ login: "alice" }, { login: "bob" }],
    repos: [
      {
        fullName: repoName,
        id: 777,
        collaborators: { alice: "maintain", bob: "write" },
        issues: [
          { number: 1, title: "Parser", labels: ["p1"] },
          { number: 2, title: "Lexer" },
          { number: 3, title: "Docs" },
          { number: 4, title: "Tracking" },
        ],
      },
      { fullName: "octo/elsewhere", id: 778 },
    ],
    installations: [{ id: installationId, account: "octo", repos: [repoName, "octo/elsewhere"] }],
  });
  await stack.sim.flush();
  return stack;
}

afterEach(async () => {
  await stack?.stop();
});

async function index(): Promise<Map<number, CandidateFacts>> {
  const page = await stack.stores.queue.rankedCandidates(queueRepo, ranking, { offset: 0, limit: 500 });
  return new Map(page.candidates.map((c) => [c.issue, c]));
}

/** Runs `act`, waits for its webhooks, and answers the feed's GitHub calls it caused (by call). */
async function feedRequests(sim: GitHubSimulator, act: () => void): Promise<Record<string, number>> {
  const mark = sim.requests.mark();
  act();
  await sim.flush();
  const counts = sim.requests.counts(mark);
  return Object.fromEntries(Object.entries(counts).filter(([call]) => feedCalls.includes(call)));
}

describe("the candidate index's webhook feed", () => {
  it("is built when the App is installed: every open issue, stamped refreshed", async () => {
    await startStack();
    expect([...(await index()).keys()]).toEqual([1, 2, 3, 4]);
    expect((await index()).get(1)?.labels).toEqual(["p1"]);
    expect(await stack.stores.queue.refreshedAt(queueRepo)).not.toBeNull();
  });

  it("follows issues, dependencies, sub-issues and pull requests, reading GitHub only where a payload lacks the facts", async () => {
    const { sim } = await startStack();
    const login = "alice";

    // Opened, labelled, assigned, retitled: the payload is the fact, no GitHub read.
    expect(
      await feedRequests(sim, () => {
        sim.addIssue(repoName, { number: 5, title: "New", labels: ["p0"] });
        sim.assign({ repo: repoName, issue: 1, login, assignees: ["bob"], labels: ["p0"] });
        sim.unassign({ repo: repoName, issue: 1, login, labels: ["p1"] });
        sim.state.editIssue(
          sim.state.requireIssue(sim.state.requireRepo(repoName), 3),
          { title: "Docs!" },
          sim.state.requireUser(login),
        );
      }),
    ).toEqual({});
    let now = await index();
    expect(now.get(5)).toMatchObject({ title: "New", labels: ["p0"], blockers: [], closingPullRequests: [] });
    expect(now.get(1)).toMatchObject({ labels: ["p0"], assignees: ["bob"] });
    expect(now.get(3)?.title).toBe("Docs!");

    // A first open blocker: the summary says one, the payload names it — no read.
    expect(
      await feedRequests(sim, () => sim.setBlockedBy({ repo: repoName, issue: 2, blockedBy: 1, login })),
    ).toEqual({});
    expect((await index()).get(2)?.blockers).toEqual(["octo/widgets#1"]);
    // A second one: the list is read once.
    sim.addIssue("octo/elsewhere", { number: 1, title: "Upstream" });
    await sim.flush();
    expect(
      await feedRequests(sim, () =>
        sim.setBlockedBy({
          repo: repoName,
          issue: 2,
          blockedBy: { repo: "octo/elsewhere", issue: 1 },
          login,
        }),
      ),
    ).toEqual({ "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by": 1 });
    expect((await index()).get(2)?.blockers).toEqual(["octo/widgets#1", "octo/elsewhere#1"]);

    // The blocker closes: it leaves the queue, and no candidate lists it any more — no read.
    expect(await feedRequests(sim, () => sim.closeIssue({ repo: repoName, issue: 1, login }))).toEqual({});
    now = await index();
    expect(now.has(1)).toBe(false);
    expect(now.get(2)?.blockers).toEqual(["octo/elsewhere#1"]);
    // Removing the last open one: the summary says none left — no read.
    expect(
      await feedRequests(sim, () =>
        sim.setBlockedBy({
          repo: repoName,
          issue: 2,
          blockedBy: { repo: "octo/elsewhere", issue: 1 },
          login,
          remove: true,
        }),
      ),
    ).toEqual({});
    expect((await index()).get(2)?.blockers).toEqual([]);

    // Sub-issues: the parent's summary rides on the event; a sub-issue closing reads the parent once.
    expect(
      await feedRequests(sim, () => sim.setSubIssue({ repo: repoName, parent: 4, subIssue: 3, login })),
    ).toEqual({});
    expect((await index()).get(4)?.openSubIssues).toBe(1);
    expect(await feedRequests(sim, () => sim.closeIssue({ repo: repoName, issue: 3, login }))).toEqual({
      "GET /repos/{owner}/{repo}/issues/{issue_number}": 1,
    });
    expect((await index()).get(4)?.openSubIssues).toBe(0);

    // Reopened: back in the queue with its closing PRs read (no blockers of its own: no list read), and
    // the issue it still blocks (#2) gets it back as a blocker: its list of blocked issues, then #2's blockers.
    expect(await feedRequests(sim, () => sim.reopenIssue({ repo: repoName, issue: 1, login }))).toEqual({
      "graphql:QueueIssueClosingPullRequests": 1,
      "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocking": 1,
      "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by": 1,
    });
    now = await index();
    expect(now.get(1)).toMatchObject({ title: "Parser", labels: ["p0"], blockers: [] });
    expect(now.get(2)?.blockers).toEqual(["octo/widgets#1"]);

    // A pull request that closes #2: linked from its body's closing keywords, no GitHub read; a title
    // edit changes nothing, a body edit moves the link, closing the PR unlinks it.
    let pull = 0;
    expect(
      await feedRequests(sim, () => {
        pull = sim.openPull({ repo: repoName, author: "bob", head: "fix-lexer", body: "Fixes #2" }).number;
      }),
    ).toEqual({});
    expect((await index()).get(2)?.closingPullRequests).toEqual([
      { number: pull, headRefName: "fix-lexer", author: "bob" },
    ]);
    expect(
      await feedRequests(sim, () => sim.editPull(repoName, pull, { title: "Fix the lexer" }, "bob")),
    ).toEqual({});
    expect(await feedRequests(sim, () => sim.editPull(repoName, pull, { body: "Fixes #1" }, "bob"))).toEqual(
      {},
    );
    now = await index();
    expect(now.get(2)?.closingPullRequests).toEqual([]);
    expect(now.get(1)?.closingPullRequests.map((pr) => pr.number)).toEqual([pull]);
    expect(await feedRequests(sim, () => sim.closePull(repoName, pull, "bob"))).toEqual({});
    expect((await index()).get(1)?.closingPullRequests).toEqual([]);

    // Transferred and deleted issues leave.
    await feedRequests(sim, () => {
      sim.transferIssue({ repo: repoName, issue: 5, login, to: "octo/elsewhere" });
      sim.deleteIssue({ repo: repoName, issue: 4, login });
    });
    now = await index();
    expect(now.has(5)).toBe(false);
    expect(now.has(4)).toBe(false);
    expect([...now.keys()].sort()).toEqual([1, 2]);
  });

  it("a burst of 100 webhooks that change no queue fact beyond their payload costs 0 GitHub requests", async () => {
    const { sim } = await startStack();
    // The first labelled event reads the repository's config once; the burst comes after it.
    sim.assign({ repo: repoName, issue: 3, login: "alice", labels: ["warm-up"] });
    await sim.flush();
    const mark = sim.requests.mark();
    const issue3 = sim.state.requireIssue(sim.state.requireRepo(repoName), 3);
    for (let i = 0; i < 25; i++) {
      sim.comment({ repo: repoName, issue: 3, login: "bob", body: `thinking out loud ${i}` });
      sim.assign({ repo: repoName, issue: 3, login: "alice", labels: [`note-${i}`] });
      sim.unassign({ repo: repoName, issue: 3, login: "alice", labels: [`note-${i}`] });
      sim.state.editIssue(issue3, { title: `Docs, take ${i}` }, sim.state.requireUser("alice"));
    }
    await sim.flush();
    expect(sim.deliveries().filter((d) => d.responseStatus !== undefined).length).toBeGreaterThanOrEqual(100);
    expect(sim.requests.counts(mark)).toEqual({});
    expect((await index()).get(3)).toMatchObject({ title: "Docs, take 24", labels: ["warm-up"] });
  });

  it("heals at the next refresh what a dropped delivery left stale (a blocker added, an issue closed)", async () => {
    const { sim, app } = await startStack();
    sim.webhooks.dropNext(2, { event: "issue_dependencies" });
    sim.setBlockedBy({ repo: repoName, issue: 2, blockedBy: 3, login: "alice" });
    sim.webhooks.dropNext(1, { event: "issues", action: "closed" });
    sim.closeIssue({ repo: repoName, issue: 4, login: "alice" });
    await sim.flush();
    // The App missed both: the index still offers #2 unblocked and the closed #4.
    let now = await index();
    expect(now.get(2)?.blockers).toEqual([]);
    expect(now.has(4)).toBe(true);

    const refreshed = (await stack.stores.queue.refreshedAt(queueRepo))!;
    await app.services.janitor.sweep({ reconcile: true });

    now = await index();
    expect(now.get(2)?.blockers).toEqual(["octo/widgets#3"]);
    expect(now.has(4)).toBe(false);
    expect((await stack.stores.queue.refreshedAt(queueRepo))!).toBeGreaterThanOrEqual(refreshed);
  });
});

describe("a claims/next miss", () => {
  it("refreshes an index the App never built (its installation webhook was lost) before it picks", async () => {
    stack = await startLocalStack({ startApp: defaultApp({ throttle: false, disabledJobs: ["janitor"] }) });
    const { sim } = stack;
    const token = "ghp_bob0000000000000000000000000000000001";
    sim.webhooks.dropNext(1, { event: "installation" });
    sim.seed({
      users: [{ login: "bob", tokens: [token] }],
      repos: [
        {
          fullName: repoName,
          id: 777,
          collaborators: { bob: "write" },
          issues: [
            { number: 1, title: "Parser" },
            { number: 2, title: "Lexer", labels: ["p1"] },
          ],
        },
      ],
      installations: [{ id: installationId, account: "octo", repos: [repoName] }],
    });
    await sim.flush();
    expect(await stack.stores.queue.refreshedAt(queueRepo)).toBeNull();
    const mark = sim.requests.mark();

    const answer = await fetch(`${stack.app.url}/api/v1/claims/next`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ repo: repoName, actor: { runtime: "codex", sessionId: "s-1" } }),
    });

    expect(answer.status).toBe(201);
    expect(((await answer.json()) as { picked: { issue: number } }).picked.issue).toBe(2);
    // The miss: the repository's id, then one listing page; nothing else of the feed's.
    const counts = sim.requests.counts(mark);
    expect(counts["GET /repos/{owner}/{repo}"]).toBe(1);
    expect(counts["GET /repos/{owner}/{repo}/issues"]).toBe(1);
    expect(await stack.stores.queue.refreshedAt(queueRepo)).not.toBeNull();
  });
});

describe.skipIf(!redisProbe.available)("the candidate index's webhook feed on real Redis", () => {
  it("is built on installation, follows a label, a blocker and a closing, and heals at the refresh", async () => {
    const { sim, app } = await startStack({ kind: "shared" });
    expect([...(await index()).keys()]).toEqual([1, 2, 3, 4]);
    sim.assign({ repo: repoName, issue: 2, login: "alice", labels: ["p0"] });
    sim.setBlockedBy({ repo: repoName, issue: 3, blockedBy: 2, login: "alice" });
    await sim.flush();
    let now = await index();
    expect([...now.keys()]).toEqual([2, 1, 3, 4]);
    expect(now.get(3)?.blockers).toEqual(["octo/widgets#2"]);
    sim.closeIssue({ repo: repoName, issue: 2, login: "alice" });
    sim.webhooks.dropNext(1, { event: "issues", action: "opened" });
    sim.addIssue(repoName, { number: 9, title: "Missed" });
    await sim.flush();
    now = await index();
    expect(now.get(3)?.blockers).toEqual([]);
    expect(now.has(9)).toBe(false);
    await app.services.janitor.sweep({ reconcile: true });
    expect([...(await index()).keys()]).toEqual([1, 3, 4, 9]);
  });
});
