// Targeted faults: GitHub rate limits, the App's clock jumping, a Redis black hole, a janitor leader lost mid-sweep, and an installation token GitHub refuses.
import { afterEach, describe, expect, it } from "vitest";
import { createSteadyClock } from "../../src/lease/steady-clock.js";
import {
  isRefusedInstallationToken,
  shouldRetryRateLimit,
} from "../../src/providers/github/claim-hold-octokit.js";
import { startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { testCredentials } from "../support/app-harness.js";
import { advance, type FakeTime, type FaultApp, faultApp } from "./support/fault-app.js";
import { agentClient, installationId, repo, repoId, seedWorld, statusOf } from "./support/world.js";

const minute = 60_000;
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
});

async function world(
  options: {
    throttle?: Record<string, unknown>;
    replicas?: number;
    simNow?: () => number;
    githubTimeoutMs?: number;
  } = {},
) {
  const time: FakeTime = { wall: Date.parse("2026-11-29T10:00:00Z"), monotonic: 0 };
  const stack = await startLocalStack({
    redis: { kind: "private", keyPrefix: "t:" },
    credentials: testCredentials(),
    ...(options.simNow ? { simulator: { now: options.simNow } } : {}),
    startApp: faultApp({
      time,
      ...(options.throttle ? { throttle: options.throttle } : {}),
      githubTimeoutMs: options.githubTimeoutMs ?? 5_000,
    }),
    apps: options.replicas ?? 1,
  });
  cleanup.push(() => stack.stop());
  const { sim, apps } = stack;
  const redis = stack.redis?.server;
  if (!redis) throw new Error("the fault stack has no private Redis");
  seedWorld(sim);
  await sim.flush();
  return { redis, sim, time, app: stack.app, apps };
}

describe("GitHub rate limits (Probot as shipped only logs secondary limits)", () => {
  it("decides: one retry, only for a short Retry-After", () => {
    expect(shouldRetryRateLimit(1, 0)).toBe(true);
    expect(shouldRetryRateLimit(5, 0)).toBe(true);
    expect(shouldRetryRateLimit(60, 0)).toBe(false);
    expect(shouldRetryRateLimit(1, 1)).toBe(false);
  });

  it("waits out a short secondary limit once; gives up at once without Retry-After or on a second limit, never hammering", {
    timeout: 60_000,
  }, async () => {
    const { sim, app } = await world({ throttle: { retryAfterBaseValue: 20 } });
    const secondary = { message: "You have exceeded a secondary rate limit. Please wait a few minutes." };
    const client = agentClient(app.url);
    const claim = (issue: number, sessionId: string) =>
      statusOf(client.claim({ repo, issue, actor: { sessionId } }));
    // Attempts of the claim's own write (the one adding the claim comment); a compensating cleanup is not one.
    const mutations = (mark: number) =>
      sim.requests.count({ operation: "ApplyTransition", mutation: "addComment" }, mark);

    // 403 + Retry-After: 1 → one wait, one retry, the claim goes through.
    let mark = sim.requests.mark();
    sim.fail({ operation: "ApplyTransition", status: 403, body: secondary, headers: { "retry-after": "1" } });
    expect(await claim(1, "a")).toBe(200);
    expect(mutations(mark)).toBe(2);

    // 403 without Retry-After (GitHub's fallback would be 60 s): no retry, 502, rolled back.
    mark = sim.requests.mark();
    sim.fail({ operation: "ApplyTransition", status: 403, body: secondary });
    expect(await claim(2, "b")).toBe(502);
    expect(mutations(mark)).toBe(1);
    expect(sim.issue(repo, 2).assignees).toEqual([]);

    // 429 twice with Retry-After: retried once, then given up (plugin-retry does not pile on).
    mark = sim.requests.mark();
    sim.fail({
      operation: "ApplyTransition",
      status: 429,
      body: secondary,
      headers: { "retry-after": "1" },
      times: 5,
    });
    expect(await claim(3, "c")).toBe(502);
    expect(mutations(mark)).toBe(2);
    sim.clearFaults();
    expect(await claim(3, "c")).toBe(200);
    expect(app.logs.join("")).toMatch(/Secondary rate limit hit .*giving up/);
  });
});

