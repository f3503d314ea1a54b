// The client's `claimNext` and `queue` against the stateful fake of the HTTP API: bodies, typed answers, errors, retry rules.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ClaimHoldClient,
  ClaimHoldError,
  createClaimHoldClient,
  QueueResponseSchema,
} from "../src/agent/client/index.js";
import { type FakeApi, startFakeApi } from "./support/fake-api.js";

const repo = "octo/widgets";
const agentToken = "ghp_agenttoken";
const actor = { runtime: "claude-code", sessionId: "s-one", host: "build-7" };

let fake: FakeApi;
let sleeps: number[];
let client: ClaimHoldClient;

function clientWith(overrides: object = {}) {
  return createClaimHoldClient({
    baseUrl: fake.url,
    githubToken: agentToken,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
}

async function caught(promise: Promise<unknown>): Promise<ClaimHoldError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClaimHoldError);
  return error as ClaimHoldError;
}

const requestsTo = (path: string) => fake.requests.filter((r) => r.path.startsWith(path));

beforeEach(async () => {
  fake = await startFakeApi();
  sleeps = [];
  client = clientWith();
  fake.openIssues.set(repo, [
    { number: 3, title: "three", assignees: [] },
    { number: 5, title: "five, urgent", assignees: [], labels: ["p0", "agent-ready"] },
    { number: 7, title: "seven", assignees: [], labels: ["agent-ready"] },
    { number: 9, title: "nine, assigned", assignees: ["octocat"] },
  ]);
});

afterEach(async () => {
  await fake.close();
});

describe("claimNext", () => {
  it("sends the SPEC's body with the GitHub token and returns the claim of the picked issue", async () => {
    const result = await client.claimNext({
      repo,
      actor,
      taskClass: "author",
      labels: ["agent-ready"],
      excludeLabels: ["needs-design"],
      scope: ["src/**"],
    });

    expect(result.created).toBe(true);
    expect(result.picked).toEqual({ issue: 5, rank: 1, reasons: ["priority:p0", "oldest"] });
    expect(result.lease).toMatchObject({ subject: "octo/widgets#5", generation: 1 });
    expect(result.lease.token).toMatch(/^clh_/);
    expect(result.resume).toBeNull();
    expect(result.overlaps).toEqual([]);
    expect(fake.requests).toEqual([
      {
        method: "POST",
        path: "/api/v1/claims/next",
        authorization: `Bearer ${agentToken}`,
        body: {
          repo,
          actor,
          taskClass: "author",
          labels: ["agent-ready"],
          excludeLabels: ["needs-design"],
          scope: ["src/**"],
        },
      },
    ]);
  });

  it("gives concurrent callers distinct issues, then queue_empty with the skip counts", async () => {
    const picks = await Promise.all(
      ["a", "b", "c"].map((id) => client.claimNext({ repo, actor: { sessionId: id } })),
    );

    expect(picks.map((p) => p.picked.issue).sort()).toEqual([3, 5, 7]);
    const empty = await caught(client.claimNext({ repo, actor: { sessionId: "d" } }));
    expect(empty).toMatchObject({
      status: 409,
      code: "queue_empty",
      details: { skipped: { held: 3, human: 1, blocked: 0, prOpen: 0, filtered: 0 } },
    });
    expect(empty.message).toBe("no eligible issue in octo/widgets");
  });

  it("never retries a pick: not after a reset connection, not after a 503 (a repeated pick is a second claim)", async () => {
    fake.script("POST", "/api/v1/claims/next", "reset", {
      status: 503,
      body: { error: "store_unavailable", message: "down" },
    });

    const reset = await caught(client.claimNext({ repo, actor }));
    const unavailable = await caught(client.claimNext({ repo, actor }));

    expect(reset).toMatchObject({ status: 0, code: "network_error" });
    expect(unavailable).toMatchObject({ status: 503, code: "store_unavailable" });
    expect(requestsTo("/api/v1/claims/next")).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });

  it("finishes a picked takeover (202 with picked) as a takeover claim of that issue after the grace beat", async () => {
    fake.openIssues.set(repo, [{ number: 12, title: "abandoned", assignees: [] }]);
    await client.claim({ repo, issue: 12, actor: { sessionId: "old" }, branch: "agent/old/12-fix" });
    fake.makeStale(repo, 12);
    const pending: unknown[] = [];

    const result = await client.claimNext(
      { repo, actor, includeTakeovers: true },
      { onTakeoverPending: (p) => pending.push(p) },
    );

    expect(result.picked).toEqual({ issue: 12, rank: 1, reasons: ["reclaimable"] });
    expect(result.lease).toMatchObject({
      subject: "octo/widgets#12",
      generation: 2,
      branch: "agent/old/12-fix",
    });
    expect(result.resume).toMatchObject({ previousGeneration: 1, branch: "agent/old/12-fix" });
    expect(pending).toHaveLength(1);
    expect(sleeps).toEqual([250]);
    expect(fake.requests.slice(1).map((r) => [r.path, r.body])).toEqual([
      ["/api/v1/claims/next", { repo, actor, includeTakeovers: true }],
      ["/api/v1/claims", { repo, issue: 12, actor, takeover: true }],
    ]);
  });

  it("rejects a 201 without picked as a broken contract", async () => {
    fake.script("POST", "/api/v1/claims/next", {
      status: 201,
      body: {
        lease: {
          id: "1.42.3.1",
          subject: "octo/widgets#3",
          generation: 1,
          token: "clh_x",
          taskClass: "author",
          ttlSeconds: 30,
          heartbeatIntervalSeconds: 1,
          expiresAt: "2026-01-01T00:00:00Z",
        },
      },
    });

    const error = await caught(client.claimNext({ repo, actor }));

    expect(error).toMatchObject({ status: 201, code: "invalid_response" });
    expect(error.message).toContain("at picked");
  });

  it("needs a GitHub token", async () => {
    const error = await caught(clientWith({ githubToken: undefined }).claimNext({ repo, actor }));

    expect(error).toMatchObject({ code: "missing_github_token" });
    expect(fake.requests).toEqual([]);
  });
});

