// The queue's ranking as a table: priority labels, `order: oldest | newest`, ties by number, unlabeled last.
import { describe, expect, it } from "vitest";
import { defaultQueueRanking } from "../../src/config/queue-ranking.js";
import {
  priorityRankOf,
  rankCandidates,
  rankingReasons,
  rankingScore,
} from "../../src/domain/queue-ranking.js";
import type { CandidateFacts, QueueRanking } from "../../src/providers/queue-store.js";

const T0 = 1_700_000_000_000;
const day = 86_400_000;

function issue(number: number, labels: string[], ageDays: number): CandidateFacts {
  return {
    issue: number,
    title: `#${number}`,
    createdAt: T0 - ageDays * day,
    labels,
    assignees: [],
    blockers: [],
    openSubIssues: 0,
    closingPullRequests: [],
  };
}

const oldest = defaultQueueRanking;
const newest: QueueRanking = { ...oldest, order: "newest" };

describe("rankCandidates", () => {
  const table: { name: string; ranking: QueueRanking; issues: CandidateFacts[]; expected: number[] }[] = [
    {
      name: "priority labels in the configured order, before anything else",
      ranking: oldest,
      issues: [issue(1, ["p3"], 9), issue(2, ["p0"], 1), issue(3, ["p1"], 5), issue(4, ["p2"], 7)],
      expected: [2, 3, 4, 1],
    },
    {
      name: "an issue without a priority label after all prioritised ones, however old",
      ranking: oldest,
      issues: [issue(1, ["bug"], 900), issue(2, ["p3"], 0), issue(3, [], 1000)],
      expected: [2, 3, 1],
    },
    {
      name: "the most urgent of several priority labels counts",
      ranking: oldest,
      issues: [issue(1, ["p2", "p0"], 1), issue(2, ["p1"], 9)],
      expected: [1, 2],
    },
    {
      name: "oldest first within one priority",
      ranking: oldest,
      issues: [issue(1, ["p1"], 1), issue(2, ["p1"], 3), issue(3, ["p1"], 2)],
      expected: [2, 3, 1],
    },
    {
      name: "newest first within one priority with order: newest",
      ranking: newest,
      issues: [issue(1, ["p1"], 1), issue(2, ["p1"], 3), issue(3, ["p1"], 2), issue(4, ["p0"], 9)],
      expected: [4, 1, 3, 2],
    },
    {
      name: "ties of priority and creation time by issue number, ascending, under either order",
      ranking: newest,
      issues: [issue(30, [], 1), issue(4, [], 1), issue(17, [], 1)],
      expected: [4, 17, 30],
    },
    {
      name: "a custom priority list; the default labels mean nothing under it",
      ranking: { priority: ["urgent", "soon"], order: "oldest" },
      issues: [issue(1, ["p0"], 9), issue(2, ["soon"], 1), issue(3, ["urgent"], 0)],
      expected: [3, 2, 1],
    },
    {
      name: "no priority labels configured: creation order only",
      ranking: { priority: [], order: "oldest" },
      issues: [issue(1, ["p0"], 1), issue(2, [], 2)],
      expected: [2, 1],
    },
  ];

  it.each(table)("$name", ({ ranking, issues, expected }) => {
    expect(rankCandidates(issues, ranking).map((c) => c.issue)).toEqual(expected);
    expect(rankCandidates([...issues].reverse(), ranking).map((c) => c.issue)).toEqual(expected);
  });
});

describe("rankingScore", () => {
  it("keeps rank and creation time apart in one exact integer, for 20 priority labels and dates to 2109", () => {
    const priority = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const latest = rankingScore({ labels: [], createdAt: 2 ** 42 - 1 }, { priority, order: "oldest" });
    expect(Number.isSafeInteger(latest)).toBe(true);
    expect(latest).toBeLessThan(21 * 2 ** 42);
    expect(
      rankingScore({ labels: ["l0"], createdAt: 2 ** 42 - 1 }, { priority, order: "oldest" }),
    ).toBeLessThan(rankingScore({ labels: ["l1"], createdAt: 0 }, { priority, order: "oldest" }));
  });
});

describe("priorityRankOf and rankingReasons", () => {
  it.each([
    { labels: ["p1"], rank: 1, reasons: ["priority:p1", "oldest"] },
    { labels: ["x", "p3", "p0"], rank: 0, reasons: ["priority:p0", "oldest"] },
    { labels: [], rank: 4, reasons: ["unprioritized", "oldest"] },
  ])("$labels → rank $rank", ({ labels, rank, reasons }) => {
    expect(priorityRankOf(labels, oldest.priority)).toBe(rank);
    expect(rankingReasons({ labels }, oldest)).toEqual(reasons);
  });
});