describe("the App's own clock jumping", () => {
  it("a steady clock absorbs a jump either way, never runs backwards, and pays the jump back gradually", () => {
    const t = { wall: 1_000_000, mono: 0 };
    const jumps: number[] = [];
    const now = createSteadyClock({
      wall: () => t.wall,
      monotonic: () => t.mono,
      onJump: (j) => jumps.push(j),
    });
    expect(now()).toBe(1_000_000);
    t.wall += 90 * minute;
    expect(now()).toBe(1_000_000);
    t.wall += minute;
    t.mono += minute;
    expect(now()).toBe(1_000_000 + 1.2 * minute);
    t.wall -= 180 * minute;
    const before = now();
    expect(before).toBe(1_000_000 + 1.2 * minute);
    t.wall += minute;
    t.mono += minute;
    expect(now()).toBeGreaterThan(before);
    expect(jumps).toEqual([90 * minute, -180 * minute]);
    for (let i = 0; i < 2000; i++) {
      t.wall += minute;
      t.mono += minute;
      now();
    }
    expect(now()).toBe(t.wall);
  });

  it.each([90, -90])(
    "a live agent keeps its lease and nothing is reaped when the wall clock jumps %i min",
    async (jump) => {
      const { sim, app, time } = await world();
      const client = agentClient(app.url);
      const live = await client.claim({ repo, issue: 1, actor: { sessionId: "live" } });
      const dead = await client.claim({ repo, issue: 2, actor: { sessionId: "dead" } });
      expect(dead.lease.generation).toBe(1);
      time.wall += jump * minute;
      for (let i = 0; i < 20; i++) {
        advance(time, 4 * minute);
        await expect(client.heartbeat(live.lease)).resolves.toMatchObject({ generation: 1 });
        const report = await app.services.janitor.sweep({});
        expect(report.actions.filter((a) => a.subject === `${repo}#1`)).toEqual([]);
      }
      expect(sim.issue(repo, 1).assignees).toEqual(["fleet-bot"]);
      // 80 min of real silence: the dead session's claim is reaped as usual.
      expect(
        sim
          .issue(repo, 2)
          .comments.map((c) => c.body)
          .join("\n"),
      ).toMatch(/Reaped generation 1/);
    },
  );
});

describe("Redis that stops answering (a black hole, not a refused connection)", () => {
  it("answers 503 within the command timeout, the janitor skips, and GitHub does not change", {
    timeout: 30_000,
  }, async () => {
    const { redis, sim, app, time } = await world();
    const client = agentClient(app.url);
    const { lease } = await client.claim({ repo, issue: 1, actor: { sessionId: "a" } });
    await sim.flush();
    const mark = sim.requests.mark();
    redis.pause();
    try {
      const started = Date.now();
      expect(await statusOf(client.heartbeat(lease))).toBe(503);
      expect(await statusOf(client.claim({ repo, issue: 2, actor: { sessionId: "b" } }))).toBe(503);
      expect(Date.now() - started).toBeLessThan(10_000);
      advance(time, 30_000);
      await expect(app.services.janitor.sweep({ reconcile: true })).rejects.toThrow(/unavailable|timed out/i);
      expect((await fetch(`${app.url}/readyz`)).status).toBe(503);
    } finally {
      redis.resume();
    }
    const writes = sim.requests
      .since(mark)
      .filter(
        (r) =>
          r.operationType === "mutation" ||
          (r.method !== "GET" && !r.route.endsWith("/graphql") && !r.path.includes("access_tokens")),
      );
    expect(writes).toEqual([]);
    await expect(client.heartbeat(lease)).resolves.toMatchObject({ generation: 1 });
  });
});

describe("a janitor leader lost mid-sweep", () => {
  it("another replica takes over once the lock expires; every claim is reaped exactly once", {
    timeout: 30_000,
  }, async () => {
    const { redis, sim, apps, time } = await world({ replicas: 2 });
    const [leader, standby] = apps as [FaultApp, FaultApp];
    for (const [issue, sessionId] of [
      [1, "x"],
      [2, "y"],
      [3, "z"],
    ] as const) {
      await agentClient(leader.url).claim({ repo, issue, actor: { sessionId } });
    }
    advance(time, 61 * minute);
    await sim.flush();
    // The leader's first reap write hangs; the leader then "dies": it never renews its lock.
    const hang = sim.fail({ operation: "ApplyTransition", delayMs: 3_000 });
    const leaderSweep = leader.services.jobs.tick("janitor");
    while (hang.hits === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await standby.services.jobs.tick("janitor")).toBe(false); // the lock is still the leader's
    // Its time to live runs out: the leader lock, and the lock its running sweep holds.
    await redis.command("PEXPIRE", "t:lock:job:janitor", 1);
    await redis.command("PEXPIRE", "t:lock:job:janitor:run", 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await standby.services.jobs.tick("janitor")).toBe(true);
    await leaderSweep; // the stuck write lands late; the rest of its sweep finds nothing left to do
    await sim.flush();
    for (const issue of [1, 2, 3]) {
      const reaps = sim.issue(repo, issue).comments.filter((c) => c.body.includes("Reaped generation"));
      expect(reaps, `${repo}#${issue}`).toHaveLength(1);
      expect(sim.issue(repo, issue).assignees).toEqual([]);
      const record = await standby.stores.claims.get({ installationId, repoId, issue });
      expect(record).toMatchObject({ state: "reaped", generation: 2 });
    }
  });
});

