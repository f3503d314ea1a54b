// The FenceStore contract: the same tests against the memory store and the Redis store on a real server.
import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SubjectKey } from "../src/domain/claim.js";
import {
  attestationTtlMs,
  crossLinkTtlMs,
  type FenceStore,
  type IndexedPullRequest,
  maxCrossLinks,
  maxShasPerGeneration,
} from "../src/providers/fence-store.js";
import { MemoryFenceStore } from "../src/providers/memory/memory-fence-store.js";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import {
  createTestCluster,
  createTestRedis,
  deleteKeysWithPrefix,
  elapseKeysWithPrefix,
  probeRedis,
  redisClusterUrl,
  uniqueKeyPrefix,
} from "./support/redis.js";

const redisProbe = await probeRedis();

interface FenceCase {
  name: string;
  setup(): Promise<void>;
  create(clock: { now: number }): FenceStore;
  /** The keys a store wrote (Redis only), to prove the hash-tag scheme. */
  keys?(): Promise<string[]>;
  /** Lets `ms` pass for the keys' times to live (Redis only: the memory store reads the clock). */
  elapse?(ms: number): Promise<void>;
  teardown(): Promise<void>;
}

const memoryCase: FenceCase = {
  name: "MemoryFenceStore",
  setup: async () => {},
  create: (clock) => new MemoryFenceStore(() => clock.now),
  teardown: async () => {},
};

function redisCase(
  name = "RedisFenceStore",
  connect: () => Promise<Redis | Cluster> = createTestRedis,
): FenceCase {
  const runPrefix = uniqueKeyPrefix("fence");
  let client: Redis | Cluster | undefined;
  let next = 0;
  let current = "";
  return {
    name,
    async setup() {
      client = await connect();
    },
    create() {
      current = `${runPrefix}${++next}:`;
      return new RedisFenceStore({ redis: client!, keyPrefix: current });
    },
    elapse: (ms) => elapseKeysWithPrefix(client!, current, ms),
    async keys() {
      const nodes = client!.isCluster ? (client as Cluster).nodes("master") : [client as Redis];
      return (await Promise.all(nodes.map((node) => node.keys(`${current}*`)))).flat().sort();
    },
    async teardown() {
      if (client) {
        await deleteKeysWithPrefix(client, runPrefix);
        await client.quit();
      }
    },
  };
}

const cases: FenceCase[] = [memoryCase];
if (redisProbe.available) cases.push(redisCase());
else {
  console.warn(`Skipping the RedisFenceStore half of the fence contract: ${redisProbe.reason}`);
  describe.skip(`RedisFenceStore (${redisProbe.reason})`, () => {
    it("passes the fence contract", () => {});
  });
}
if (redisClusterUrl) cases.push(redisCase("RedisFenceStore on Redis Cluster", createTestCluster));

const T0 = 1_700_000_000_000;
const key: SubjectKey = { installationId: 7, repoId: 1001, issue: 42 };
const repo = { installationId: 7, repoId: 1001 };
const sha = (n: number) => n.toString(16).padStart(40, "0");
const agentA = { kind: "agent" as const, login: "octo-agent", runtime: "claude-code", sessionId: "A" };
const agentB = { kind: "agent" as const, login: "octo-agent", runtime: "codex", sessionId: "B" };

function pr(number: number, linked: number[], extra: Partial<IndexedPullRequest> = {}): IndexedPullRequest {
  return {
    number,
    headSha: sha(number),
    headRef: `agent/A/${linked[0] ?? 0}-x`,
    author: { login: "octo-agent", bot: false },
    closes: linked,
    linked,
    ...extra,
  };
}

