// A direct claim's blockers: a stale or missing index is refreshed once, an unknown issue's blocked_by is read, a fresh known one costs nothing.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { CandidateFacts, QueueRepo } from "../../src/providers/queue-store.js";
import { DirectClaimBlockers } from "../../src/queue/direct-claim-blockers.js";

const repo: QueueRepo = { installationId: 42, repoId: 7, repo: "octo/widgets" };
const maxAge = 15 * 60_000;
const now = 100 * 60_000;

function facts(issue: number, blockers: string[]): CandidateFacts {
  return {
    issue,
    title: `Issue ${issue}`,
    labels: [],
    assignees: [],
    createdAt: 0,
    blockers,
    openSubIssues: 0,
    closingPullRequests: [],
  } as CandidateFacts;
}

function world(options: { refreshedAt: number | null; known: CandidateFacts[]; refreshFails?: boolean }) {
  const calls: string[] = [];
  let refreshedAt = options.refreshedAt;
  const indexed = new Map(options.known.map((f) => [f.issue, f]));
  const blockers = new DirectClaimBlockers({
    index: {
      candidate: async (_repo, issue) => indexed.get(issue) ?? null,
      indexedCandidate: async (_repo, issue) => ({ refreshedAt, candidate: indexed.get(issue) ?? null }),
    },
    refresh: async () => {
      calls.push("refresh");
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (options.refreshFails) throw new Error("GitHub down");
      refreshedAt = now;
      indexed.set(2, facts(2, ["octo/widgets#1"]));
      return { repo: repo.repo, candidates: 2, githubRequests: 2 } as never;
    },
    source: {
      openBlockers: async (_repo, issue) => {
        calls.push(`blocked_by #${issue}`);
        return issue === 9 ? ["octo/widgets#8"] : [];
      },
    },
    now: () => now,
    log: pino({ level: "silent" }),
  });
  return { blockers, calls };
}

describe("DirectClaimBlockers", () => {
  it("trusts a fresh index that knows the issue: no GitHub read", async () => {
    const { blockers, calls } = world({ refreshedAt: now - 60_000, known: [facts(2, [])] });
    expect(await blockers.of(repo, 2, maxAge)).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("refreshes an index older than maxIndexAge first, once for concurrent claims", async () => {
    const { blockers, calls } = world({ refreshedAt: now - maxAge - 1, known: [facts(2, [])] });
    const answers = await Promise.all([blockers.of(repo, 2, maxAge), blockers.of(repo, 2, maxAge)]);
    expect(answers).toEqual([["octo/widgets#1"], ["octo/widgets#1"]]);
    expect(calls).toEqual(["refresh"]);
  });

  it("refreshes an index that was never refreshed", async () => {
    const { blockers, calls } = world({ refreshedAt: null, known: [] });
    expect(await blockers.of(repo, 2, maxAge)).toEqual(["octo/widgets#1"]);
    expect(calls).toEqual(["refresh"]);
  });

  it("reads the blocked_by list of an issue a fresh index does not know", async () => {
    const { blockers, calls } = world({ refreshedAt: now, known: [] });
    expect(await blockers.of(repo, 9, maxAge)).toEqual(["octo/widgets#8"]);
    expect(calls).toEqual(["blocked_by #9"]);
  });

  it("falls back to the issue's own blocked_by read when the refresh fails", async () => {
    const { blockers, calls } = world({ refreshedAt: null, known: [], refreshFails: true });
    expect(await blockers.of(repo, 9, maxAge)).toEqual(["octo/widgets#8"]);
    expect(calls).toEqual(["refresh", "blocked_by #9"]);
  });
});
