// The HTTP API (docs/reference/http-api.md) through the real App server, with GitHub faked by nock at the HTTP layer.
import { createHmac } from "node:crypto";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseClaimMarker } from "../src/domain/claim-marker.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, signedClaimComment, startApp, testTokenSecret } from "./support/app-harness.js";
import {
  agent,
  agentToken,
  GitHubRequestLog,
  type IssueState,
  installationId,
  installationToken,
  issueNodeId,
  labelIds,
  markerComment,
  nockApplyTransition,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetRepoInstallation,
  nockGetRepository,
  nockGetUser,
  nockNoConfigFile,
  nockSubjectStatus,
} from "./support/github-fake/index.js";

const repo = "octo/widgets";
const repoId = 1296269;
const issue: IssueState = { repo, repoId, number: 12, title: "Fix the parser" };
const actorA = { runtime: "claude-code", sessionId: "sessA", host: "build-7" };
const actorB = { runtime: "codex", sessionId: "sessB", host: "build-8" };
const ttlMs = 30 * 60_000;
const reclaimAfterMs = 60 * 60_000;
const heartbeatMs = 5 * 60_000;

let app: AppHarness;
let stores: Stores;
let github: GitHubRequestLog;

beforeEach(async () => {
  stores = createMemoryStores();
  github = new GitHubRequestLog();
  app = await startApp({ stores });
});