describe.each(cases)("$name fence contract", (fenceCase) => {
  let fences: FenceStore;
  const clock = { now: T0 };

  beforeAll(() => fenceCase.setup());
  afterAll(() => fenceCase.teardown());
  beforeEach(() => {
    clock.now = T0;
    fences = fenceCase.create(clock);
  });

  it("answers which generations attested a SHA, per subject, idempotently", async () => {
    await fences.attest(key, 1, sha(1), T0);
    await fences.attest(key, 2, sha(1), T0 + 1);
    await fences.attest(key, 2, sha(1), T0 + 2);
    await fences.attest(key, 2, sha(2), T0 + 3);
    await fences.attest({ ...key, issue: 43 }, 5, sha(1), T0);
    expect((await fences.evidence(key, sha(1), T0 + 10)).attestedGenerations).toEqual([1, 2]);
    expect((await fences.evidence(key, sha(2), T0 + 10)).attestedGenerations).toEqual([2]);
    expect((await fences.evidence(key, sha(3), T0 + 10)).attestedGenerations).toEqual([]);
    expect((await fences.evidence({ ...key, issue: 43 }, sha(2), T0)).attestedGenerations).toEqual([]);
  });

  it("counts the current generation's attestation only when its current token made it (invariant 14)", async () => {
    await fences.attest(key, 1, sha(1), T0, "digest-old");
    await fences.attest(key, 2, sha(1), T0, "digest-old");
    await fences.attest(key, 2, sha(2), T0, "digest-new");
    await fences.attest(key, 2, sha(3), T0); // recorded before attestations named their token
    const current = { generation: 2, tokenDigest: "digest-new" };
    expect((await fences.evidence(key, sha(1), T0, current)).attestedGenerations).toEqual([1]);
    expect((await fences.evidence(key, sha(2), T0, current)).attestedGenerations).toEqual([2]);
    expect((await fences.evidence(key, sha(3), T0, current)).attestedGenerations).toEqual([2]);
    expect((await fences.evidence(key, sha(1), T0)).attestedGenerations).toEqual([1, 2]);
    // The new token attesting the same SHA again makes it count.
    await fences.attest(key, 2, sha(1), T0 + 1, "digest-new");
    expect((await fences.evidence(key, sha(1), T0 + 1, current)).attestedGenerations).toEqual([1, 2]);
  });

  it(`keeps at most ${maxShasPerGeneration} SHAs per generation, dropping the oldest`, async () => {
    for (let i = 0; i <= maxShasPerGeneration; i++) await fences.attest(key, 3, sha(i + 1), T0 + i);
    await fences.attest(key, 4, sha(1), T0 + 500);
    const first = await fences.evidence(key, sha(1), T0 + 1000);
    expect(first.attestedGenerations).toEqual([4]);
    expect((await fences.evidence(key, sha(2), T0 + 1000)).attestedGenerations).toEqual([3]);
    expect(
      (await fences.evidence(key, sha(maxShasPerGeneration + 1), T0 + 1000)).attestedGenerations,
    ).toEqual([3]);
  });

  it("lets attestations expire after 90 days", async () => {
    await fences.attest(key, 1, sha(1), T0);
    expect((await fences.evidence(key, sha(1), T0 + attestationTtlMs)).attestedGenerations).toEqual([1]);
    expect((await fences.evidence(key, sha(1), T0 + attestationTtlMs + 1)).attestedGenerations).toEqual([]);
    // A write long after drops the expired entry for good, even for a later reader.
    await fences.attest(key, 1, sha(2), T0 + attestationTtlMs + 5);
    expect((await fences.evidence(key, sha(1), T0)).attestedGenerations).toEqual([]);
  });

  it("remembers claim notes in generation order and indexes their branches", async () => {
    await fences.recordClaim(key, { generation: 2, actor: agentB, branch: "agent/A/42-x" });
    await fences.recordClaim(key, { generation: 1, actor: agentA, branch: "agent/A/42-x" });
    await fences.recordClaim(key, { generation: 1, actor: agentA, branch: "agent/A/42-x" });
    await fences.recordClaim(key, { generation: 3, actor: { kind: "human", login: "alice" } });
    await fences.recordClaim({ ...key, issue: 43 }, { generation: 1, actor: agentA, branch: "agent/A/42-x" });
    const { claims } = await fences.evidence(key, sha(1), T0);
    expect(claims).toEqual([
      { generation: 1, actor: agentA, branch: "agent/A/42-x" },
      { generation: 2, actor: agentB, branch: "agent/A/42-x" },
      { generation: 3, actor: { kind: "human", login: "alice" } },
    ]);
    expect(await fences.subjectsForBranch(repo, "agent/A/42-x")).toEqual([42, 43]);
    expect(await fences.subjectsForBranch(repo, "other")).toEqual([]);
    expect(await fences.subjectsForBranch({ ...repo, repoId: 1002 }, "agent/A/42-x")).toEqual([]);
  });

  it("indexes open PRs by subject, re-links on edit, and forgets closed ones", async () => {
    await fences.putPullRequest(repo, pr(5, [42]));
    await fences.putPullRequest(repo, pr(6, [42, 43]));
    expect((await fences.pullRequestsFor(key)).map((p) => p.number)).toEqual([5, 6]);
    expect(await fences.pullRequest(repo, 6)).toEqual(pr(6, [42, 43]));

    await fences.putPullRequest(repo, pr(6, [43], { headSha: sha(99) }));
    expect((await fences.pullRequestsFor(key)).map((p) => p.number)).toEqual([5]);
    expect(await fences.pullRequestsFor({ ...key, issue: 43 })).toEqual([pr(6, [43], { headSha: sha(99) })]);

    const note = { generation: 1, actor: agentA, branch: "agent/A/42-x" };
    expect(await fences.recordClaim({ ...key, issue: 43 }, note)).toEqual({
      pullRequests: [pr(6, [43], { headSha: sha(99) })],
      crossLinks: [],
    });
    await fences.putPullRequest(repo, pr(7, [42]));
    // Recording a claim answers its subject's linked PRs, as pullRequestsFor does.
    expect((await fences.recordClaim(key, note)).pullRequests).toEqual(await fences.pullRequestsFor(key));
    expect((await fences.recordClaim(key, note)).pullRequests.map((p) => p.number)).toEqual([5, 7]);
    await fences.removePullRequest(repo, 7);

    await fences.removePullRequest(repo, 5);
    await fences.removePullRequest(repo, 5);
    expect(await fences.pullRequestsFor(key)).toEqual([]);
    expect((await fences.recordClaim(key, note)).pullRequests).toEqual([]);
    expect(await fences.pullRequest(repo, 5)).toBeNull();
  });

  it(`remembers up to ${maxCrossLinks} PRs of other repositories per subject, once each, and answers them with a claim's note`, async () => {
    const link = (number: number) => ({ repo: "acme/other", repoId: 2002, number });
    expect(await fences.crossLinksOf(key)).toEqual([]);
    await fences.rememberCrossLink(key, link(1));
    await fences.rememberCrossLink(key, link(1));
    await fences.rememberCrossLink(key, { ...link(1), repoId: 2003, repo: "acme/third" });
    expect(await fences.crossLinksOf(key)).toEqual([
      link(1),
      { ...link(1), repoId: 2003, repo: "acme/third" },
    ]);
    expect(await fences.crossLinksOf({ ...key, issue: 43 })).toEqual([]);
    for (let n = 2; n <= maxCrossLinks + 1; n++) await fences.rememberCrossLink(key, link(n));
    const kept = await fences.crossLinksOf(key);
    expect(kept).toHaveLength(maxCrossLinks);
    // The oldest went first.
    expect(kept[0]).toEqual(link(2));
    expect(kept.at(-1)).toEqual(link(maxCrossLinks + 1));
    // One store call answers the note, the subject's PRs here and its cross links.
    const answered = await fences.recordClaim(key, { generation: 1, actor: agentA });
    expect(answered).toEqual({ pullRequests: [], crossLinks: kept });
  });

  it("keeps a cross link's ids exact however large, beside the links remembered before it", async () => {
    const large = { repo: "acme/große-repo", repoId: 123_456_789_012_345, number: 1 };
    const largest = { repo: "acme/other", repoId: Number.MAX_SAFE_INTEGER, number: 2 ** 31 };
    await fences.rememberCrossLink(key, large);
    await fences.rememberCrossLink(key, largest);
    await fences.rememberCrossLink(key, { ...large, number: 2 });
    expect(await fences.crossLinksOf(key)).toEqual([large, largest, { ...large, number: 2 }]);
    expect((await fences.recordClaim(key, { generation: 1, actor: agentA })).crossLinks).toHaveLength(3);
  });

  it("lets a subject's cross links expire 30 days after the last new one", async () => {
    await fences.rememberCrossLink(key, { repo: "acme/other", repoId: 2002, number: 9 });
    clock.now += crossLinkTtlMs - 1_000;
    await fenceCase.elapse?.(crossLinkTtlMs - 1_000);
    expect(await fences.crossLinksOf(key)).toHaveLength(1);
    clock.now += 2_000;
    await fenceCase.elapse?.(2_000);
    expect(await fences.crossLinksOf(key)).toEqual([]);
  });

  it("marks a comment handled once until the mark is dropped or expires", async () => {
    expect(await fences.markCommentHandled(7, 900, 60_000)).toBe(true);
    expect(await fences.markCommentHandled(7, 900, 60_000)).toBe(false);
    expect(await fences.markCommentHandled(8, 900, 60_000)).toBe(true);
    await fences.unmarkComment(7, 900);
    expect(await fences.markCommentHandled(7, 900, 60_000)).toBe(true);
  });

  it("keeps every key of an installation under its hash tag", async () => {
    if (!fenceCase.keys) return;
    await fences.recordClaim(key, { generation: 1, actor: agentA, branch: "b" });
    await fences.attest(key, 1, sha(1), T0);
    await fences.putPullRequest(repo, pr(5, [42]));
    await fences.markCommentHandled(7, 1, 60_000);
    const keys = await fenceCase.keys();
    expect(keys.length).toBe(7);
    for (const k of keys) expect(k).toMatch(/^claimhold-test:.*\{i:7\}:f:/);
  });
});
