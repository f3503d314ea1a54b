// End to end over HTTP: a burst of claims of one installation shares its GitHub mutations, and one subject failing in a batch fails only that claim.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isClaimHoldError } from "../../src/agent/client/index.js";
import { agentClient, repo as throttledRepo } from "../faults/support/world.js";
import { probeRedis } from "../support/redis.js";
import { startThrottledStack, type ThrottledStack } from "../support/throttled-stack.js";
import { claimMarkers, type E2eWorld, fleet, repo, startWorld } from "./support/e2e-world.js";

const redisProbe = await probeRedis();
let world: E2eWorld;

const burst = Array.from({ length: 30 }, (_, n) => n + 1);

async function queuedWrites(): Promise<number> {
  const { values } = await world.app.services.metrics.githubWritesQueued.get();
  return values[0]?.value ?? 0;
}

/** Waits (no deadline but the test's) until `count` transitions wait behind the mutation in flight. */
async function untilQueued(count: number): Promise<void> {
  while ((await queuedWrites()) !== count) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Claims #1 while its mutation is held at the simulator, then #2–#30 at once; releases the hold once
 * all 29 wait behind it, so the batching is exact: #1 alone, then the other 29 in one request.
 */
async function claimBurst() {
  const agent = world.agent();
  const claimOf = (issue: number) =>
    agent.claim({ repo, issue, actor: { runtime: "codex", sessionId: `burst-${issue}` } }).then(
      (claim) => ({ issue, status: claim.created ? 201 : 200, lease: claim.lease }),
      (error: unknown) => {
        if (!isClaimHoldError(error)) throw error;
        return { issue, status: error.status, code: error.code };
      },
    );
  const held = world.sim.hold({ operation: "ApplyTransition" });
  const first = claimOf(1);
  await held.arrived;
  const others = burst.slice(1).map(claimOf);
  await untilQueued(29);
  held.release();
  const results = await Promise.all([first, ...others]);
  await world.sim.flush();
  return results;
}

/** Subjects per ApplyTransition request since the mark, in order (each claim adds its assignee once). */
function subjectsPerMutation(mark: number): number[] {
  return world.sim.requests
    .since(mark)
    .filter((request) => request.operationName === "ApplyTransition")
    .map((request) => (request.mutationFields ?? []).filter((f) => f === "addAssigneesToAssignable").length);
}

describe.skipIf(!redisProbe.available)("a burst of claims of one installation", () => {
  beforeEach(async () => {
    world = await startWorld({
      issues: [...burst, 31].map((n) => ({ number: n, title: `Task ${n}` })),
      coalesceWrites: true,
    });
    // Warms the caches (installation token, the caller, the managed labels) with a claim of its own.
    await world.agent().claim({ repo, issue: 31, actor: { runtime: "codex", sessionId: "warm-up" } });
  });
  afterEach(() => world.close());

  it("30 claims of 30 issues: each claimant gets its own lease, in 2 mutation requests (1 + 29)", async () => {
    const { sim } = world;
    const mark = sim.requests.mark();
    const results = await claimBurst();

    expect(results.map((r) => r.status)).toEqual(burst.map(() => 201));
    expect(results.map((r) => ("lease" in r ? r.lease?.subject : undefined))).toEqual(
      burst.map((n) => `${repo}#${n}`),
    );
    expect(results.map((r) => ("lease" in r ? r.lease?.generation : undefined))).toEqual(burst.map(() => 1));
    expect(subjectsPerMutation(mark)).toEqual([1, 29]);
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 30, "graphql:ApplyTransition": 2 });
    expect(await queuedWrites()).toBe(0);
    for (const n of burst) {
      expect(sim.issue(repo, n)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
      expect(claimMarkers(sim, n)).toEqual([{ generation: 1, state: "active" }]);
    }
  });

  it("one subject failing in a batch: that claimant gets 502 and its claim is rolled back, the other 29 are claimed", async () => {
    const { sim } = world;
    const failing = 17;
    const failingNodeId = sim.issue(repo, failing).nodeId;
    // Issue #17's fields fail inside their batch the way GitHub fails one field of a document (HTTP 200).
    const fault = sim.fail({
      operation: "ApplyTransition",
      bodyIncludes: failingNodeId,
      field: { inputIncludes: failingNodeId },
    });
    const mark = sim.requests.mark();
    const results = await claimBurst();

    expect(fault.hits).toBe(1);
    expect(results.find((r) => r.issue === failing)).toEqual({
      issue: failing,
      status: 502,
      code: "github_failed",
    });
    const others = burst.filter((n) => n !== failing);
    expect(results.filter((r) => r.issue !== failing).map((r) => r.status)).toEqual(others.map(() => 201));
    expect(subjectsPerMutation(mark).slice(0, 2)).toEqual([1, 29]);

    const inventory = await world.agent().inventory(repo);
    const claimed = inventory.claims.map((row) => row.subject);
    expect(claimed).not.toContain(`${repo}#${failing}`);
    for (const n of others) {
      expect(claimed).toContain(`${repo}#${n}`);
      expect(sim.issue(repo, n)).toMatchObject({ assignees: [fleet.login], labels: ["agent:claimed"] });
      expect(claimMarkers(sim, n)).toEqual([{ generation: 1, state: "active" }]);
    }
    expect(sim.issue(repo, failing)).toMatchObject({ assignees: [], labels: [], comments: [] });
  });

  it("a failure of a whole batched request fails each of its subjects, each rolled back; the lone first one is claimed", async () => {
    const { sim } = world;
    // The second request carries #2–#30; GitHub answers it 502 without carrying it out.
    sim.fail({ operation: "ApplyTransition", bodyIncludes: sim.issue(repo, 5).nodeId, status: 502 });
    const results = await claimBurst();

    const failed = burst.filter((n) => n >= 2);
    expect(results.filter((r) => r.status === 502).map((r) => r.issue)).toEqual(failed);
    expect(
      results.filter((r) => r.status === 502).every((r) => "code" in r && r.code === "github_failed"),
    ).toBe(true);
    expect(results.filter((r) => r.status === 201).map((r) => r.issue)).toEqual(
      burst.filter((n) => !failed.includes(n)),
    );
    // A failed claim's generation is kept ended (a 502 is no refusal): listed free, never claimed.
    const claimed = (await world.agent().inventory(repo)).claims
      .filter((row) => row.state !== "free")
      .map((row) => row.subject);
    for (const n of burst) {
      if (failed.includes(n)) {
        expect(claimed).not.toContain(`${repo}#${n}`);
        expect(sim.issue(repo, n)).toMatchObject({ assignees: [], labels: [], comments: [] });
      } else {
        expect(claimed).toContain(`${repo}#${n}`);
      }
    }
  });
});