describe("an installation token GitHub no longer accepts (expired by GitHub's clock, or revoked)", () => {
  const tokenRoute = "POST /app/installations/{installation_id}/access_tokens";
  /**
   * `@octokit/auth-app` caches a token for 59 min of the App's clock and, for a token younger than 5 s,
   * retries a 401 itself (replication delay); a token GitHub expired is older than that.
   */
  const ageCachedToken = () => new Promise((resolve) => setTimeout(resolve, 5_200));

  it.each([
    [401, "token [REDACTED]", true],
    [401, "bearer [REDACTED]", false], // the App's JWT: a new installation token would not help
    [403, "token [REDACTED]", false],
    [401, undefined, false],
  ])(
    "decides: a %i answer to `authorization: %s` is a refused installation token: %s",
    (status, authorization, refused) => {
      const error = { status, request: { headers: authorization ? { authorization } : {} } };
      expect(isRefusedInstallationToken(error)).toBe(refused);
    },
  );

  async function expiringWorld() {
    const github = { offset: 0 };
    const w = await world({ simNow: () => Date.now() + github.offset });
    /** GitHub's clock passes the cached token's `expires_at`; the App's cache still holds it. */
    const expireTokens = () => {
      github.offset += 61 * minute;
    };
    return { ...w, expireTokens };
  }

  it("a claim drops the refused token and succeeds with one new token; if none can be had, 502 and rolled back", {
    timeout: 30_000,
  }, async () => {
    const { sim, app, expireTokens } = await expiringWorld();
    const client = agentClient(app.url);
    await client.claim({ repo, issue: 1, actor: { sessionId: "a" } });
    await ageCachedToken();
    expireTokens();
    let mark = sim.requests.mark();
    const claimed = await client.claim({ repo, issue: 2, actor: { sessionId: "b" } });
    expect(claimed.lease.generation).toBe(1);
    expect(sim.requests.count({ path: tokenRoute }, mark)).toBe(1);
    expect(sim.requests.since(mark).filter((r) => r.status === 401)).toHaveLength(1);
    expect(sim.issue(repo, 2).assignees).toEqual(["fleet-bot"]);
    expect(app.logs.join("")).toMatch(/refused the cached installation token of installation 42/);

    // The write itself is refused (a revoked token) and no new token can be had: one attempt at
    // each, 502, and neither the store nor GitHub keeps anything of the claim.
    await ageCachedToken();
    mark = sim.requests.mark();
    sim.fail({ operation: "ApplyTransition", status: 401 });
    sim.fail({ path: tokenRoute, status: 500, times: Infinity });
    expect(await statusOf(client.claim({ repo, issue: 3, actor: { sessionId: "c" } }))).toBe(502);
    // The write once; then its retry, the check whether it landed anyway, and the compensation each
    // ask for a token once and give up.
    expect(sim.requests.since(mark).map((r) => `${r.status} ${r.operationName ?? r.route}`)).toEqual([
      "200 SubjectStatus",
      "401 ApplyTransition",
      `500 ${tokenRoute}`,
      `500 ${tokenRoute}`,
      `500 ${tokenRoute}`,
    ]);
    // The undo could not be sent either: whatever of the claim's write GitHub may hold, the store
    // keeps the refused generation as ended with its write pending, for the reconcile to finish.
    expect(await app.stores.claims.get({ installationId, repoId, issue: 3 })).toMatchObject({
      generation: 1,
      state: "revoked",
      sync: "pending",
    });
    expect(sim.issue(repo, 3)).toMatchObject({ assignees: [], labels: [], comments: [] });
    sim.clearFaults();
    const retried = await client.claim({ repo, issue: 3, actor: { sessionId: "c" } });
    expect(retried).toMatchObject({ created: true, lease: { generation: 2 } });
    expect(sim.issue(repo, 3).assignees).toEqual(["fleet-bot"]);
  });

  it("a janitor sweep after the token expired still reaps", { timeout: 30_000 }, async () => {
    const { sim, app, time, expireTokens } = await expiringWorld();
    await agentClient(app.url).claim({ repo, issue: 1, actor: { sessionId: "gone" } });
    await ageCachedToken();
    expireTokens();
    advance(time, 61 * minute);
    const mark = sim.requests.mark();
    const report = await app.services.janitor.sweep({});
    expect(report.actions.filter((a) => a.subject === `${repo}#1`)).not.toEqual([]);
    expect(sim.requests.count({ path: tokenRoute }, mark)).toBe(1);
    expect(sim.issue(repo, 1).assignees).toEqual([]);
    expect(
      sim
        .issue(repo, 1)
        .comments.map((c) => c.body)
        .join("\n"),
    ).toMatch(/Reaped generation 1/);
    expect(await app.stores.claims.get({ installationId, repoId, issue: 1 })).toMatchObject({
      state: "reaped",
    });
  });
});

