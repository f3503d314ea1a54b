// The janitor (README.md#keeping-github-and-the-store-in-step) against a real Redis store with a fake clock; GitHub faked by nock with exact counts.
import type { Redis } from "ioredis";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ClaimRecord, SubjectKey } from "../src/domain/claim.js";
import type { SweepReport } from "../src/janitor/janitor.js";
import { JobRegistry } from "../src/janitor/job-registry.js";
import { exceedsDisruptionBudget } from "../src/janitor/plan-sweep.js";
import { createLogger } from "../src/logger.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, signedClaimComment, startApp } from "./support/app-harness.js";
import {
  GitHubRequestLog,
  type IssueState,
  issueNodeId,
  labelIds,
  nockApplyTransition,
  nockCreateInstallationToken,
  nockNoConfigFile,
  nockSubjectStatus,
} from "./support/github-fake/index.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const installationId = 42;
const repo = "octo/widgets";
const repoId = 1296269;
const ttlMs = 30 * 60_000;
const reclaimAfterMs = 60 * 60_000;
const agentNodeId = "U_fleet";

const probe = await probeRedis();
const describeRedis = probe.available ? describe : describe.skip;

let redis: Redis;
let prefix: string;
let stores: Stores;
let app: AppHarness;
let github: GitHubRequestLog;

beforeAll(async () => {
  if (!probe.available) return;
  redis = await createTestRedis();
});

afterAll(async () => {
  await redis?.quit();
});

beforeEach(async () => {
  if (!probe.available) return;
  prefix = uniqueKeyPrefix("janitor");
  stores = createRedisStores({ redis, keyPrefix: prefix });
  github = new GitHubRequestLog();
  app = await startApp({ stores });
});