describe("queue", () => {
  it("reads the server's ranking with reasons and the skipped issues with why", async () => {
    await client.claim({ repo, issue: 3, actor: { sessionId: "other" } });

    const answer = await client.queue(repo, { limit: 1 });

    expect(answer).toEqual({
      queue: [{ issue: 5, title: "five, urgent", rank: 1, reasons: ["priority:p0", "oldest"] }],
      skipped: [
        { issue: 3, reason: "held" },
        { issue: 9, reason: "human" },
      ],
      truncated: true,
    });
    expect(requestsTo("/api/v1/repos/")).toEqual([
      {
        method: "GET",
        path: "/api/v1/repos/octo/widgets/queue?limit=1",
        authorization: `Bearer ${agentToken}`,
        body: undefined,
      },
    ]);
  });

  it("is a read: retried after a 503, and lenient on fields a newer server adds", async () => {
    fake.script(
      "GET",
      "/api/v1/repos/octo/widgets/queue",
      { status: 503, body: { error: "store_unavailable" } },
      {
        status: 200,
        body: {
          queue: [{ issue: 1, title: "one", rank: 1, reasons: ["oldest"], score: 9 }],
          skipped: [],
          truncated: false,
          refreshedAt: 5,
        },
      },
    );

    const answer = await client.queue(repo);

    expect(answer.queue).toEqual([{ issue: 1, title: "one", rank: 1, reasons: ["oldest"], score: 9 }]);
    expect(answer.skipped).toEqual([]);
    expect(answer.truncated).toBe(false);
    expect(sleeps).toHaveLength(1);
    expect(requestsTo("/api/v1/repos/octo/widgets/queue")).toHaveLength(2);
  });

  it("maps the server's errors like every read", async () => {
    const error = await caught(clientWith({ githubToken: "ghp_unknown" }).queue(repo));

    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
    expect(() => QueueResponseSchema.parse({ queue: [{ issue: "x" }] })).toThrow();
  });
});