describe("a burst of claims with production throttling", () => {
  let throttled: ThrottledStack;
  let stack: ThrottledStack["stack"];

  beforeAll(async () => {
    throttled = await startThrottledStack(31);
    stack = throttled.stack;
  });
  afterAll(() => stack?.stop());

  it("30 concurrent claims: 30 × 201, every mutation request waits its turn, and they go batched (the first alone, the rest together)", async () => {
    const { sim, app } = stack;
    const client = agentClient(app.url);
    await client.claim({ repo: throttledRepo, issue: 31, actor: { sessionId: "warm-up" } });

    const mark = sim.requests.mark();
    const waitedBefore = throttled.waitedForWrites();
    const claimOf = (issue: number) =>
      client.claim({ repo: throttledRepo, issue, actor: { sessionId: `burst-${issue}` } });
    // #1's mutation is held at the simulator (past the limiter) until the other 29 wait behind it.
    const held = sim.hold({ operation: "ApplyTransition" });
    const first = claimOf(1);
    await held.arrived;
    const others = burst.slice(1).map(claimOf);
    const queued = async () => (await app.services.metrics.githubWritesQueued.get()).values[0]?.value ?? 0;
    while ((await queued()) !== 29) await new Promise((resolve) => setTimeout(resolve, 5));
    held.release();
    const results = await Promise.all([first, ...others]);
    expect(results.map((r) => [r.created, r.lease.subject])).toEqual(
      burst.map((n) => [true, `${throttledRepo}#${n}`]),
    );
    const mutations = sim.requests.since(mark).filter((request) => request.operationType === "mutation");
    const subjects = mutations.map(
      (request) => (request.mutationFields ?? []).filter((f) => f === "addAssigneesToAssignable").length,
    );
    expect(subjects.reduce((sum, n) => sum + n, 0)).toBe(30);
    // Two write requests for 30 claims: the first alone, the 29 that queued behind it together.
    expect(subjects).toEqual([1, 29]);
    // Serial writes, about one a second: every mutation request, batched or not, waited for the limiter.
    expect(throttled.waitedForWrites() - waitedBefore).toBe(mutations.length);
    expect(sim.requests.counts(mark)["graphql:SubjectStatus"]).toBe(30);
  });
});