describe("a /reclaim whose write GitHub applies after the App gave up waiting", () => {
  it("stands: the person holds the issue, the agent's lease is superseded, and no one is left assigned without a record", {
    timeout: 30_000,
  }, async () => {
    const { sim, app } = await world({ githubTimeoutMs: 400 });
    const agent = agentClient(app.url);
    const claim = await agent.claim({ repo, issue: 1, actor: { sessionId: "s" } });
    if (!("lease" in claim)) throw new Error("the agent's claim was refused");
    // The /reclaim's one batched write answers after the App's 400 ms, and lands all the same.
    const late = sim.fail({ operation: "ApplyTransition", delayMs: 600 });
    sim.comment({ repo, issue: 1, login: "alice", body: "/reclaim" });
    await sim.flush();
    while (late.hits === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(sim.issue(repo, 1).assignees).toContain("alice");

    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    const record = await app.stores.claims.get({ installationId, repoId, issue: 1 });
    expect(record).toMatchObject({ state: "human", actor: { login: "alice" }, sync: "done" });
    expect(sim.issue(repo, 1).assignees).toEqual(["alice"]);
    await expect(agent.heartbeat({ id: claim.lease.id, token: claim.lease.token }, {})).rejects.toMatchObject(
      { code: "superseded" },
    );
  });

  it.each([
    ["/reclaim", "alice unassigns herself", ["alice"], []],
    ["/reclaim release", "a maintainer assigns fleet-bot again", ["fleet-bot"], ["fleet-bot"]],
  ] as const)(
    "%s that landed unanswered is only committed by reconcile: after %s, GitHub stays as the person left it",
    {
      timeout: 30_000,
    },
    async (body, _, handChange, expected) => {
      const { sim, app } = await world({ githubTimeoutMs: 400 });
      await agentClient(app.url).claim({ repo, issue: 1, actor: { sessionId: "s" } });
      const late = sim.fail({ operation: "ApplyTransition", delayMs: 600 });
      sim.comment({ repo, issue: 1, login: "alice", body });
      await sim.flush();
      while (late.hits === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 700));
      // By hand, after the write landed.
      const change = { repo, issue: 1, login: "alice", assignees: [...handChange] };
      if (body === "/reclaim") sim.unassign(change);
      else sim.assign(change);
      await sim.flush();

      await app.services.janitor.sweep({ reconcile: true });
      await sim.flush();
      expect(sim.issue(repo, 1).assignees).toEqual(expected);
      const record = await app.stores.claims.get({ installationId, repoId, issue: 1 });
      expect(record).toMatchObject({ actor: { login: "alice" }, sync: "done" });
    },
  );
});

