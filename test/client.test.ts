// The agent-side client against a stateful fake of the HTTP API: routes, typed errors and retry rules.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  backoffDelay,
  type ClaimHoldClient,
  ClaimHoldError,
  createClaimHoldClient,
  redactSecrets,
} from "../src/agent/client/index.js";
import { type FakeApi, startFakeApi } from "./support/fake-api.js";

const repo = "octo/widgets";
const agentToken = "ghp_agenttoken";
const actor = { runtime: "claude-code", sessionId: "s-one", host: "build-7" };

let fake: FakeApi;
let sleeps: number[];
let client: ClaimHoldClient;

function clientWith(overrides: Parameters<typeof createClaimHoldClient>[0] | object = {}) {
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
});

afterEach(async () => {
  await fake.close();
});

describe("claim", () => {
  it("sends the claim body with the GitHub token and returns the new lease", async () => {
    const result = await client.claim({
      repo,
      issue: 12,
      actor,
      taskClass: "author",
      branch: "agent/s-one/12-x",
    });

    expect(result.created).toBe(true);
    expect(result.lease).toMatchObject({
      subject: "octo/widgets#12",
      generation: 1,
      heartbeatIntervalSeconds: 1,
    });
    expect(result.lease.token).toMatch(/^clh_/);
    expect(result.resume).toBeNull();
    expect(result.overlaps).toEqual([]);
    expect(fake.requests).toEqual([
      {
        method: "POST",
        path: "/api/v1/claims",
        authorization: `Bearer ${agentToken}`,
        body: { repo, issue: 12, actor, taskClass: "author", branch: "agent/s-one/12-x" },
      },
    ]);
  });

  it("reports a re-claim by the same session as not created, same generation, rotated token", async () => {
    const keyed = { ...actor, sessionKey: "session-key-of-s-one-0123456789abcdef" };
    const first = await client.claim({ repo, issue: 12, actor: keyed });
    const second = await client.claim({ repo, issue: 12, actor: keyed });
    const third = await client.claim({ repo, issue: 12, actor, leaseToken: second.lease.token });

    expect(second.created).toBe(false);
    expect(second.lease.generation).toBe(first.lease.generation);
    expect(second.lease.token).not.toBe(first.lease.token);
    expect(third).toMatchObject({ created: false, lease: { generation: first.lease.generation } });
    expect(fake.requests.map((r) => r.body)).toEqual([
      expect.objectContaining({ actor: keyed }),
      expect.objectContaining({ actor: keyed }),
      expect.objectContaining({ actor, leaseToken: second.lease.token }),
    ]);
  });

  it("throws 409 held to a re-claim without proof of the session, and superseded (rotated) to a rotated-out token", async () => {
    const first = await client.claim({ repo, issue: 12, actor });
    await client.claim({ repo, issue: 12, actor, leaseToken: first.lease.token });

    const refused = await caught(client.claim({ repo, issue: 12, actor }));
    const rotated = await caught(client.heartbeat(first.lease));

    expect(refused).toMatchObject({ status: 409, code: "held" });
    expect(rotated).toMatchObject({ status: 409, code: "superseded", details: { reason: "rotated" } });
  });

  it("throws a typed 409 held with the holder in the details", async () => {
    await client.claim({ repo, issue: 12, actor });

    const error = await caught(client.claim({ repo, issue: 12, actor: { sessionId: "s-two" } }));

    expect(error).toMatchObject({ status: 409, code: "held" });
    expect(error.details.holder).toMatchObject({ login: "agent-bot", sessionId: "s-one" });
    expect(error.details.generation).toBe(1);
  });

  it("throws human_held for a subject a human holds", async () => {
    fake.holdByHuman(repo, 12, "octocat");

    const error = await caught(client.claim({ repo, issue: 12, actor }));

    expect(error).toMatchObject({ status: 409, code: "human_held" });
  });

  it("waits out a 202 takeover_pending and resumes the incumbent's branch", async () => {
    await client.claim({ repo, issue: 12, actor, branch: "agent/s-one/12-fix" });
    fake.makeStale(repo, 12);
    const pending: unknown[] = [];

    const result = await client.claim(
      { repo, issue: 12, actor: { sessionId: "s-two" }, takeover: true },
      { onTakeoverPending: (p) => pending.push(p) },
    );

    expect(result.created).toBe(true);
    expect(result.lease.generation).toBe(2);
    expect(result.resume).toMatchObject({ previousGeneration: 1, branch: "agent/s-one/12-fix" });
    expect(pending).toEqual([
      { status: "takeover_pending", retryAfterSeconds: 0, incumbent: expect.any(Object) },
    ]);
    expect(sleeps).toEqual([250]);
    expect(requestsTo("/api/v1/claims")).toHaveLength(3);
  });

  it("waits retryAfterSeconds between takeover attempts and gives up after maxTakeoverWaits", async () => {
    const pending = { status: 202, body: { status: "takeover_pending", retryAfterSeconds: 300 } };
    fake.script("POST", "/api/v1/claims", pending, pending, pending);

    const error = await caught(
      clientWith({ maxTakeoverWaits: 2 }).claim({ repo, issue: 12, actor, takeover: true }),
    );

    expect(error).toMatchObject({ status: 202, code: "takeover_pending" });
    expect(sleeps).toEqual([300_250, 300_250]);
    expect(requestsTo("/api/v1/claims")).toHaveLength(3);
  });

  it("retries a claim whose connection failed before any response", async () => {
    fake.script("POST", "/api/v1/claims", "reset", "reset");

    const result = await client.claim({ repo, issue: 12, actor });

    expect(result.lease.generation).toBe(1);
    expect(requestsTo("/api/v1/claims")).toHaveLength(3);
    expect(sleeps).toEqual([125, 250]);
  });

  it("never retries a claim that got an answer, even a 503", async () => {
    fake.script("POST", "/api/v1/claims", {
      status: 503,
      body: { error: "store_unavailable", message: "down" },
    });

    const error = await caught(client.claim({ repo, issue: 12, actor }));

    expect(error).toMatchObject({ status: 503, code: "store_unavailable", message: "down" });
    expect(requestsTo("/api/v1/claims")).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("needs a GitHub token", async () => {
    const error = await caught(clientWith({ githubToken: undefined }).claim({ repo, issue: 12, actor }));

    expect(error).toMatchObject({ status: 0, code: "missing_github_token" });
    expect(fake.requests).toEqual([]);
  });

  it("rejects a success body that breaks the contract", async () => {
    fake.script("POST", "/api/v1/claims", { status: 201, body: { lease: { id: "x" } } });

    const error = await caught(client.claim({ repo, issue: 12, actor }));

    expect(error).toMatchObject({ status: 201, code: "invalid_response" });
    expect(error.message).toContain("lease.");
  });
});

describe("lease calls", () => {
  async function claimed() {
    const { lease } = await client.claim({ repo, issue: 12, actor });
    return { id: lease.id, token: lease.token };
  }

  it("heartbeats, attests, verifies and releases with the lease token", async () => {
    const lease = await claimed();
    const sha = "a".repeat(40);

    await expect(client.heartbeat(lease, { phase: "testing" })).resolves.toMatchObject({
      generation: 1,
      state: "active",
    });
    await expect(client.attest(lease, sha)).resolves.toEqual({ attested: true, sha, generation: 1 });
    await expect(client.verify(lease)).resolves.toMatchObject({ holder: true, generation: 1 });
    await expect(client.release(lease, { outcome: "completed", note: "done" })).resolves.toEqual({
      released: true,
      outcome: "completed",
      generation: 1,
    });

    expect(fake.requests.slice(1)).toEqual([
      {
        method: "POST",
        path: `/api/v1/leases/${lease.id}/heartbeat`,
        authorization: `Bearer ${lease.token}`,
        body: { phase: "testing" },
      },
      {
        method: "POST",
        path: `/api/v1/leases/${lease.id}/attest`,
        authorization: `Bearer ${lease.token}`,
        body: { sha },
      },
      {
        method: "GET",
        path: `/api/v1/leases/${lease.id}`,
        authorization: `Bearer ${lease.token}`,
        body: undefined,
      },
      {
        method: "POST",
        path: `/api/v1/leases/${lease.id}/release`,
        authorization: `Bearer ${lease.token}`,
        body: { outcome: "completed", note: "done" },
      },
    ]);
    expect(fake.claimOf(repo, 12)?.attested).toEqual([sha]);
  });

  it("answers 409 superseded, with who superseded, once another session holds the subject", async () => {
    const lease = await claimed();
    fake.supersede(repo, 12);

    for (const call of [
      () => client.heartbeat(lease),
      () => client.verify(lease),
      () => client.attest(lease, "b".repeat(40)),
      () => client.release(lease, { outcome: "handoff" }),
    ]) {
      const error = await caught(call());
      expect(error).toMatchObject({ status: 409, code: "superseded" });
      expect(error.details.by).toMatchObject({ sessionId: "successor" });
    }
    expect(sleeps).toEqual([]);
  });

  it("answers 410 gone after a release", async () => {
    const lease = await claimed();
    await client.release(lease, { outcome: "handoff" });

    const error = await caught(client.heartbeat(lease));

    expect(error).toMatchObject({ status: 410, code: "gone", details: { reason: "released" } });
  });

  it("retries a heartbeat on 5xx with jittered exponential backoff and honours Retry-After", async () => {
    const lease = await claimed();
    const unavailable = { status: 503, body: { error: "store_unavailable", message: "redis down" } };
    fake.script("POST", `/api/v1/leases/${lease.id}/heartbeat`, unavailable, "reset", {
      ...unavailable,
      headers: { "retry-after": "3" },
    });

    await expect(client.heartbeat(lease)).resolves.toMatchObject({ state: "active" });

    // random() = 0.5 → half of 250·2^attempt; the third wait is the server's Retry-After.
    expect(sleeps).toEqual([125, 250, 3000]);
    expect(requestsTo(`/api/v1/leases/${lease.id}/heartbeat`)).toHaveLength(4);
  });

  it("stops retrying a verify after the configured retries and reports the last answer", async () => {
    const lease = await claimed();
    const unavailable = { status: 503, body: { error: "store_unavailable", message: "redis down" } };
    fake.script("GET", `/api/v1/leases/${lease.id}`, unavailable, unavailable, unavailable);

    const error = await caught(clientWith({ retries: 2 }).verify(lease));

    expect(error).toMatchObject({ status: 503, code: "store_unavailable" });
    expect(sleeps).toEqual([125, 250]);
  });

  it("retries a verify after a dropped connection", async () => {
    const lease = await claimed();
    fake.script("GET", `/api/v1/leases/${lease.id}`, "reset");

    await expect(client.verify(lease)).resolves.toMatchObject({ holder: true });
    expect(sleeps).toEqual([125]);
  });

  it("never retries a release or an attestation", async () => {
    const lease = await claimed();
    fake.script("POST", `/api/v1/leases/${lease.id}/release`, {
      status: 502,
      body: { error: "github_failed" },
    });
    fake.script("POST", `/api/v1/leases/${lease.id}/attest`, "reset");

    await expect(caught(client.release(lease, { outcome: "handoff" }))).resolves.toMatchObject({
      status: 502,
      code: "github_failed",
    });
    await expect(caught(client.attest(lease, "c".repeat(40)))).resolves.toMatchObject({
      status: 0,
      code: "network_error",
    });
    expect(sleeps).toEqual([]);
  });

  it("never puts a token into an error message", async () => {
    const lease = await claimed();
    fake.script("POST", `/api/v1/leases/${lease.id}/release`, {
      status: 500,
      body: { error: "internal", message: `boom with ${lease.token} and ${agentToken}` },
    });
    const unreachable = clientWith({ baseUrl: "http://127.0.0.1:1", retries: 0 });

    const errors = [
      await caught(client.release(lease, { outcome: "handoff" })),
      await caught(unreachable.verify(lease)),
      await caught(unreachable.claim({ repo, issue: 1 })),
    ];

    for (const error of errors) {
      expect(error.message).not.toContain(lease.token);
      expect(error.message).not.toContain(agentToken);
      expect(JSON.stringify(error.details)).not.toContain(lease.token);
    }
    expect(errors[0]?.message).toBe("boom with [redacted] and [redacted]");
    expect(errors[1]).toMatchObject({ status: 0, code: "network_error" });
  });
});

describe("inventory and subject", () => {
  it("reads the inventory, tolerating fields a newer server adds", async () => {
    await client.claim({ repo, issue: 12, actor, branch: "agent/s-one/12" });

    const inventory = await client.inventory(repo, { state: "active", limit: 10 });

    expect(inventory.truncated).toBe(false);
    expect(inventory.claims).toEqual([
      expect.objectContaining({ subject: "octo/widgets#12", state: "active", generation: 1, reasons: [] }),
    ]);
    expect(fake.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/api/v1/repos/octo/widgets/claims?state=active&limit=10",
      authorization: `Bearer ${agentToken}`,
    });
  });

  it("reads one subject with its history", async () => {
    await client.claim({ repo, issue: 12, actor });

    const subject = await client.subject(repo, 12);

    expect(subject).toMatchObject({
      subject: "octo/widgets#12",
      generation: 1,
      history: [{ kind: "claimed" }],
    });
    expect(fake.requests.at(-1)?.path).toBe("/api/v1/repos/octo/widgets/issues/12/claim");
  });

  it("maps an unknown GitHub token to 401 unauthorized", async () => {
    const error = await caught(clientWith({ githubToken: "ghp_unknown" }).inventory(repo));

    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
  });
});

describe("backoffDelay", () => {
  it.each([
    { attempt: 0, random: 0.5, expected: 125 },
    { attempt: 1, random: 0.5, expected: 250 },
    { attempt: 3, random: 0.999, expected: 1998 },
    { attempt: 10, random: 0.5, expected: 4000 },
    { attempt: 2, random: 0, expected: 0 },
  ])("attempt $attempt with random $random waits $expected ms", ({ attempt, random, expected }) => {
    expect(backoffDelay(attempt, () => random, { baseMs: 250, maxMs: 8000 })).toBe(expected);
  });
});

describe("redactSecrets", () => {
  it("removes lease tokens, GitHub tokens and given secrets", () => {
    expect(redactSecrets("a clh_abc-DEF_1 b ghp_XYZ123 c github_pat_11A_b d s3cret", ["s3cret"])).toBe(
      "a [redacted] b [redacted] c [redacted] d [redacted]",
    );
  });
});