afterEach(async () => {
  if (!probe.available) return;
  await app.close();
  await deleteKeysWithPrefix(redis, prefix);
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

function issueOf(number: number, extra: Partial<IssueState> = {}): IssueState {
  return {
    repo,
    repoId,
    number,
    assignees: [{ login: "fleet-bot", id: agentNodeId }],
    labels: ["agent:claimed"],
    comments: [],
    ...extra,
  };
}

/** An agent claim made at the harness clock's current time, its comment committed. */
async function seedClaim(issue: number, session = `s${issue}`): Promise<ClaimRecord> {
  const key = { installationId, repoId, issue };
  await stores.claims.epoch(installationId, app.clock.now);
  const outcome = await stores.claims.claim({
    key,
    repo,
    actor: { kind: "agent", login: "fleet-bot", runtime: "codex", sessionId: session },
    taskClass: "author",
    durations: { ttlMs, reclaimAfterMs, heartbeatMs: 5 * 60_000 },
    branch: `agent/${session}/${issue}-work`,
    tokenDigest: "b".repeat(64),
    takeover: false,
    now: app.clock.now,
    minGeneration: 0,
    appAssigned: true,
    issueNodeId: issueNodeId(issueOf(issue)),
    assigneeNodeId: agentNodeId,
    caps: { perSession: 10, perLogin: 1000 },
  });
  if (outcome.kind !== "created") throw new Error(outcome.kind);
  await stores.claims.commitClaim(key, outcome.record.generation, {
    commentNodeId: `IC_${issue}`,
    commentId: 1000 + issue,
  });
  await stores.installations.rememberInstallation(installationId);
  return (await stores.claims.get(key))!;
}

function keyOf(issue: number): SubjectKey {
  return { installationId, repoId, issue };
}

async function sweep(body: Record<string, unknown> = {}): Promise<SweepReport> {
  return app.services.janitor.sweep(body);
}

/** The cold costs of the first sweep that acts: installation token and config lookups (label ids come with the status read). */
function mockColdWrites() {
  nockCreateInstallationToken(github);
  nockNoConfigFile(github, repo);
}

describeRedis("janitor sweep", () => {
  it("costs zero GitHub requests when nothing is due", async () => {
    await seedClaim(1);
    app.clock.now += ttlMs - 1;
    const report = await sweep();
    expect(report).toMatchObject({
      installations: 1,
      examined: 0,
      actions: [],
      githubRequests: 0,
      halted: false,
    });
    expect(github.count()).toBe(0);
  });

  it("relabels a stale claim once, then reaps it when reclaimable: exact writes and request counts", async () => {
    const record = await seedClaim(1);
    app.clock.now += ttlMs;
    mockColdWrites();
    nockSubjectStatus(github, issueOf(1));
    const relabel = nockApplyTransition(github);
    const first = await sweep();
    expect(first.actions).toEqual([
      { subject: "octo/widgets#1", action: "relabel-stale", reason: "heartbeat-missed" },
    ]);
    // 2 config reads + status + mutation (the installation token, refreshed hourly by Probot, is not counted)
    expect(first.githubRequests).toBe(4);
    expect(github.count()).toBe(5);
    const stale = await stores.claims.get(keyOf(1));
    expect(stale?.staleMarkedAt).toBe(app.clock.now);
    expect(relabel.variables).toEqual({
      removeLabels: { labelableId: issueNodeId(issueOf(1)), labelIds: [labelIds["agent:claimed"]] },
      addLabels: { labelableId: issueNodeId(issueOf(1)), labelIds: [labelIds["agent:stale"]] },
      edit0: { id: "IC_1", body: signedClaimComment(stale!, "stale") },
      comment0: {
        subjectId: issueNodeId(issueOf(1)),
        body: expect.stringContaining("No heartbeat from codex session s1"),
      },
    });

    // Marked: not due again until reclaimAfter.
    app.clock.now += reclaimAfterMs - ttlMs - 1;
    expect((await sweep()).githubRequests).toBe(0);

    app.clock.now += 1;
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issueOf(1, { labels: ["agent:stale"] }));
    const reap = nockApplyTransition(github);
    const second = await sweep();
    expect(second.actions).toEqual([
      {
        subject: "octo/widgets#1",
        action: "reap",
        reason: "heartbeat-expired,no-open-pull-request,no-recent-push",
      },
    ]);
    // config reads (the 5-minute cache expired on the App's clock) + status + mutation
    expect(second.githubRequests).toBe(4);
    expect(await stores.claims.get(keyOf(1))).toMatchObject({ state: "reaped", generation: 2 });
    expect(reap.variables).toEqual({
      unassign: { assignableId: issueNodeId(issueOf(1)), assigneeIds: [agentNodeId] },
      removeLabels: {
        labelableId: issueNodeId(issueOf(1)),
        labelIds: [labelIds["agent:claimed"], labelIds["agent:stale"]],
      },
      edit0: {
        id: "IC_1",
        body: signedClaimComment({ ...stale!, lastHeartbeatAt: record.lastHeartbeatAt }, "reaped", 2),
      },
      comment0: {
        subjectId: issueNodeId(issueOf(1)),
        body: expect.stringContaining(
          "Its branch `agent/s1/1-work` is kept: claim the issue again to resume from it.",
        ),
      },
    });
    expect((await sweep()).githubRequests).toBe(0);
  });

  it("never touches a human: a foreign assignee makes the subject human, and a co-assignee conflicted", async () => {
    await seedClaim(1);
    await seedClaim(2);
    app.clock.now += reclaimAfterMs;
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issueOf(1, { assignees: [{ login: "alice", id: "U_alice" }] }));
    nockSubjectStatus(
      github,
      issueOf(2, {
        assignees: [
          { login: "fleet-bot", id: agentNodeId },
          { login: "alice", id: "U_alice" },
        ],
      }),
    );
    const report = await sweep();
    expect(report.actions).toEqual([]);
    expect(report.examined).toBe(2);
    expect((await stores.claims.get(keyOf(1)))?.state).toBe("active");
    expect((await stores.claims.get(keyOf(2)))?.state).toBe("active");
  });

  it("leaves awaiting-review and exempt subjects alone", async () => {
    await seedClaim(1);
    await seedClaim(2);
    app.clock.now += reclaimAfterMs;
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockSubjectStatus(
      github,
      issueOf(1, {
        pullRequests: [{ number: 9, headRefName: "agent/s1/1-work", author: { login: "fleet-bot" } }],
      }),
    );
    nockSubjectStatus(github, issueOf(2, { labels: ["agent:claimed", "claim-hold:pinned"] }));
    const report = await sweep();
    expect(report.actions).toEqual([]);
    expect(report.skipped).toBe(2);
  });

  it("dry run reports the same actions and makes no mutation", async () => {
    await seedClaim(1);
    app.clock.now += reclaimAfterMs;
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issueOf(1));
    const report = await sweep({ dryRun: true });
    expect(report).toMatchObject({
      dryRun: true,
      actions: [
        {
          subject: "octo/widgets#1",
          action: "reap",
          reason: "heartbeat-expired,no-open-pull-request,no-recent-push",
        },
      ],
    });
    expect(
      github.entries.filter((e) => String((e.body as { query?: string })?.query).startsWith("mutation")),
    ).toEqual([]);
    expect((await stores.claims.get(keyOf(1)))?.state).toBe("active");
  });

  it("after the store lost its data, reaps nothing until a full reclaimAfter has passed since the epoch", async () => {
    const record = await seedClaim(1);
    await deleteKeysWithPrefix(redis, prefix);
    // The record comes back from its claim comment (here: restored as the lease core would).
    const epoch = await stores.claims.epoch(installationId, app.clock.now);
    await stores.claims.restore({ ...record, lastHeartbeatAt: epoch - 1 }, app.clock.now);
    await stores.installations.rememberInstallation(installationId);
    app.clock.now += reclaimAfterMs - 1;
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issueOf(1));
    const guarded = await sweep();
    expect(guarded.actions).toEqual([]);
    expect((await stores.claims.get(keyOf(1)))?.state).toBe("active");

    app.clock.now += 1;
    nockSubjectStatus(github, issueOf(1));
    nockApplyTransition(github);
    expect((await sweep()).actions.map((a) => a.action)).toEqual(["reap"]);
  });

  it("halts reaping when more than 0.55 of the claims, and more than 5, are due at once", async () => {
    for (let i = 1; i <= 10; i++) await seedClaim(i);
    app.clock.now += reclaimAfterMs;
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    for (let i = 1; i <= 10; i++) nockSubjectStatus(github, issueOf(i));
    const report = await sweep();
    expect(report).toMatchObject({ halted: true, haltedInstallations: [installationId], actions: [] });
    for (let i = 1; i <= 10; i++) expect((await stores.claims.get(keyOf(i)))?.state).toBe("active");
    expect(app.logs.some((l) => l.includes("disruption guard"))).toBe(true);
  });

  it("spends at most maxWritesPerMinute writes, at least 1 s apart, and reports the rest deferred", async () => {
    for (let i = 1; i <= 3; i++) await seedClaim(i);
    app.clock.now += ttlMs;
    nockCreateInstallationToken(github);
    const owner = repo.split("/")[0];
    nock("https://api.github.com")
      .get(`/repos/${repo}/contents/.github/claim-hold.yml`)
      .reply(200, "janitor: { maxWritesPerMinute: 2 }\n", { "content-type": "application/vnd.github.raw" });
    void owner;
    for (let i = 1; i <= 3; i++) nockSubjectStatus(github, issueOf(i));
    nockApplyTransition(github);
    nockApplyTransition(github);
    const report = await sweep();
    expect(report.actions.map((a) => a.action)).toEqual(["relabel-stale", "relabel-stale", "deferred"]);
    expect(app.sleeps).toEqual([1000]);
    expect((await stores.claims.get(keyOf(3)))?.staleMarkedAt).toBeUndefined();
  });

  it("a heartbeat that lands between the janitor's read and its reap wins (atomic re-check)", async () => {
    await seedClaim(1);
    app.clock.now += reclaimAfterMs - 1;
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issueOf(1), async () => {
      app.clock.now += 1;
      const beat = await stores.claims.heartbeat({
        key: keyOf(1),
        generation: 1,
        tokenDigest: "b".repeat(64),
        now: app.clock.now - 2,
        phaseEditEveryMs: 60_000,
      });
      expect(beat.kind).toBe("ok");
    });
    const report = await sweep();
    expect(report.actions).toEqual([]);
    expect((await stores.claims.get(keyOf(1)))?.state).toBe("active");
  });
});