afterEach(async () => {
  await app.close();
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

function digestOf(token: string) {
  return createHmac("sha256", testTokenSecret).update(token).digest("hex");
}

/** The identity lookups of a first claim: installation token, user, installation, permission. */
function mockColdAuth(permission = "write", token = agentToken, user = agent) {
  nockCreateInstallationToken(github);
  mockExpiredAuthCaches(permission, token, user);
}

/** The 5-minute identity caches run on the App's clock: after it moves on, the lookups happen again. */
function mockExpiredAuthCaches(permission = "write", token = agentToken, user = agent) {
  nockGetUser(github, token, user);
  nockGetRepoInstallation(github, repo);
  nockGetCollaboratorPermission(github, repo, user.login, permission);
}

async function post(path: string, body: unknown, token?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, any>,
    headers: response.headers,
  };
}

async function get(path: string, token?: string) {
  const response = await fetch(`${app.url}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

function claimBody(
  actor: typeof actorA & { sessionKey?: string } = actorA,
  extra: Record<string, unknown> = {},
) {
  return { repo, issue: issue.number, actor, taskClass: "author", ...extra };
}

/** A first claim by session A, with every cold lookup mocked; answers the lease. */
async function claimAsA(extra: Record<string, unknown> = {}) {
  mockColdAuth();
  nockNoConfigFile(github, repo);
  nockSubjectStatus(github, issue);
  const write = nockApplyTransition(github, { claimComment: { id: "IC_a", databaseId: 9001 } });
  const response = await post("/api/v1/claims", claimBody(actorA, extra), agentToken);
  expect(response.status).toBe(201);
  return { lease: response.body.lease, write };
}

describe("POST /api/v1/claims", () => {
  it("claims an issue with one read and one batched mutation, and writes exactly the claim", async () => {
    const { lease, write } = await claimAsA();
    expect(lease).toEqual({
      id: `${installationId}.${repoId}.12.1`,
      subject: "octo/widgets#12",
      generation: 1,
      token: expect.stringMatching(/^clh_[A-Za-z0-9_-]{43}$/),
      taskClass: "author",
      branch: "agent/sessA/12-fix-the-parser",
      ttlSeconds: 1800,
      heartbeatIntervalSeconds: 300,
      expiresAt: new Date(app.clock.now + ttlMs).toISOString(),
    });
    const record = await stores.claims.get({ installationId, repoId, issue: 12 });
    expect(record).toMatchObject({
      generation: 1,
      state: "active",
      sync: "done",
      appAssigned: true,
      commentNodeId: "IC_a",
      commentId: 9001,
      tokenDigest: digestOf(lease.token),
    });
    const subject = issueNodeId(issue);
    expect(write.variables).toEqual({
      assign: { assignableId: subject, assigneeIds: [agent.node_id] },
      addLabels: { labelableId: subject, labelIds: [labelIds["agent:claimed"]] },
      claimComment: {
        subjectId: subject,
        body: signedClaimComment({ ...record!, sync: "pending" }, "active"),
      },
    });
    const marker = parseClaimMarker((write.variables!.claimComment as { body: string }).body);
    expect(marker).toMatchObject({
      kind: "marker",
      marker: {
        subject: "octo/widgets#12",
        generation: 1,
        state: "active",
        tokenDigest: digestOf(lease.token),
      },
    });
    expect(JSON.stringify(write.variables)).not.toContain(lease.token);
  });

  it("makes exactly 2 GitHub requests for a claim once the auth caches are warm", async () => {
    await claimAsA();
    const other: IssueState = { ...issue, number: 13, title: "Second" };
    nockSubjectStatus(github, other);
    nockApplyTransition(github, { claimComment: { id: "IC_b", databaseId: 9002 } });
    const mark = github.count();
    const response = await post("/api/v1/claims", { ...claimBody(actorB), issue: 13 }, agentToken);
    expect(response.status).toBe(201);
    expect(github.since(mark).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /graphql",
      "POST /graphql",
    ]);
  });

  describe("re-claims need proof of the session (invariant 14)", () => {
    const sessionKeyA = "sk_A-3f9c2e71b04d5a68c1e2f3a4b5c6d7e8";
    const keyedA = { ...actorA, sessionKey: sessionKeyA };
    const heldByA = () => ({
      ...issue,
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
    });
    const subjectKey = { installationId, repoId, issue: 12 };
    const beat = (leaseId: string, token: string) => post(`/api/v1/leases/${leaseId}/heartbeat`, {}, token);

    it("re-claims with the session key: 200, same generation, a new token; the old one is then rotated out", async () => {
      const { lease, write } = await claimAsA({ actor: keyedA });
      nockSubjectStatus(github, heldByA());
      const edit = nockApplyTransition(github);
      const again = await post("/api/v1/claims", claimBody(keyedA), agentToken);
      expect(again.status).toBe(200);
      expect(again.body.lease.generation).toBe(1);
      expect(again.body.lease.token).not.toBe(lease.token);
      // The claim comment is edited to name the new token, which is the lease's only from now on;
      // assignment and label are sent again as the claim's full desired state (invariant 13).
      expect(Object.keys(edit.variables!)).toEqual(["assign", "addLabels", "edit0"]);
      expect(JSON.stringify(edit.variables)).toContain(digestOf(again.body.lease.token));
      expect(await stores.claims.get(subjectKey)).toMatchObject({
        tokenDigest: digestOf(again.body.lease.token),
        sync: "done",
      });
      expect(await stores.claims.get(subjectKey)).not.toHaveProperty("pendingTokenDigest");
      nockApplyTransition(github); // the release below, made with the new token

      const refusals = [
        await beat(lease.id, lease.token),
        await post(`/api/v1/leases/${lease.id}/attest`, { sha: "a".repeat(40) }, lease.token),
        await get(`/api/v1/leases/${lease.id}`, lease.token),
        await post(`/api/v1/leases/${lease.id}/release`, { outcome: "handoff" }, lease.token),
      ];
      for (const refused of refusals) {
        expect(refused.status).toBe(409);
        expect(refused.body).toEqual({
          error: "superseded",
          message: expect.any(String),
          by: { kind: "agent", login: agent.login, ...actorA },
          generation: 1,
          at: new Date(app.clock.now).toISOString(),
          reason: "rotated",
        });
      }
      expect((await beat(lease.id, again.body.lease.token)).status).toBe(200);
      const released = await post(
        `/api/v1/leases/${lease.id}/release`,
        { outcome: "handoff" },
        again.body.lease.token,
      );
      expect(released.status).toBe(200);

      // The session key is a secret: never in an answer, a log line, the record's actor or a GitHub request.
      const everything = [
        ...app.logs,
        ...[again, ...refusals, released].map((r) => JSON.stringify(r.body)),
        JSON.stringify(github.entries),
        JSON.stringify(await stores.claims.get(subjectKey)),
        JSON.stringify(write.variables),
      ].join("\n");
      expect(everything).not.toContain(sessionKeyA);
    });

    it("re-claims with the lease token in the body: 200", async () => {
      const { lease } = await claimAsA();
      nockSubjectStatus(github, heldByA());
      nockApplyTransition(github);
      const again = await post("/api/v1/claims", claimBody(actorA, { leaseToken: lease.token }), agentToken);
      expect(again.status).toBe(200);
      expect(again.body.lease.generation).toBe(1);
      expect((await beat(lease.id, again.body.lease.token)).status).toBe(200);
      expect((await beat(lease.id, lease.token)).body.reason).toBe("rotated");
    });

    it("answers 409 held, with no GitHub write, to a session naming the public session id without proof", async () => {
      const { lease, write } = await claimAsA({ actor: keyedA });
      // Anyone who can read the issue sees the holder's session id in the claim comment's marker.
      const marker = parseClaimMarker((write.variables!.claimComment as { body: string }).body);
      const published = (marker as { marker: { actor: typeof actorA } }).marker.actor;
      expect(published.sessionId).toBe(actorA.sessionId);
      const impostor = { runtime: "codex", sessionId: published.sessionId, host: "elsewhere" };
      for (const body of [
        claimBody(impostor),
        claimBody({ ...impostor, sessionKey: "a-guessed-session-key-0123456789abcdef" }),
        claimBody(impostor, { leaseToken: `clh_${"A".repeat(43)}` }),
      ]) {
        nockSubjectStatus(github, heldByA());
        const refused = await post("/api/v1/claims", body, agentToken);
        expect(refused.status).toBe(409);
        expect(refused.body).toEqual({
          error: "held",
          message: "octo/widgets#12 is held by another session.",
          holder: { kind: "agent", login: agent.login, ...actorA },
          generation: 1,
          state: "active",
          lastHeartbeatAt: new Date(app.clock.now).toISOString(),
          reclaimableAt: new Date(app.clock.now + reclaimAfterMs).toISOString(),
        });
      }
      expect((await beat(lease.id, lease.token)).status).toBe(200);
    });

    it("keeps the old token when the re-claim's GitHub write fails (502); the new one never becomes valid", async () => {
      const { lease } = await claimAsA({ actor: keyedA });
      nockSubjectStatus(github, heldByA());
      nockApplyTransition(github, { fail: 502 });
      const failed = await post("/api/v1/claims", claimBody(keyedA), agentToken);
      expect(failed.status).toBe(502);
      expect(failed.body).toEqual({ error: "github_failed", message: expect.any(String) });
      const record = await stores.claims.get(subjectKey);
      expect(record).toMatchObject({ generation: 1, tokenDigest: digestOf(lease.token) });
      // The undelivered token is known only as the pending digest, and it opens nothing.
      const undelivered = record!.pendingTokenDigest!;
      expect(undelivered).not.toBe(digestOf(lease.token));
      const probe = { key: subjectKey, generation: 1, tokenDigest: undelivered, now: app.clock.now };
      expect(await stores.claims.verify(probe)).toEqual({ kind: "invalid_token" });
      expect((await beat(lease.id, lease.token)).status).toBe(200);

      // Retrying is safe: the session key still proves the session.
      nockSubjectStatus(github, heldByA());
      nockApplyTransition(github);
      const retried = await post("/api/v1/claims", claimBody(keyedA), agentToken);
      expect(retried.status).toBe(200);
      expect(await stores.claims.verify(probe)).toEqual({ kind: "invalid_token" });
      expect((await beat(lease.id, retried.body.lease.token)).status).toBe(200);
    });

    it("refuses a session key outside 32–256 characters and a malformed lease token with 422, naming the field", async () => {
      for (const [body, field] of [
        [claimBody({ ...actorA, sessionKey: "short" }), "actor.sessionKey"],
        [claimBody({ ...actorA, sessionKey: "k".repeat(257) }), "actor.sessionKey"],
        [claimBody(actorA, { leaseToken: "ghp_notalease" }), "leaseToken"],
      ] as const) {
        const refused = await post("/api/v1/claims", body, agentToken);
        expect(refused.status).toBe(422);
        expect(refused.body).toMatchObject({ error: "invalid_request", field });
        expect(JSON.stringify(refused.body)).not.toContain("k".repeat(40));
      }
    });
  });

  it("answers 409 held to another session while the holder is live, with no GitHub write", async () => {
    await claimAsA();
    nockSubjectStatus(github, {
      ...issue,
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
    });
    const response = await post("/api/v1/claims", claimBody(actorB), agentToken);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      error: "held",
      holder: { kind: "agent", login: agent.login, ...actorA },
      generation: 1,
      state: "active",
      lastHeartbeatAt: new Date(app.clock.now).toISOString(),
      reclaimableAt: new Date(app.clock.now + reclaimAfterMs).toISOString(),
    });
  });

  it("refuses a subject assigned to someone the App did not assign: 409 human_held, nothing written", async () => {
    mockColdAuth();
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, { ...issue, assignees: [{ login: "alice", id: "U_alice" }] });
    const response = await post("/api/v1/claims", claimBody(), agentToken);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ error: "human_held", assignees: ["alice"] });
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toBeNull();
  });

  it("claims a subject already assigned to the claimant's own login without taking that assignment over", async () => {
    mockColdAuth();
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, { ...issue, assignees: [{ login: agent.login, id: agent.node_id }] });
    const write = nockApplyTransition(github, { claimComment: { id: "IC_a", databaseId: 9001 } });
    const response = await post("/api/v1/claims", claimBody(), agentToken);
    expect(response.status).toBe(201);
    expect(write.variables).not.toHaveProperty("assign");
    expect((await stores.claims.get({ installationId, repoId, issue: 12 }))?.appAssigned).toBe(false);
    const release = nockApplyTransition(github);
    const released = await post(
      `/api/v1/leases/${response.body.lease.id}/release`,
      { outcome: "completed" },
      response.body.lease.token,
    );
    expect(released.status).toBe(200);
    expect(release.variables).not.toHaveProperty("unassign");
  });

  it("answers 409 closed for a closed issue and 404 not_found for a pull request number", async () => {
    mockColdAuth();
    nockSubjectStatus(github, { ...issue, state: "CLOSED" });
    expect((await post("/api/v1/claims", claimBody(), agentToken)).body.error).toBe("closed");
    nockSubjectStatus(github, { ...issue, pullRequest: true });
    const pr = await post("/api/v1/claims", claimBody(), agentToken);
    expect(pr.status).toBe(404);
    expect(pr.body.error).toBe("not_found");
  });

  it("answers 401 for a token GitHub rejects, 403 without write, 404 not_installed", async () => {
    nockGetUser(github, "ghp_bad", null);
    expect((await post("/api/v1/claims", claimBody(), "ghp_bad")).status).toBe(401);

    mockColdAuth("read");
    const forbidden = await post("/api/v1/claims", claimBody(), agentToken);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: "forbidden", permission: "read" });

    nockGetRepoInstallation(github, "octo/elsewhere", null);
    const missing = await post("/api/v1/claims", { ...claimBody(), repo: "octo/elsewhere" }, agentToken);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("not_installed");
  });

  it("rolls the store back and answers 502 when GitHub refuses the mutation; the generation is never reused", async () => {
    mockColdAuth();
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issue);
    nockApplyTransition(github, { fail: 502 });
    // The answer was lost: one read tells the claim did not land, then what may have landed is undone.
    nockSubjectStatus(github, { ...issue, assignees: [{ login: agent.login, id: agent.node_id }] });
    const undo = nockApplyTransition(github);
    const failed = await post("/api/v1/claims", claimBody(), agentToken);
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe("github_failed");
    // A 502 is no refusal (the mutation may still land): the generation stays, ended, its write
    // pending, so the reconcile takes off whatever lands late.
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toMatchObject({
      generation: 1,
      state: "revoked",
      sync: "pending",
    });
    expect(undo.variables).toEqual({
      unassign: { assignableId: issueNodeId(issue), assigneeIds: [agent.node_id] },
      removeLabels: { labelableId: issueNodeId(issue), labelIds: [labelIds["agent:claimed"]] },
    });

    nockSubjectStatus(github, issue);
    nockApplyTransition(github, { claimComment: { id: "IC_a", databaseId: 9001 } });
    const retried = await post("/api/v1/claims", claimBody(), agentToken);
    expect(retried.status).toBe(201);
    expect(retried.body.lease.generation).toBe(2);
  });

  it("answers 502 github_failed when GitHub fails the read, with nothing kept", async () => {
    mockColdAuth();
    nock("https://api.github.com").post("/graphql").reply(500, { message: "Server Error" });
    const failed = await post("/api/v1/claims", claimBody(), agentToken);
    expect(failed).toMatchObject({ status: 502, body: { error: "github_failed" } });
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toBeNull();
  });

  it("keeps a claim whose mutation landed although GitHub's answer was lost", async () => {
    mockColdAuth();
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, issue);
    const lost = nockApplyTransition(github, { fail: 504 });
    const readBack: IssueState = { ...issue };
    // The read-back shows the claim comment the "lost" mutation created.
    nockSubjectStatus(github, readBack, async () => {
      const body = (lost.variables!.claimComment as { body: string }).body;
      readBack.comments = [{ id: "IC_lost", databaseId: 4242, body, viewerDidAuthor: true }];
    });
    const response = await post("/api/v1/claims", claimBody(), agentToken);
    expect(response.status).toBe(201);
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toMatchObject({
      sync: "done",
      commentNodeId: "IC_lost",
      commentId: 4242,
    });
  });

  it("enforces claimsPerSession inside the claim: 409 cap_reached", async () => {
    await claimAsA();
    nockSubjectStatus(github, { ...issue, number: 13 });
    const response = await post("/api/v1/claims", { ...claimBody(), issue: 13 }, agentToken);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ error: "cap_reached", limit: "session", max: 1 });
  });

  it("restores generations from the claim comments when the store has no record", async () => {
    mockColdAuth();
    nockNoConfigFile(github, repo);
    const released = markerComment({
      subject: "octo/widgets#12",
      generation: 7,
      state: "released",
      actor: { kind: "agent", login: agent.login, ...actorB },
      taskClass: "author",
      claimedAt: "2026-11-28T10:00:00.000Z",
      ttlSeconds: 1800,
    });
    nockSubjectStatus(github, { ...issue, comments: [released] });
    nockApplyTransition(github, { claimComment: { id: "IC_a", databaseId: 9001 } });
    const response = await post("/api/v1/claims", claimBody(), agentToken);
    expect(response.status).toBe(201);
    expect(response.body.lease.generation).toBe(8);
  });
});

describe("takeover", () => {
  it("records an intent, lets a heartbeating incumbent win, then supersedes after the grace beat", async () => {
    const { lease: a, write: claimWrite } = await claimAsA();
    const claimComment = (claimWrite.variables!.claimComment as { body: string }).body;
    const heldIssue = {
      ...issue,
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
      comments: [{ id: "IC_a", databaseId: 9001, body: claimComment, viewerDidAuthor: true }],
    };
    app.clock.now += ttlMs;
    mockExpiredAuthCaches();
    nockNoConfigFile(github, repo);

    nockSubjectStatus(github, heldIssue);
    const pending = await post("/api/v1/claims", claimBody(actorB, { takeover: true }), agentToken);
    expect(pending.status).toBe(202);
    expect(pending.body).toEqual({
      status: "takeover_pending",
      retryAfterSeconds: heartbeatMs / 1000,
      incumbent: { kind: "agent", login: agent.login, ...actorA },
    });

    expect((await post(`/api/v1/leases/${a.id}/heartbeat`, {}, a.token)).status).toBe(200);
    app.clock.now += heartbeatMs;
    mockExpiredAuthCaches();
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, heldIssue);
    expect((await post("/api/v1/claims", claimBody(actorB, { takeover: true }), agentToken)).status).toBe(
      409,
    );

    app.clock.now += ttlMs;
    mockExpiredAuthCaches();
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, heldIssue);
    expect((await post("/api/v1/claims", claimBody(actorB, { takeover: true }), agentToken)).status).toBe(
      202,
    );
    app.clock.now += heartbeatMs;
    mockExpiredAuthCaches();
    nockNoConfigFile(github, repo);
    nockSubjectStatus(github, heldIssue);
    const write = nockApplyTransition(github, { claimComment: { id: "IC_b", databaseId: 9002 } });
    const taken = await post("/api/v1/claims", claimBody(actorB, { takeover: true }), agentToken);
    expect(taken.status).toBe(201);
    expect(taken.body.lease.generation).toBe(2);
    expect(taken.body.lease.branch).toBe(a.branch);
    expect(taken.body.resume).toEqual({
      previousActor: { kind: "agent", login: agent.login, ...actorA },
      previousGeneration: 1,
      branch: a.branch,
      lastHeartbeatAt: new Date(app.clock.now - heartbeatMs - ttlMs - heartbeatMs).toISOString(),
      linkedPullRequests: [],
    });
    // The successor's full desired state (invariant 13): its assignment and the label, sent again.
    expect(Object.keys(write.variables!).sort()).toEqual([
      "addLabels",
      "assign",
      "claimComment",
      "comment0",
      "edit0",
    ]);
    expect((write.variables!.edit0 as { id: string }).id).toBe("IC_a");
    expect(parseClaimMarker((write.variables!.edit0 as { body: string }).body)).toMatchObject({
      marker: { generation: 1, state: "superseded" },
    });

    for (const call of [
      post(`/api/v1/leases/${a.id}/heartbeat`, {}, a.token),
      post(`/api/v1/leases/${a.id}/release`, { outcome: "handoff" }, a.token),
      get(`/api/v1/leases/${a.id}`, a.token),
    ]) {
      const refused = await call;
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: "superseded", generation: 2, by: { sessionId: "sessB" } });
    }
  });
});

describe("lease routes", () => {
  it("heartbeats with zero GitHub requests and one store call, and verifies the hold", async () => {
    const { lease } = await claimAsA();
    const mark = github.count();
    app.clock.now += 60_000;
    const beat = await post(`/api/v1/leases/${lease.id}/heartbeat`, {}, lease.token);
    expect(beat).toMatchObject({
      status: 200,
      body: { generation: 1, state: "active", expiresAt: new Date(app.clock.now + ttlMs).toISOString() },
    });
    const again = await post(`/api/v1/leases/${lease.id}/heartbeat`, {}, lease.token);
    expect(again.body).toEqual(beat.body);
    const verify = await get(`/api/v1/leases/${lease.id}`, lease.token);
    expect(verify).toEqual({
      status: 200,
      body: { holder: true, generation: 1, state: "active", expiresAt: beat.body.expiresAt },
    });
    expect(github.count()).toBe(mark);
  });

  it("edits the claim comment on a phase change at most once a minute", async () => {
    const { lease } = await claimAsA();
    const edit = nockApplyTransition(github);
    const mark = github.count();
    expect(
      (await post(`/api/v1/leases/${lease.id}/heartbeat`, { phase: "testing" }, lease.token)).status,
    ).toBe(200);
    expect(github.count() - mark).toBe(1);
    expect((edit.variables!.edit0 as { body: string }).body).toContain("Phase: testing");
    await post(`/api/v1/leases/${lease.id}/heartbeat`, { phase: "reviewing" }, lease.token);
    expect(github.count() - mark).toBe(1);
  });

  it("answers 410 expired to a heartbeat after reclaimAfter and does not renew", async () => {
    const { lease } = await claimAsA();
    app.clock.now += reclaimAfterMs;
    const beat = await post(`/api/v1/leases/${lease.id}/heartbeat`, {}, lease.token);
    expect(beat).toMatchObject({ status: 410, body: { error: "gone", reason: "expired" } });
    expect((await stores.claims.get({ installationId, repoId, issue: 12 }))?.lastHeartbeatAt).toBe(
      app.clock.now - reclaimAfterMs,
    );
  });

  it("releases with one batched mutation: unassign, labels off, comment final, handoff note; idempotent", async () => {
    const { lease } = await claimAsA();
    const write = nockApplyTransition(github);
    const mark = github.count();
    const released = await post(
      `/api/v1/leases/${lease.id}/release`,
      { outcome: "handoff", note: "parser done, docs left" },
      lease.token,
    );
    expect(released).toMatchObject({
      status: 200,
      body: { released: true, outcome: "handoff", generation: 1 },
    });
    expect(github.count() - mark).toBe(1);
    const subject = issueNodeId(issue);
    const record = await stores.claims.get({ installationId, repoId, issue: 12 });
    expect(write.variables).toEqual({
      unassign: { assignableId: subject, assigneeIds: [agent.node_id] },
      removeLabels: { labelableId: subject, labelIds: [labelIds["agent:claimed"], labelIds["agent:stale"]] },
      edit0: { id: "IC_a", body: signedClaimComment({ ...record!, sync: "pending" }, "released") },
      comment0: {
        subjectId: subject,
        body:
          "📝 claude-code session sessA on build-7 released generation 1 (handoff) · branch " +
          "`agent/sessA/12-fix-the-parser`\n\n> parser done, docs left",
      },
    });
    const repeat = await post(`/api/v1/leases/${lease.id}/release`, { outcome: "handoff" }, lease.token);
    expect(repeat.status).toBe(200);
    expect(github.count() - mark).toBe(1);
    const beat = await post(`/api/v1/leases/${lease.id}/heartbeat`, {}, lease.token);
    expect(beat).toMatchObject({ status: 410, body: { error: "gone", reason: "released" } });
  });

  it("answers 404 for a malformed lease id and 401 for a garbage token", async () => {
    const { lease } = await claimAsA();
    expect((await post("/api/v1/leases/nope/heartbeat", {}, lease.token)).status).toBe(404);
    expect((await post(`/api/v1/leases/${lease.id}/heartbeat`, {}, `clh_${"x".repeat(43)}`)).status).toBe(
      401,
    );
    expect((await post(`/api/v1/leases/${lease.id}/heartbeat`, {}, agentToken)).status).toBe(401);
  });
});

describe("store loss", () => {
  const tokenA = `clh_${"A".repeat(43)}`;
  const marker = (generation: number, state: string, actor: Record<string, unknown>, token?: string) =>
    markerComment(
      {
        subject: "octo/widgets#12",
        generation,
        state: state as "active",
        actor: { kind: "agent", login: agent.login, ...actor } as never,
        taskClass: "author",
        branch: "agent/sessA/12-fix-the-parser",
        claimedAt: "2026-11-29T09:00:00.000Z",
        ttlSeconds: 1800,
        reclaimAfterSeconds: 3600,
        heartbeatSeconds: 300,
        appAssigned: true,
        ...(token ? { tokenDigest: digestOf(token) } : {}),
      },
      `IC_${generation}`,
      generation,
    );

  it("restores a live lease from its claim comment when the store lost it: the heartbeat answers 200", async () => {
    nockGetRepository(github, repoId, repo);
    nockCreateInstallationToken(github);
    // A live claim: GitHub shows the App-made assignment its comment names, and the claimed label.
    nockSubjectStatus(github, {
      ...issue,
      labels: ["agent:claimed"],
      assignees: [{ login: agent.login, id: agent.node_id }],
      comments: [marker(1, "active", actorA, tokenA)],
    });
    const beat = await post(`/api/v1/leases/${installationId}.${repoId}.12.1/heartbeat`, {}, tokenA);
    expect(beat).toMatchObject({ status: 200, body: { generation: 1, state: "active" } });
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toMatchObject({
      generation: 1,
      state: "active",
    });
  });

  it("never revives a superseded lease: a newer incarnation in the comments answers, whatever its state", async () => {
    nockGetRepository(github, repoId, repo);
    nockCreateInstallationToken(github);
    nockSubjectStatus(github, {
      ...issue,
      comments: [
        marker(1, "superseded", actorA, tokenA),
        marker(2, "released", actorB, `clh_${"B".repeat(43)}`),
      ],
    });
    const beat = await post(`/api/v1/leases/${installationId}.${repoId}.12.1/heartbeat`, {}, tokenA);
    expect(beat).toMatchObject({ status: 410, body: { error: "gone", reason: "released" } });
    const verify = await get(`/api/v1/leases/${installationId}.${repoId}.12.1`, tokenA);
    expect(verify.status).toBe(410);
  });

  it("asks GitHub at most once for a lease id it cannot recover, and never for a subject the store knows", async () => {
    nockGetRepository(github, repoId, repo);
    nockCreateInstallationToken(github);
    nockSubjectStatus(github, issue);
    for (let i = 0; i < 3; i++) {
      expect(
        (await post(`/api/v1/leases/${installationId}.${repoId}.12.5/heartbeat`, {}, tokenA)).status,
      ).toBe(404);
    }
    expect(github.count()).toBe(3);
  });
});

describe("bad input changes nothing", () => {
  const big = "x".repeat(100 * 1024);
  const cases: {
    name: string;
    body: string | Record<string, unknown>;
    status: number;
    error: string;
    field?: string;
  }[] = [
    { name: "malformed JSON", body: '{"repo":', status: 400, error: "invalid_json" },
    {
      name: "wrong type",
      body: { ...claimBody(), issue: "12" },
      status: 422,
      error: "invalid_request",
      field: "issue",
    },
    {
      name: "unknown field",
      body: { ...claimBody(), priority: 1 },
      status: 422,
      error: "invalid_request",
      field: "priority",
    },
    {
      name: "unknown actor field",
      body: { ...claimBody(), actor: { ...actorA, admin: true } },
      status: 422,
      error: "invalid_request",
      field: "actor.admin",
    },
    {
      name: "100 KiB body",
      body: { ...claimBody(), artifacts: big },
      status: 413,
      error: "payload_too_large",
    },
    {
      name: "path trick repo",
      body: { ...claimBody(), repo: "../etc/passwd" },
      status: 422,
      error: "invalid_request",
    },
    { name: "dot repo", body: { ...claimBody(), repo: "octo/.." }, status: 422, error: "invalid_request" },
    { name: "negative issue", body: { ...claimBody(), issue: -1 }, status: 422, error: "invalid_request" },
    { name: "huge issue", body: { ...claimBody(), issue: 2 ** 53 }, status: 422, error: "invalid_request" },
    {
      name: "bad task class",
      body: { ...claimBody(), taskClass: "boss" },
      status: 422,
      error: "invalid_request",
    },
    {
      name: "bad branch",
      body: { ...claimBody(), branch: "agent/../../x" },
      status: 422,
      error: "invalid_request",
      field: "branch",
    },
  ];
  it.each(cases)("$name → $status $error", async ({ body, status, error, field }) => {
    const response = await post("/api/v1/claims", body, agentToken);
    expect(response.status).toBe(status);
    expect(response.body.error).toBe(error);
    expect(typeof response.body.message).toBe("string");
    if (field) expect(response.body.field).toBe(field);
    expect(github.count()).toBe(0);
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toBeNull();
  });

  it("rejects a non-JSON content type with 415 and lease bodies with unknown fields with 422", async () => {
    const text = await post("/api/v1/claims", "repo=octo/widgets", agentToken, {
      "content-type": "text/plain",
    });
    expect(text.status).toBe(415);
    const { lease } = await claimAsA();
    const before = await stores.claims.get({ installationId, repoId, issue: 12 });
    const beat = await post(
      `/api/v1/leases/${lease.id}/heartbeat`,
      { phase: "x", generation: 9 },
      lease.token,
    );
    expect(beat).toMatchObject({ status: 422, body: { error: "invalid_request", field: "generation" } });
    const release = await post(`/api/v1/leases/${lease.id}/release`, { outcome: "done" }, lease.token);
    expect(release).toMatchObject({ status: 422, body: { field: "outcome" } });
    expect(await stores.claims.get({ installationId, repoId, issue: 12 })).toEqual(before);
  });

  it("rate limits failed authentications per address with 429 and Retry-After", async () => {
    const lease = `${installationId}.${repoId}.12.1`;
    for (let i = 0; i < 20; i++) {
      expect((await post(`/api/v1/leases/${lease}/heartbeat`, {}, "nope")).status).toBe(401);
    }
    const limited = await post(`/api/v1/leases/${lease}/heartbeat`, {}, `clh_${"x".repeat(43)}`);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("secrets", () => {
  it("never puts a lease token or GitHub token in logs, comments or error bodies", async () => {
    const { lease, write } = await claimAsA();
    const bodies: string[] = [JSON.stringify(write.variables)];
    bodies.push(
      JSON.stringify((await post(`/api/v1/leases/${lease.id}/heartbeat`, { bad: 1 }, lease.token)).body),
    );
    nockSubjectStatus(github, { ...issue, assignees: [{ login: agent.login, id: agent.node_id }] });
    bodies.push(JSON.stringify((await post("/api/v1/claims", claimBody(actorB), agentToken)).body));
    nockGetUser(github, "ghp_wrongtoken0000000000000000000000000", null);
    bodies.push(
      JSON.stringify(
        (await post("/api/v1/claims", claimBody(), "ghp_wrongtoken0000000000000000000000000")).body,
      ),
    );
    const everything = [...app.logs, ...bodies].join("\n");
    expect(app.logs.some((line) => line.includes("POST /api/v1/claims"))).toBe(true);
    for (const secret of [
      lease.token,
      agentToken,
      "ghp_wrongtoken0000000000000000000000000",
      installationToken,
    ]) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe("health", () => {
  it("answers /healthz and /readyz", async () => {
    expect(await get("/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await get("/readyz")).toEqual({
      status: 200,
      body: { status: "ready", checks: { store: "ok", credentials: "ok", janitor: "ok" } },
    });
  });
});
