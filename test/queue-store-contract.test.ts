// The QueueStore contract (the candidate index behind claims/next): the same cases against the memory store and real Redis.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rankCandidates } from "../src/domain/queue-ranking.js";
import type { CandidateFacts, QueueRanking, QueueRepo } from "../src/providers/queue-store.js";
import type { Stores } from "../src/providers/stores.js";
import { livenessStoreCases } from "./support/liveness-store-cases.js";

const cases = await livenessStoreCases({ contract: "queue store contract", prefix: "queue", others: 4 });

const T0 = 1_700_000_000_000;
const repo: QueueRepo = { installationId: 7, repoId: 1001, repo: "acme/app" };
const otherRepo: QueueRepo = { installationId: 7, repoId: 1002, repo: "acme/other" };
const oldest: QueueRanking = { priority: ["p0", "p1", "p2", "p3"], order: "oldest" };
const newest: QueueRanking = { ...oldest, order: "newest" };

function facts(issue: number, extra: Partial<CandidateFacts> = {}): CandidateFacts {
  return {
    issue,
    title: `Issue ${issue}`,
    createdAt: T0 + issue * 1000,
    labels: [],
    assignees: [],
    blockers: [],
    openSubIssues: 0,
    closingPullRequests: [],
    ...extra,
  };
}

const issuesOf = (page: { candidates: CandidateFacts[] }) => page.candidates.map((c) => c.issue);

