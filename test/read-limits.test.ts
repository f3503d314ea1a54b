// The read routes' shared answer cache and per-login limit (docs/reference/http-api.md#reads), through the real App with nock.
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EnvError, parseEnv } from "../src/config/env.js";
import { createReadCache, readCacheTtlMs } from "../src/http/read-cache.js";
import { createReadLimiter, defaultReadsPerMinute } from "../src/http/read-limiter.js";
import { UserError } from "../src/http/user-error.js";
import { positiveTtlMs } from "../src/providers/github/github-identity-provider.js";
import { createMemoryRateLimits } from "../src/providers/memory/memory-rate-limits.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { type AppHarness, startApp } from "./support/app-harness.js";
import {
  agent,
  agentToken,
  GitHubRequestLog,
  type IssueState,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetRepoInstallation,
  nockGetUser,
  nockNoConfigFile,
  nockOpenIssues,
  nockSubjectStatus,
  otherAgent,
  otherAgentToken,
} from "./support/github-fake/index.js";

const repo = "octo/widgets";
const repoId = 1296269;
let app: AppHarness;
let github: GitHubRequestLog;

beforeEach(async () => {
  github = new GitHubRequestLog();
  app = await startApp({ stores: createMemoryStores() });
});

afterEach(async () => {
  vi.useRealTimers();
  await app.close();
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

function issue(number: number, extra: Partial<IssueState> = {}): IssueState {
  return { repo, repoId, number, title: `Issue ${number}`, ...extra };
}

const humanHeldIssues = [issue(2, { assignees: [{ login: "alice", id: "U_alice" }] })];

async function read(path: string, token = agentToken) {
  const response = await fetch(`${app.url}/api/v1/repos/${repo}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** What a reader's first read costs before the answer itself: who it is, the installation, its permission. */
function mockFirstRead(token: string, reader: typeof agent) {
  nockGetUser(github, token, reader);
  nockGetCollaboratorPermission(github, repo, reader.login, "read");
}

function requestsSince(mark: number): string[] {
  return github
    .since(mark)
    .map((r) => `${r.method} ${r.path}`)
    .sort();
}

/**
 * The read limit's counter (rate-limiter-flexible's) reads the wall clock, not the App's: these tests
 * fake Date alone and move it, so a window passes without sleeping.
 */
function fakeWallClock() {
  vi.useFakeTimers({ toFake: ["Date"] });
  return (ms: number) => vi.setSystemTime(Date.now() + ms);
}

describe("inventory and subject answers are shared for a few seconds", () => {
  it("20 inventory reads by two readers within the window cost one listing read, one GET /user per token", async () => {
    mockFirstRead(agentToken, agent);
    mockFirstRead(otherAgentToken, otherAgent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);

    const answers = [];
    for (let n = 0; n < 20; n++) {
      answers.push(await read("/claims", n % 2 === 0 ? agentToken : otherAgentToken));
      app.clock.now += 200; // 19 × 200 ms = 3.8 s, inside the 5 s window
    }
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers[0]?.body).toMatchObject({ claims: [{ subject: "octo/widgets#2", state: "human" }] });
    expect(requestsSince(0)).toEqual([
      "GET /repos/octo/.github/contents/.github/claim-hold.yml",
      "GET /repos/octo/widgets/collaborators/fleet-bot/permission",
      "GET /repos/octo/widgets/collaborators/other-bot/permission",
      "GET /repos/octo/widgets/contents/.github/claim-hold.yml",
      "GET /repos/octo/widgets/installation",
      // The identity cache answers a flood from one valid token: GitHub is asked once per token.
      "GET /user",
      "GET /user",
      "POST /app/installations/42/access_tokens",
      "POST /graphql",
    ]);
  });

  it("after the window a read costs a GitHub read again, and only that; concurrent misses share one", async () => {
    mockFirstRead(agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);
    expect((await read("/claims")).status).toBe(200);

    app.clock.now += readCacheTtlMs - 1;
    let mark = github.count();
    expect((await read("/claims")).status).toBe(200);
    expect(requestsSince(mark)).toEqual([]);

    app.clock.now += 1;
    nockOpenIssues(github, repo, repoId, [...humanHeldIssues, issue(3, { labels: ["agent:claimed"] })]);
    mark = github.count();
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => read("/claims")));
    expect(requestsSince(mark)).toEqual(["POST /graphql"]);
    for (const answer of concurrent) {
      expect(answer.body.claims).toMatchObject([
        { subject: "octo/widgets#2" },
        { subject: "octo/widgets#3" },
      ]);
    }
  });

  it("a flood from one valid token asks GitHub who it is once per 5-minute identity window", async () => {
    const elapse = fakeWallClock();
    const mockEverythingOnce = () => {
      mockFirstRead(agentToken, agent);
      nockGetRepoInstallation(github, repo);
      nockNoConfigFile(github, repo);
      nockOpenIssues(github, repo, repoId, humanHeldIssues);
    };
    mockEverythingOnce();
    nockCreateInstallationToken(github);
    const flood = async () => {
      for (let n = 0; n < 20; n++) expect((await read("/claims")).status).toBe(200);
    };
    await flood();
    expect(github.entries.filter((r) => r.path === "/user")).toHaveLength(1);

    app.clock.now += positiveTtlMs;
    elapse(positiveTtlMs);
    mockEverythingOnce();
    const mark = github.count();
    await flood();
    // Everything the identity cache held has expired with it, the installation token excepted.
    expect(requestsSince(mark)).toEqual([
      "GET /repos/octo/.github/contents/.github/claim-hold.yml",
      "GET /repos/octo/widgets/collaborators/fleet-bot/permission",
      "GET /repos/octo/widgets/contents/.github/claim-hold.yml",
      "GET /repos/octo/widgets/installation",
      "GET /user",
      "POST /graphql",
    ]);
  });

  it("each query shape is its own entry: another state filter, limit or issue number reads GitHub", async () => {
    mockFirstRead(agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);
    nockSubjectStatus(github, issue(7));
    nockSubjectStatus(github, issue(8));
    nockSubjectStatus(github, issue(9, { pullRequest: true }));
    const mark = github.count();
    const paths = ["/claims", "/claims?state=human", "/claims?state=human&limit=10", "/issues/7/claim"];
    for (const path of [...paths, ...paths, "/issues/8/claim", "/issues/9/claim", "/issues/9/claim"]) {
      const { status } = await read(path);
      expect([path, status]).toEqual([path, path === "/issues/9/claim" ? 404 : 200]);
    }
    // `?limit=50` is the default limit: the same shape as `/claims`.
    expect((await read("/claims?limit=50")).status).toBe(200);
    const graphql = github.since(mark).filter((r) => r.path === "/graphql");
    // 3 listings, issues 7 and 8, and one read of #9 — a pull request, so 404, an answer cached too.
    expect(graphql).toHaveLength(6);
  });

  it("a subject's answer is shared by both readers", async () => {
    mockFirstRead(agentToken, agent);
    mockFirstRead(otherAgentToken, otherAgent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issue(7, { assignees: [{ login: "alice", id: "U_alice" }] }));
    const answers = [];
    for (let n = 0; n < 10; n++)
      answers.push(await read("/issues/7/claim", n % 2 ? otherAgentToken : agentToken));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(answers[9]?.body).toMatchObject({ subject: "octo/widgets#7", state: "human" });
    expect(github.entries.filter((r) => r.path === "/graphql")).toHaveLength(1);
  });
});

describe("readers are rate limited per login and route family", () => {
  it("a reader over the limit gets 429 with Retry-After and costs no GitHub request; others and the other family are served", async () => {
    const elapse = fakeWallClock();
    mockFirstRead(agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);
    // A cache hit costs GitHub nothing but still counts against the caller.
    for (let n = 0; n < defaultReadsPerMinute; n++) expect((await read("/claims")).status).toBe(200);

    const mark = github.count();
    const refused = await read("/claims");
    expect(refused).toEqual({
      status: 429,
      // 30 a minute from the first: the window the 30 reads were counted in ends in 60 s.
      retryAfter: "60",
      body: {
        error: "rate_limited",
        message: "Too many inventory reads from your login; retry in 60 s.",
        retryAfterSeconds: 60,
      },
    });
    expect(github.count()).toBe(mark);

    // Another login has its own bucket (served from the cache), and so has the subject family.
    mockFirstRead(otherAgentToken, otherAgent);
    expect((await read("/claims", otherAgentToken)).status).toBe(200);
    nockSubjectStatus(github, issue(7));
    expect((await read("/issues/7/claim")).status).toBe(200);
    expect(requestsSince(mark)).toEqual([
      "GET /repos/octo/widgets/collaborators/other-bot/permission",
      "GET /user",
      "POST /graphql",
    ]);

    // Retrying early does not move the window's end; once it has ended the login has its 30 again.
    elapse(59_000);
    expect(await read("/claims")).toMatchObject({ status: 429, retryAfter: "1" });
    elapse(1_000);
    for (let n = 0; n < defaultReadsPerMinute; n++) expect((await read("/claims")).status).toBe(200);
    expect((await read("/claims")).status).toBe(429);
  });

  it("counts the caller before anything about the repository is asked: an over-limit reader of another repository costs nothing", async () => {
    mockFirstRead(agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);
    for (let n = 0; n < defaultReadsPerMinute; n++) expect((await read("/claims")).status).toBe(200);
    const mark = github.count();
    const response = await fetch(`${app.url}/api/v1/repos/octo/gadgets/claims`, {
      headers: { authorization: `Bearer ${agentToken}` },
    });
    expect(response.status).toBe(429);
    expect(github.count()).toBe(mark);
  });
});

describe("CLAIM_HOLD_READS_PER_MINUTE", () => {
  it("is a whole number from 1 to 10 000, absent by default", () => {
    expect(parseEnv({}).CLAIM_HOLD_READS_PER_MINUTE).toBeUndefined();
    expect(parseEnv({ CLAIM_HOLD_READS_PER_MINUTE: "120" }).CLAIM_HOLD_READS_PER_MINUTE).toBe(120);
  });

  it.each(["0", "-1", "1.5", "10001", "many"])("refuses %s at start-up", (value) => {
    expect(() => parseEnv({ CLAIM_HOLD_READS_PER_MINUTE: value })).toThrow(EnvError);
  });

  it("sets the App's limit: at 2 a minute the third read is refused for the rest of the minute", async () => {
    fakeWallClock();
    await app.close();
    app = await startApp({ stores: createMemoryStores(), readsPerMinute: 2 });
    mockFirstRead(agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, humanHeldIssues);
    expect((await read("/claims")).status).toBe(200);
    expect((await read("/claims")).status).toBe(200);
    expect(await read("/claims")).toMatchObject({ status: 429, retryAfter: "60" });
  });
});

describe("createReadLimiter", () => {
  it.each([
    { perMinute: 30, elapsedMs: 0, wait: 60 },
    { perMinute: 30, elapsedMs: 1_000, wait: 59 },
    { perMinute: 30, elapsedMs: 59_001, wait: 1 },
    { perMinute: 30, elapsedMs: 60_000, wait: 0 },
    { perMinute: 1, elapsedMs: 30_000, wait: 30 },
    { perMinute: 600, elapsedMs: 0, wait: 60 },
  ])("$perMinute a minute: all of them, then $elapsedMs ms later a wait of $wait s", async (row) => {
    const elapse = fakeWallClock();
    const limiter = createReadLimiter({ limits: createMemoryRateLimits(), perMinute: row.perMinute });
    for (let n = 0; n < row.perMinute; n++) expect(await limiter.take("inventory", "fleet-bot")).toBe(0);
    elapse(row.elapsedMs);
    expect(await limiter.take("inventory", "fleet-bot")).toBe(row.wait);
  });

  it("keeps one count per login (case-insensitive) and family; a refused request does not move the window", async () => {
    const elapse = fakeWallClock();
    const limiter = createReadLimiter({ limits: createMemoryRateLimits(), perMinute: 2 });
    expect([
      await limiter.take("inventory", "Fleet-Bot"),
      await limiter.take("inventory", "fleet-bot"),
    ]).toEqual([0, 0]);
    expect(await limiter.take("inventory", "FLEET-BOT")).toBe(60);
    expect(await limiter.take("subject", "fleet-bot")).toBe(0);
    expect(await limiter.take("inventory", "other-bot")).toBe(0);
    elapse(30_000);
    expect(await limiter.take("inventory", "fleet-bot")).toBe(30);
    elapse(29_000);
    expect(await limiter.take("inventory", "fleet-bot")).toBe(1);
    elapse(1_000);
    expect(await limiter.take("inventory", "fleet-bot")).toBe(0);
  });
});

describe("createReadCache", () => {
  function counting<T>(value: () => T) {
    const calls = { count: 0 };
    const load = async () => {
      calls.count++;
      return value();
    };
    return { calls, load };
  }

  it("answers from one load for ttlMs after the answer arrived, concurrent misses included", async () => {
    const clock = { now: 0 };
    const cache = createReadCache({ now: () => clock.now, ttlMs: 5_000 });
    const { calls, load } = counting(() => ({ claims: [] }));
    const answers = await Promise.all([cache.answer(["k"], load), cache.answer(["k"], load)]);
    expect(answers[0]).toBe(answers[1]);
    clock.now += 4_999;
    await cache.answer(["k"], load);
    expect(calls.count).toBe(1);
    clock.now += 1;
    await cache.answer(["k"], load);
    expect(calls.count).toBe(2);
  });

  it("keeps a refusal (UserError) for the window but not another failure", async () => {
    const cache = createReadCache({ now: () => 0 });
    const refusal = counting(() => {
      throw new UserError(404, "not_found", "octo/widgets#9 is not an issue.");
    });
    for (let n = 0; n < 2; n++) {
      await expect(cache.answer(["refused"], refusal.load)).rejects.toMatchObject({ status: 404 });
    }
    expect(refusal.calls.count).toBe(1);
    const failure = counting(() => {
      throw new Error("GitHub answered 502");
    });
    for (let n = 0; n < 2; n++) await expect(cache.answer(["failed"], failure.load)).rejects.toThrow("502");
    expect(failure.calls.count).toBe(2);
  });

  it("holds at most maxEntries, the least recently used going first", async () => {
    const cache = createReadCache({ now: () => 0, maxEntries: 2 });
    const { calls, load } = counting(() => "answer");
    for (const key of ["a", "b", "a", "c", "a", "c"]) await cache.answer([key], load);
    expect(calls.count).toBe(3);
    await cache.answer(["b"], load);
    expect(calls.count).toBe(4);
  });

  it("keys by every part: ['inventory', 42, 'o/r', 'human', 50] is not ['inventory', 42, 'o/r', '', 50]", async () => {
    const cache = createReadCache({ now: () => 0 });
    const { calls, load } = counting(() => "answer");
    await cache.answer(["inventory", 42, "o/r", "human", 50], load);
    await cache.answer(["inventory", 42, "o/r", "", 50], load);
    await cache.answer(["inventory", 42, "o/r", "human", 50], load);
    expect(calls.count).toBe(2);
  });
});