describe("a revocation the store lost before its write reached GitHub", () => {
  it.each([
    [
      "its App-made assignment",
      "the old holder's heartbeat comes first",
      { assignees: ["fleet-bot"] },
      false,
    ],
    ["its App-made assignment", "reconcile comes first", { assignees: ["fleet-bot"] }, true],
    ["its claimed label", "the old holder's heartbeat comes first", { labels: ["agent:claimed"] }, false],
    ["its claimed label", "reconcile comes first", { labels: ["agent:claimed"] }, true],
  ])(
    "a person removed %s; %s: the heartbeat is refused (410 gone revoked), and reconcile leaves GitHub revoked",
    {
      timeout: 30_000,
    },
    async (_what, _order, removed, reconcileFirst) => {
      const { redis, sim, app } = await world();
      const key = { installationId, repoId, issue: 1 };
      const agent = agentClient(app.url);
      const claim = await agent.claim({ repo, issue: 1, actor: { sessionId: "s" } });
      if (!("lease" in claim)) throw new Error("the agent's claim was refused");
      await sim.flush();
      expect(sim.issue(repo, 1).assignees).toEqual(["fleet-bot"]);

      // A person takes the App-made assignment (or the label) away; the revocation's write (ending
      // the claim comment) fails.
      sim.fail({ operation: "ApplyTransition", status: 502, times: Infinity });
      sim.unassign({ repo, issue: 1, login: "alice", ...removed });
      await sim.flush();
      sim.clearFaults();
      expect(await app.stores.claims.get(key)).toMatchObject({
        generation: 2,
        state: "revoked",
        sync: "pending",
      });
      expect(
        sim
          .issue(repo, 1)
          .comments.map((c) => c.body)
          .join("\n"),
      ).toMatch(/"state":"active"/);

      // The store loses the revocation; the claim comment GitHub shows still says generation 1 is active.
      await redis.command("FLUSHALL");
      if (reconcileFirst) {
        await app.services.janitor.sweep({ reconcile: true });
        await sim.flush();
      }
      await expect(
        agent.heartbeat({ id: claim.lease.id, token: claim.lease.token }, {}),
      ).rejects.toMatchObject({
        status: 410,
        code: "gone",
        details: { reason: "revoked" },
      });
      await expect(
        agent.heartbeat({ id: claim.lease.id, token: claim.lease.token }, {}),
      ).rejects.toMatchObject({
        status: 410,
      });

      await app.services.janitor.sweep({ reconcile: true });
      await sim.flush();
      const issue = sim.issue(repo, 1);
      expect(issue.assignees).toEqual([]);
      expect(issue.labels).toEqual([]);
      expect(issue.comments.map((c) => c.body).join("\n")).toMatch(/"generation":1,"state":"revoked"/);
      expect(await app.stores.claims.get(key)).toMatchObject({
        generation: 2,
        state: "revoked",
        supersedes: 1,
        sync: "done",
      });
    },
  );
});

describe("a /reclaim whose write GitHub answers with an error", () => {
  it.each([
    // GitHub's own 5xx answers nothing about the write: it may still land, so the human claim is kept
    // pending and reconcile finishes it.
    [502, "kept pending, and reconcile finishes it", "human"],
    [504, "kept pending, and reconcile finishes it", "human"],
    // A 4xx is a definite refusal: nothing of it lands, the human claim is rolled back.
    [422, "rolled back: the agent keeps its lease", "active"],
  ] as const)("answered %i: %s", { timeout: 30_000 }, async (status, _, after) => {
    const { sim, app } = await world();
    const key = { installationId, repoId, issue: 1 };
    const agent = agentClient(app.url);
    const claim = await agent.claim({ repo, issue: 1, actor: { sessionId: "s" } });
    if (!("lease" in claim)) throw new Error("the agent's claim was refused");
    await sim.flush();

    sim.fail({ operation: "ApplyTransition", status, times: Infinity });
    sim.comment({ repo, issue: 1, login: "alice", body: "/reclaim" });
    await sim.flush();
    sim.clearFaults();
    expect(await app.stores.claims.get(key)).toMatchObject(
      after === "human"
        ? { state: "human", actor: { login: "alice" }, sync: "pending" }
        : { state: "active", generation: 1, actor: { login: "fleet-bot" } },
    );

    await app.services.janitor.sweep({ reconcile: true });
    await sim.flush();
    const lease = { id: claim.lease.id, token: claim.lease.token };
    if (after === "human") {
      expect(await app.stores.claims.get(key)).toMatchObject({
        state: "human",
        actor: { login: "alice" },
        sync: "done",
      });
      expect(sim.issue(repo, 1).assignees).toEqual(["alice"]);
      await expect(agent.heartbeat(lease, {})).rejects.toMatchObject({ code: "superseded" });
    } else {
      expect(sim.issue(repo, 1).assignees).toEqual(["fleet-bot"]);
      await expect(agent.heartbeat(lease, {})).resolves.toMatchObject({ generation: 1 });
    }
  });
});