describeRedis("two janitors racing on one Redis", () => {
  it("reap each subject exactly once", async () => {
    const second = await startApp({ stores: createRedisStores({ redis, keyPrefix: prefix }) });
    try {
      await seedClaim(1);
      await seedClaim(2);
      app.clock.now += reclaimAfterMs;
      second.clock.now = app.clock.now;
      nockCreateInstallationToken(github);
      nockCreateInstallationToken(github);
      for (let i = 0; i < 2; i++) {
        nockNoConfigFile(github, repo);
        nockSubjectStatus(github, issueOf(1));
        nockSubjectStatus(github, issueOf(2));
      }
      nockApplyTransition(github);
      nockApplyTransition(github);
      const [a, b] = await Promise.all([app.services.janitor.sweep(), second.services.janitor.sweep()]);
      const reaps = [...a.actions, ...b.actions].filter((x) => x.action === "reap").map((x) => x.subject);
      expect(reaps.sort()).toEqual(["octo/widgets#1", "octo/widgets#2"]);
      expect((await stores.claims.get(keyOf(1)))?.generation).toBe(2);
      expect((await stores.claims.get(keyOf(2)))?.generation).toBe(2);
    } finally {
      await second.close();
      nock.cleanAll();
    }
  });
});

describe("job registry", () => {
  it("refuses two jobs of the same name", () => {
    const registry = new JobRegistry({
      store: {} as never,
      log: createLogger({ level: "silent" }),
      now: () => 0,
    });
    registry.register({ name: "janitor", intervalMs: 1000, run: async () => {} });
    expect(() => registry.register({ name: "janitor", intervalMs: 1000, run: async () => {} })).toThrow(
      /already registered/,
    );
  });

  it.skipIf(!probe.available)("runs a job in only one of two replicas sharing the store's lock", async () => {
    const lockPrefix = uniqueKeyPrefix("jobs");
    const shared = createRedisStores({ redis, keyPrefix: lockPrefix });
    const runs: string[] = [];
    const replicas = ["a", "b"].map((name) => {
      const registry = new JobRegistry({
        store: shared.locks,
        log: createLogger({ level: "silent" }),
        now: () => 0,
      });
      registry.register({ name: "janitor", intervalMs: 60_000, run: async () => void runs.push(name) });
      return registry;
    });
    for (let tick = 0; tick < 3; tick++) {
      await Promise.all(replicas.map((r) => r.tick("janitor")));
    }
    expect(runs.length).toBe(3);
    expect(new Set(runs).size).toBe(1);
    const leader = replicas.find((r) => r.status("janitor")?.leader)!;
    await leader.stop();
    const follower = replicas.find((r) => r !== leader)!;
    expect(await follower.tick("janitor")).toBe(true);
    await follower.stop();
    await deleteKeysWithPrefix(redis, lockPrefix);
  });

  it("keeps a failing job's error and counts consecutive failures", async () => {
    const registry = new JobRegistry({
      store: { acquireLock: async () => true } as never,
      log: createLogger({ level: "silent" }),
      now: () => 5,
    });
    registry.register({
      name: "flaky",
      intervalMs: 1000,
      run: async () => {
        throw new Error("GitHub is down");
      },
    });
    expect(await registry.tick("flaky")).toBe(false);
    expect(await registry.tick("flaky")).toBe(false);
    expect(registry.status("flaky")).toMatchObject({ consecutiveFailures: 2, lastError: "GitHub is down" });
  });
});

describe("disruption budget", () => {
  it.each([
    [5, 5, false],
    [6, 10, true],
    [6, 11, false],
    [6, 100, false],
    [56, 100, true],
    [55, 100, false],
  ])("%i due of %i active → halt %s", (reaps, active, halted) => {
    expect(exceedsDisruptionBudget(reaps, active, 0.55)).toBe(halted);
  });
});