describe.each(cases)("$name queue store contract", (queueCase) => {
  let stores: Stores;
  let concurrent: Stores[];
  let keys: (() => Promise<string[]>) | undefined;

  beforeAll(() => queueCase.setup());
  afterAll(() => queueCase.teardown());
  beforeEach(() => {
    ({ stores, others: concurrent, keys } = queueCase.create());
  });

  it("keeps the facts it was given and answers them in ranking order", async () => {
    const written = [
      facts(1, { labels: ["p2"] }),
      facts(2, { labels: ["bug"], assignees: ["octo"], blockers: ["acme/app#9"] }),
      facts(3, { labels: ["p0", "p2"], openSubIssues: 2 }),
      facts(4, {
        labels: ["p2"],
        createdAt: T0,
        closingPullRequests: [{ number: 50, headRefName: "agent/s/4-x", author: null }],
      }),
      facts(5, { labels: ["p1"], title: 'Fix / the "parser" — ünïcode' }),
    ];
    for (const f of written) await stores.queue.putCandidate(repo, f);
    const page = await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 });
    expect(issuesOf(page)).toEqual([3, 5, 4, 1, 2]);
    expect(page.candidates).toEqual(rankCandidates(written, oldest));
    expect(page.total).toBe(5);
    expect(page.refreshedAt).toBeNull();
  });

  it("breaks ties of priority and creation time by issue number, under either order", async () => {
    for (const issue of [12, 3, 100, 7])
      await stores.queue.putCandidate(repo, facts(issue, { createdAt: T0 }));
    await stores.queue.putCandidate(repo, facts(50, { createdAt: T0 + 5 }));
    expect(issuesOf(await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 }))).toEqual([
      3, 7, 12, 100, 50,
    ]);
    expect(issuesOf(await stores.queue.rankedCandidates(repo, newest, { offset: 0, limit: 10 }))).toEqual([
      50, 3, 7, 12, 100,
    ]);
  });

  it("rescores when the ranking changes, and scores later writes by the new one", async () => {
    await stores.queue.putCandidate(repo, facts(1, { labels: ["urgent"] }));
    await stores.queue.putCandidate(repo, facts(2, { labels: ["p0"] }));
    await stores.queue.putCandidate(repo, facts(3));
    expect(issuesOf(await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 }))).toEqual([
      2, 1, 3,
    ]);
    const custom: QueueRanking = { priority: ["urgent"], order: "newest" };
    expect(issuesOf(await stores.queue.rankedCandidates(repo, custom, { offset: 0, limit: 10 }))).toEqual([
      1, 3, 2,
    ]);
    await stores.queue.putCandidate(repo, facts(4));
    await stores.queue.patchCandidate(repo, 2, { labels: ["urgent"] });
    expect(issuesOf(await stores.queue.rankedCandidates(repo, custom, { offset: 0, limit: 10 }))).toEqual([
      2, 1, 4, 3,
    ]);
    // Back to the default ranking: rescored again.
    expect(issuesOf(await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 }))).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it("reads a bounded page at an offset", async () => {
    for (let issue = 1; issue <= 30; issue++) await stores.queue.putCandidate(repo, facts(issue));
    const page = await stores.queue.rankedCandidates(repo, oldest, { offset: 10, limit: 5 });
    expect(issuesOf(page)).toEqual([11, 12, 13, 14, 15]);
    expect(page.total).toBe(30);
    expect(issuesOf(await stores.queue.rankedCandidates(repo, oldest, { offset: 28, limit: 5 }))).toEqual([
      29, 30,
    ]);
    expect(issuesOf(await stores.queue.rankedCandidates(repo, oldest, { offset: 40, limit: 5 }))).toEqual([]);
    expect(issuesOf(await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 0 }))).toEqual([]);
  });

  it("patches only the given fields of an indexed issue, and ignores an issue it does not hold", async () => {
    await stores.queue.putCandidate(repo, facts(1, { labels: ["p1"], assignees: ["a"] }));
    await stores.queue.putCandidate(repo, facts(2, { labels: ["p0"] }));
    await stores.queue.patchCandidate(repo, 1, { labels: ["p0"], assignees: [] });
    await stores.queue.patchCandidate(repo, 1, {
      closingPullRequests: [{ number: 9, headRefName: "x", author: "b" }],
    });
    await stores.queue.patchCandidate(repo, 99, { labels: ["p0"] });
    const page = await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 });
    expect(page.candidates).toEqual([
      facts(1, {
        labels: ["p0"],
        assignees: [],
        closingPullRequests: [{ number: 9, headRefName: "x", author: "b" }],
      }),
      facts(2, { labels: ["p0"] }),
    ]);
  });

  it("drops a candidate, and a blocker from every candidate listing it", async () => {
    await stores.queue.putCandidate(repo, facts(1, { blockers: ["acme/app#9", "acme/lib#9"] }));
    await stores.queue.putCandidate(repo, facts(2, { blockers: ["acme/app#9"] }));
    await stores.queue.putCandidate(repo, facts(3, { blockers: ["acme/app#90"] }));
    await stores.queue.putCandidate(otherRepo, facts(4, { blockers: ["acme/app#9"] }));
    await stores.queue.patchCandidate(repo, 2, { title: "re-encoded by a patch" });
    await stores.queue.dropBlocker(repo, "acme/app#9");
    await stores.queue.dropCandidate(repo, 3);
    await stores.queue.dropCandidate(repo, 3);
    const page = await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 });
    expect(page.candidates.map((c) => [c.issue, c.blockers])).toEqual([
      [1, ["acme/lib#9"]],
      [2, []],
    ]);
    expect(page.total).toBe(2);
    const other = await stores.queue.rankedCandidates(otherRepo, oldest, { offset: 0, limit: 10 });
    expect(other.candidates[0]?.blockers).toEqual(["acme/app#9"]);
  });

  it("replaces the whole index on a refresh and stamps when", async () => {
    await stores.queue.putCandidate(repo, facts(1));
    await stores.queue.putCandidate(repo, facts(2));
    expect(await stores.queue.refreshedAt(repo)).toBeNull();
    await stores.queue.replaceCandidates(repo, [facts(2, { labels: ["p0"] }), facts(3)], T0 + 60_000);
    const page = await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 });
    expect(page.candidates).toEqual([facts(2, { labels: ["p0"] }), facts(3)]);
    expect(page.refreshedAt).toBe(T0 + 60_000);
    expect(await stores.queue.refreshedAt(repo)).toBe(T0 + 60_000);
    expect(await stores.queue.refreshedAt(otherRepo)).toBeNull();
    await stores.queue.replaceCandidates(repo, [], T0 + 120_000);
    expect((await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 })).total).toBe(0);
    expect(await stores.queue.refreshedAt(repo)).toBe(T0 + 120_000);
  });

  it("reserves the first issue nobody else holds, until it expires or is given back", async () => {
    expect(await stores.queue.reserve(repo, [1, 2, 3], "pick-a", 30_000, T0)).toBe(1);
    expect(await stores.queue.reserve(repo, [1, 2, 3], "pick-b", 30_000, T0)).toBe(2);
    // The owner's own reservation counts as free.
    expect(await stores.queue.reserve(repo, [1, 2, 3], "pick-a", 30_000, T0 + 1)).toBe(1);
    expect(await stores.queue.reserve(repo, [1, 2], "pick-c", 30_000, T0 + 2)).toBeNull();
    expect(await stores.queue.reserve(repo, [], "pick-c", 30_000, T0 + 2)).toBeNull();
    // Another repository's issue 1 is another issue.
    expect(await stores.queue.reserve(otherRepo, [1], "pick-c", 30_000, T0 + 2)).toBe(1);
    await stores.queue.unreserve(repo, 2, "pick-a"); // not pick-a's: nothing happens
    expect(await stores.queue.reserve(repo, [2], "pick-c", 30_000, T0 + 3)).toBeNull();
    await stores.queue.unreserve(repo, 2, "pick-b");
    expect(await stores.queue.reserve(repo, [2], "pick-c", 30_000, T0 + 3)).toBe(2);
    // Past its time (pick-a renewed issue 1 at T0 + 1), a reservation is free again.
    expect(await stores.queue.reserve(repo, [1], "pick-d", 30_000, T0 + 30_000)).toBeNull();
    expect(await stores.queue.reserve(repo, [1], "pick-d", 30_000, T0 + 30_001)).toBe(1);
  });

  it("never gives one issue to two of 50 concurrent reservers over separate connections", async () => {
    const issues = Array.from({ length: 30 }, (_, i) => i + 1);
    const reserved = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        concurrent[i % concurrent.length]!.queue.reserve(repo, issues, `pick-${i}`, 30_000, T0),
      ),
    );
    const won = reserved.filter((issue): issue is number => issue !== null);
    expect(won.sort((a, b) => a - b)).toEqual(issues);
    expect(reserved.filter((issue) => issue === null)).toHaveLength(20);
  });

  it("drops the reservations of issues that leave the index", async () => {
    await stores.queue.replaceCandidates(repo, [facts(1), facts(2)], T0);
    expect(await stores.queue.reserve(repo, [1], "pick-a", 30_000, T0)).toBe(1);
    expect(await stores.queue.reserve(repo, [2], "pick-a", 30_000, T0)).toBe(2);
    await stores.queue.dropCandidate(repo, 1);
    await stores.queue.replaceCandidates(repo, [facts(1)], T0 + 1);
    expect(await stores.queue.reserve(repo, [1, 2], "pick-b", 30_000, T0 + 2)).toBe(1);
  });

  it("answers one indexed issue's facts, and which repository a name was indexed as", async () => {
    await stores.queue.putCandidate(repo, facts(1, { blockers: ["acme/app#9"] }));
    await stores.queue.replaceCandidates(otherRepo, [facts(2)], T0);
    expect(await stores.queue.candidate(repo, 1)).toEqual(facts(1, { blockers: ["acme/app#9"] }));
    expect(await stores.queue.candidate(repo, 2)).toBeNull();
    expect(await stores.queue.candidate(otherRepo, 2)).toEqual(facts(2));
    expect(await stores.queue.indexedCandidate(repo, 1)).toEqual({
      refreshedAt: null,
      candidate: facts(1, { blockers: ["acme/app#9"] }),
    });
    expect(await stores.queue.indexedCandidate(otherRepo, 2)).toEqual({
      refreshedAt: T0,
      candidate: facts(2),
    });
    expect(await stores.queue.indexedCandidate(otherRepo, 3)).toEqual({ refreshedAt: T0, candidate: null });
    expect(await stores.queue.repoOf(7, "ACME/App")).toEqual({
      installationId: 7,
      repoId: 1001,
      repo: "ACME/App",
    });
    expect(await stores.queue.repoOf(7, "acme/other")).toEqual({ ...otherRepo });
    expect(await stores.queue.repoOf(7, "acme/none")).toBeNull();
    expect(await stores.queue.repoOf(8, "acme/app")).toBeNull();
    // A renamed repository: its new name is learnt at its next write, its old one still leads to it.
    await stores.queue.putCandidate({ ...repo, repo: "acme/renamed" }, facts(3));
    expect((await stores.queue.repoOf(7, "acme/renamed"))?.repoId).toBe(1001);
    expect((await stores.queue.repoOf(7, "acme/app"))?.repoId).toBe(1001);
  });

  it("forgets an installation's index when it is purged", async () => {
    await stores.queue.putCandidate(repo, facts(1));
    await stores.queue.replaceCandidates(otherRepo, [facts(2)], T0);
    await stores.installations.purgeInstallation(repo.installationId);
    expect((await stores.queue.rankedCandidates(repo, oldest, { offset: 0, limit: 10 })).total).toBe(0);
    expect(await stores.queue.refreshedAt(otherRepo)).toBeNull();
    expect(await stores.queue.repoOf(7, "acme/app")).toBeNull();
  });

  it("keeps every queue key under the installation's hash tag", async () => {
    if (!keys) return;
    await stores.queue.putCandidate(repo, facts(1));
    await stores.queue.replaceCandidates(otherRepo, [facts(2)], T0);
    await stores.queue.reserve(repo, [1], "pick-a", 30_000, T0);
    const written = await keys();
    expect(written.length).toBeGreaterThan(0);
    for (const key of written) expect(key).toMatch(/\{i:7\}:q:(100[12]:(order|facts|res|meta)|names)$/);
  });
});
