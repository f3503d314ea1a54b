// The merge fence end to end through the App's HTTP server: attestations, the claim-hold check run, /reclaim.
import type { Redis } from "ioredis";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SubjectKey } from "../src/domain/claim.js";
import type { FenceStore } from "../src/providers/fence-store.js";
import { MemoryFenceStore } from "../src/providers/memory/memory-fence-store.js";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import { RedisFenceStore } from "../src/providers/redis/redis-fence-store.js";
import { createRedisStores } from "../src/providers/redis/redis-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, signedClaimComment, startApp } from "./support/app-harness.js";
import { loadFixture } from "./support/fixtures.js";
import {
  agent,
  agentToken,
  expectRequests,
  FakeCheckRuns,
  GitHubRequestLog,
  type IssueState,
  issueNodeId,
  labelIds,
  nockAddReaction,
  nockApplyTransition,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetConfigFile,
  nockGetRepoInstallation,
  nockGetUser,
  nockSubjectStatus,
  summaryOf,
  testAppId,
} from "./support/github-fake/index.js";
import { createTestRedis, deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "./support/redis.js";

const redisProbe = await probeRedis();

// The fixtures' world: installation 957387 on Codertocat/Hello-World.
const installationId = 957387;
const repo = "Codertocat/Hello-World";
const repoId = 186853002;
const publicUrl = "https://claim-hold.example.com";
const branch = "agent/A/7-x";
const sha1 = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
const sha2 = "9f1c2a7e0b3d4c5e6f708192a3b4c5d6e7f80912";
const sha3 = "3333333333333333333333333333333333333333";
const issue7: IssueState = { repo, repoId, number: 7, title: "Fix x" };
const key: SubjectKey = { installationId, repoId, issue: 7 };
const human = { login: "Codertocat", nodeId: "MDQ6VXNlcjIxMDMxMDY3" };
const actorA = { runtime: "claude-code", sessionId: "A", host: "build-7" };
const actorB = { runtime: "codex", sessionId: "B", host: "build-8" };
const holderA = "claude-code session A on build-7 (@fleet-bot)";
const holderB = "codex session B on build-8 (@fleet-bot)";
const subject7 = `${repo}#7`;
const detailsUrl = `${publicUrl}/api/v1/repos/${repo}/issues/7/claim`;
const shortDurations = "taskClasses:\n  author: { ttl: 30s, reclaimAfter: 60s, heartbeat: 10s }\n";

let app: AppHarness;
let github: GitHubRequestLog;
let checks: FakeCheckRuns;

async function call(method: "GET" | "POST", path: string, token: string, body?: unknown) {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const answer = { status: response.status, body: (await response.json()) as Record<string, any> };
  // The fence's re-check of linked PRs runs after a claim's answer.
  await app.settled();
  return answer;
}

function prPayload(action: "opened" | "synchronize", headSha: string, extra: { login?: string } = {}) {
  const payload =
    action === "opened"
      ? loadFixture("pull_request.opened-from-agent-branch-closing-issue")
      : loadFixture("pull_request.synchronize");
  payload.pull_request.body = "Closes #7\n\nWork of claude-code session A.";
  payload.pull_request.head.ref = branch;
  payload.pull_request.head.sha = headSha;
  payload.pull_request.user!.login = extra.login ?? agent.login;
  return payload;
}

async function deliver(event: string, payload: unknown, deliveryId?: string) {
  const response = await app.deliver(event, payload, deliveryId);
  if (response.status !== 200) {
    const errors = app.logs.filter((line) => /"level":(50|40)/.test(line));
    expect.fail(`webhook answered ${response.status}: ${errors.join("\n").slice(0, 3000)}`);
  }
}

function afterEachCheckNock() {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
}

describe.skipIf(!redisProbe.available)("the zombie scenario (real Redis stores)", () => {
  let redis: Redis;
  let prefix: string;
  let stores: Stores;
  let fences: FenceStore;

  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  });
  beforeEach(async () => {
    prefix = uniqueKeyPrefix("zombie");
    stores = createRedisStores({ redis, keyPrefix: prefix });
    fences = new RedisFenceStore({ redis, keyPrefix: prefix });
    github = new GitHubRequestLog();
    checks = new FakeCheckRuns(github, repo, { repoId, pull: 2 });
    // The PR's body says "Closes #7": GitHub links #7 as its closing reference.
    checks.link(2, [7]);
    app = await startApp({ stores, fences, appId: testAppId, publicUrl });
  });
  afterEach(async () => {
    await app.close();
    afterEachCheckNock();
  });

  it("fences a superseded session out of the merge, step by step, and lets /reclaim fence out the successor", async () => {
    // 1. Session A claims #7 on branch agent/A/7-x (cold caches: token, user, installation, permission, config).
    nockCreateInstallationToken(github, installationId);
    nockGetUser(github, agentToken, agent);
    nockGetRepoInstallation(github, repo, installationId);
    nockGetCollaboratorPermission(github, repo, agent.login, "write");
    nockGetConfigFile(github, repo, shortDurations);
    nockSubjectStatus(github, issue7);
    const claimA = nockApplyTransition(github, { claimComment: { id: "IC_a", databaseId: 9001 } });
    const a = await call("POST", "/api/v1/claims", agentToken, {
      repo,
      issue: 7,
      actor: actorA,
      taskClass: "author",
      branch,
    });
    expect(a.status).toBe(201);
    const leaseA = a.body.lease;
    expect(leaseA).toMatchObject({ generation: 1, branch, ttlSeconds: 30 });

    // 2. A opens PR #2 from its branch, closing #7: the head is not attested yet.
    let mark = github.count();
    checks.expectEvaluation(sha1, {
      conclusion: "failure",
      title: "Not attested by the current holder",
      summary: summaryOf([[subject7, holderA, "1", "active", "—"]]),
      text: ["is not attested by generation 1", `claim-hold attest ${sha1}`],
      detailsUrl,
    });
    await deliver("pull_request", prPayload("opened", sha1));
    expectRequests(github, mark, ["POST /graphql", "POST /repos/Codertocat/Hello-World/check-runs"]);
    expect(checks.conclusionOf(sha1)).toBe("failure");

    // 3. A attests its head: success.
    mark = github.count();
    checks.expectEvaluation(sha1, {
      conclusion: "success",
      title: "Attested by the current holder",
      summary: summaryOf([[subject7, holderA, "1", "active", "generation 1 (current)"]]),
      text: ["is attested by generation 1"],
      detailsUrl,
    });
    const attested = await call("POST", `/api/v1/leases/${leaseA.id}/attest`, leaseA.token, { sha: sha1 });
    expect(attested).toEqual({ status: 200, body: { attested: true, sha: sha1, generation: 1 } });
    expectRequests(github, mark, ["POST /graphql", "PATCH /repos/Codertocat/Hello-World/check-runs/1"]);
    expect(checks.conclusionOf(sha1)).toBe("success");

    // 3b. A re-run with nothing changed: one read, no write.
    mark = github.count();
    checks.nockPullRequestCheck(sha1);
    const rerun = loadFixture("check_run.rerequested");
    await deliver("check_run", rerun);
    expectRequests(github, mark, ["POST /graphql"]);

    // 4. A stops heartbeating. After the ttl, B asks to take over: 202, then 201 on A's branch.
    const heldByA: IssueState = {
      ...issue7,
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
      comments: [
        {
          id: "IC_a",
          databaseId: 9001,
          body: (claimA.variables!.claimComment as { body: string }).body,
          viewerDidAuthor: true,
        },
      ],
    };
    app.clock.now += 30_000;
    nockSubjectStatus(github, heldByA);
    const pending = await call("POST", "/api/v1/claims", agentToken, {
      repo,
      issue: 7,
      actor: actorB,
      takeover: true,
    });
    expect(pending.status).toBe(202);
    expect(pending.body.retryAfterSeconds).toBe(10);

    app.clock.now += 10_000;
    mark = github.count();
    nockSubjectStatus(github, heldByA);
    const claimB = nockApplyTransition(github, { claimComment: { id: "IC_b", databaseId: 9002 } });
    // The PR's check flips to failure without any push.
    checks.expectEvaluation(sha1, {
      conclusion: "failure",
      title: "Superseded holder",
      summary: summaryOf([[subject7, holderB, "2", "active", "generation 1"]]),
      text: [`generation 1 (${holderA}) was superseded by ${holderB} (generation 2)`],
      detailsUrl,
    });
    const b = await call("POST", "/api/v1/claims", agentToken, {
      repo,
      issue: 7,
      actor: actorB,
      takeover: true,
    });
    expect(b.status).toBe(201);
    expect(b.body.resume).toMatchObject({ previousGeneration: 1, branch });
    const leaseB = b.body.lease;
    expect(leaseB.generation).toBe(2);
    expectRequests(github, mark, [
      "POST /graphql",
      "POST /graphql",
      "POST /graphql",
      "PATCH /repos/Codertocat/Hello-World/check-runs/1",
    ]);
    expect(checks.conclusionOf(sha1)).toBe("failure");

    // 5. The zombie wakes up: every lease call of A is refused, and its attestation is not recorded.
    mark = github.count();
    for (const refused of [
      await call("POST", `/api/v1/leases/${leaseA.id}/heartbeat`, leaseA.token, {}),
      await call("POST", `/api/v1/leases/${leaseA.id}/release`, leaseA.token, { outcome: "handoff" }),
      await call("POST", `/api/v1/leases/${leaseA.id}/attest`, leaseA.token, { sha: sha2 }),
      await call("GET", `/api/v1/leases/${leaseA.id}`, leaseA.token),
    ]) {
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: "superseded", generation: 2, by: { sessionId: "B" } });
    }
    expect((await fences.evidence(key, sha2, app.clock.now)).attestedGenerations).toEqual([]);
    expectRequests(github, mark, []);

    // 6. A pushes anyway: the new head is not attested by the current holder.
    mark = github.count();
    checks.expectEvaluation(sha2, {
      conclusion: "failure",
      title: "Not attested by the current holder",
      summary: summaryOf([[subject7, holderB, "2", "active", "—"]]),
      text: ["is not attested by generation 2"],
      detailsUrl,
    });
    await deliver("pull_request", prPayload("synchronize", sha2));
    expectRequests(github, mark, ["POST /graphql", `POST /repos/${repo}/check-runs`]);
    expect(checks.conclusionOf(sha2)).toBe("failure");

    // 7. B pushes to the same branch: failure until B attests, then success.
    checks.expectEvaluation(sha3, {
      conclusion: "failure",
      title: "Not attested by the current holder",
      summary: summaryOf([[subject7, holderB, "2", "active", "—"]]),
      text: ["is not attested by generation 2"],
      detailsUrl,
    });
    await deliver("pull_request", prPayload("synchronize", sha3));
    expect(checks.conclusionOf(sha3)).toBe("failure");
    mark = github.count();
    checks.expectEvaluation(sha3, {
      conclusion: "success",
      title: "Attested by the current holder",
      summary: summaryOf([[subject7, holderB, "2", "active", "generation 2 (current)"]]),
      text: ["is attested by generation 2"],
      detailsUrl,
    });
    const attestedB = await call("POST", `/api/v1/leases/${leaseB.id}/attest`, leaseB.token, { sha: sha3 });
    expect(attestedB).toEqual({ status: 200, body: { attested: true, sha: sha3, generation: 2 } });
    expectRequests(github, mark, ["POST /graphql", `PATCH /repos/${repo}/check-runs/3`]);
    expect(checks.conclusionOf(sha3)).toBe("success");

    // 8. A maintainer comments /reclaim: B is superseded by a human claim, the PR fails again.
    const recordB = (await stores.claims.get(key))!;
    const heldByB: IssueState = {
      ...heldByA,
      comments: [
        ...heldByA.comments!,
        {
          id: "IC_b",
          databaseId: 9002,
          body: (claimB.variables!.claimComment as { body: string }).body,
          viewerDidAuthor: true,
        },
      ],
    };
    const comment = loadFixture("issue_comment.created-reclaim");
    comment.issue.number = 7;
    mark = github.count();
    nockAddReaction(github, repo, comment.comment.id);
    nockGetCollaboratorPermission(github, repo, human.login, "admin");
    nockSubjectStatus(github, heldByB);
    checks.expectEvaluation(sha3, {
      conclusion: "failure",
      title: "Superseded holder",
      summary: summaryOf([[subject7, "@Codertocat", "3", "human", "generation 2"]]),
      text: [`generation 2 (${holderB}) was superseded by @Codertocat (generation 3)`],
      detailsUrl,
    });
    const reclaimWrite = nockApplyTransition(github, {
      claimComment: { id: "IC_h", databaseId: 9003 },
    });
    await deliver("issue_comment", comment, "delivery-reclaim-1");
    expectRequests(github, mark, [
      `POST /repos/${repo}/issues/comments/${comment.comment.id}/reactions`,
      `GET /repos/${repo}/collaborators/${human.login}/permission`,
      "POST /graphql",
      "POST /graphql",
      `PATCH /repos/${repo}/check-runs/3`,
      "POST /graphql",
    ]);
    const humanRecord = (await stores.claims.get(key))!;
    expect(humanRecord).toMatchObject({
      generation: 3,
      state: "human",
      actor: { kind: "human", login: human.login },
    });
    const subjectId = issueNodeId(issue7);
    expect(reclaimWrite.variables).toEqual({
      unassign: { assignableId: subjectId, assigneeIds: [agent.node_id] },
      removeLabels: { labelableId: subjectId, labelIds: [labelIds["agent:claimed"]] },
      assign: { assignableId: subjectId, assigneeIds: [human.nodeId] },
      edit0: { id: "IC_b", body: signedClaimComment(recordB, "superseded") },
      claimComment: { subjectId, body: signedClaimComment(humanRecord, "active") },
      comment0: {
        subjectId,
        body: [
          "🔁 @Codertocat reclaimed this issue (generation 3) and is now assigned.",
          "codex session B on build-8 lost the claim (generation 2).",
          "Pull request checks that changed: #2 success → failure.",
        ].join("\n"),
      },
    });
    expect(humanRecord.commentNodeId).toBe("IC_h");
    expect(checks.conclusionOf(sha3)).toBe("failure");

    // B's next heartbeat learns it lost the subject.
    const beat = await call("POST", `/api/v1/leases/${leaseB.id}/heartbeat`, leaseB.token, {});
    expect(beat.status).toBe(409);
    expect(beat.body).toMatchObject({
      error: "superseded",
      generation: 3,
      by: { kind: "human", login: human.login },
    });

    // 9. Redelivery, under the same or a new delivery id, does nothing a second time.
    mark = github.count();
    await deliver("issue_comment", comment, "delivery-reclaim-1");
    await deliver("issue_comment", comment, "delivery-reclaim-2");
    expectRequests(github, mark, []);
    expect((await stores.claims.get(key))?.generation).toBe(3);
  });

  it("stops counting an attestation once a re-claim rotated out the token that made it (invariant 14)", async () => {
    const keyedA = { ...actorA, sessionKey: "sk_A-7a0e4c91d2b35f68e1c0a9b8d7f6e5c4" };
    nockCreateInstallationToken(github, installationId);
    nockGetUser(github, agentToken, agent);
    nockGetRepoInstallation(github, repo, installationId);
    nockGetCollaboratorPermission(github, repo, agent.login, "write");
    nockGetConfigFile(github, repo, shortDurations);
    nockSubjectStatus(github, issue7);
    const claimA = nockApplyTransition(github, { claimComment: { id: "IC_a", databaseId: 9001 } });
    const claimBody = { repo, issue: 7, actor: keyedA, taskClass: "author", branch };
    const a = await call("POST", "/api/v1/claims", agentToken, claimBody);
    expect(a.status).toBe(201);
    const oldLease = a.body.lease;
    checks.expectEvaluation(sha1, {
      conclusion: "failure",
      title: "Not attested by the current holder",
      summary: summaryOf([[subject7, holderA, "1", "active", "—"]]),
      text: ["is not attested by generation 1"],
      detailsUrl,
    });
    await deliver("pull_request", prPayload("opened", sha1));
    checks.expectEvaluation(sha1, {
      conclusion: "success",
      title: "Attested by the current holder",
      summary: summaryOf([[subject7, holderA, "1", "active", "generation 1 (current)"]]),
      text: ["is attested by generation 1"],
      detailsUrl,
    });
    await call("POST", `/api/v1/leases/${oldLease.id}/attest`, oldLease.token, { sha: sha1 });
    expect(checks.conclusionOf(sha1)).toBe("success");

    // The session re-claims (its old token may have leaked): the head's check flips at once.
    nockSubjectStatus(github, {
      ...issue7,
      assignees: [{ login: agent.login, id: agent.node_id }],
      labels: ["agent:claimed"],
      comments: [
        {
          id: "IC_a",
          databaseId: 9001,
          body: (claimA.variables!.claimComment as { body: string }).body,
          viewerDidAuthor: true,
        },
      ],
    });
    nockApplyTransition(github);
    checks.expectEvaluation(sha1, {
      conclusion: "failure",
      title: "Not attested by the current holder",
      summary: summaryOf([[subject7, holderA, "1", "active", "—"]]),
      text: ["is not attested by generation 1"],
      detailsUrl,
    });
    const mark = github.count();
    const again = await call("POST", "/api/v1/claims", agentToken, claimBody);
    expect(again.status).toBe(200);
    expectRequests(github, mark, [
      "POST /graphql",
      "POST /graphql",
      "POST /graphql",
      `PATCH /repos/${repo}/check-runs/1`,
    ]);
    expect(checks.conclusionOf(sha1)).toBe("failure");

    // The rotated-out token cannot vouch again; the new one can.
    const stale = await call("POST", `/api/v1/leases/${oldLease.id}/attest`, oldLease.token, { sha: sha1 });
    expect(stale).toMatchObject({ status: 409, body: { error: "superseded", reason: "rotated" } });
    checks.expectEvaluation(sha1, {
      conclusion: "success",
      title: "Attested by the current holder",
      summary: summaryOf([[subject7, holderA, "1", "active", "generation 1 (current)"]]),
      text: ["is attested by generation 1"],
      detailsUrl,
    });
    const fresh = await call("POST", `/api/v1/leases/${oldLease.id}/attest`, again.body.lease.token, {
      sha: sha1,
    });
    expect(fresh).toEqual({ status: 200, body: { attested: true, sha: sha1, generation: 1 } });
    expect(checks.conclusionOf(sha1)).toBe("success");
  });
});

describe("the check run and /reclaim on the memory stores", () => {
  let stores: Stores;
  let fences: MemoryFenceStore;

  beforeEach(async () => {
    stores = createMemoryStores();
    github = new GitHubRequestLog();
    checks = new FakeCheckRuns(github, repo, { repoId, pull: 2 });
    // The human's PR #3 (fixture) says "Fixes #1": GitHub links #1.
    checks.link(3, [1]);
    app = await startApp({ stores, appId: testAppId, publicUrl });
    fences = new MemoryFenceStore();
  });
  afterEach(async () => {
    await app.close();
    afterEachCheckNock();
  });

  it("passes a PR no agent claim is involved in (rule 2)", async () => {
    const payload = loadFixture("pull_request.opened-by-a-human-from-a-feature-branch");
    const head = payload.pull_request.head.sha;
    nockCreateInstallationToken(github, installationId);
    nockGetConfigFile(github, repo, "");
    // The store has no record of #1: one read of its claim comments (none) before the verdict, remembered.
    nockSubjectStatus(github, { repo, repoId, number: 1 });
    checks.expectEvaluation(
      head,
      {
        conclusion: "success",
        title: "No agent claim involved",
        summary: summaryOf([[`${repo}#1`, "unknown", "—", "none", "—"]]),
        text: ["no agent claim involved"],
        detailsUrl: `${publicUrl}/api/v1/repos/${repo}/issues/1/claim`,
      },
      3,
    );
    await deliver("pull_request", payload);
    expect(checks.conclusionOf(head)).toBe("success");
  });

  it("marks a human's PR on an agent-claimed issue neutral (rule 3)", async () => {
    await stores.claims.restore(
      {
        installationId,
        repoId,
        issue: 1,
        repo,
        generation: 3,
        state: "active",
        actor: { kind: "agent", login: "octo-agent", ...actorA },
        taskClass: "author",
        branch: "agent/A/1-x",
        durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
        claimedAt: app.clock.now,
        lastHeartbeatAt: app.clock.now,
        appAssigned: true,
        sync: "done",
      },
      app.clock.now,
    );
    const payload = loadFixture("pull_request.opened-by-a-human-from-a-feature-branch");
    const head = payload.pull_request.head.sha;
    nockCreateInstallationToken(github, installationId);
    nockGetConfigFile(github, repo, "");
    checks.expectEvaluation(
      head,
      {
        conclusion: "neutral",
        title: "Human change on a subject with an agent claim",
        summary: summaryOf([
          [`${repo}#1`, "claude-code session A on build-7 (@octo-agent)", "3", "active", "—"],
        ]),
        text: ["this PR comes from a human on a non-agent branch"],
        detailsUrl: `${publicUrl}/api/v1/repos/${repo}/issues/1/claim`,
      },
      3,
    );
    await deliver("pull_request", payload);
    expect(checks.conclusionOf(head)).toBe("neutral");
  });

  it("reports an invalid .github/claim-hold.yml as a neutral check with an annotation naming the line", async () => {
    const payload = loadFixture("pull_request.opened-by-a-human-from-a-feature-branch");
    const head = payload.pull_request.head.sha;
    nockCreateInstallationToken(github, installationId);
    nockGetConfigFile(github, repo, "labels:\n  claimed: [unclosed\n");
    nockSubjectStatus(github, { repo, repoId, number: 1 });
    const error = /line \d+/;
    const captured: {
      body?: { output: { summary: string; annotations: { message: string; start_line: number }[] } };
    } = {};
    checks.nockPullRequestCheck(head, 3);
    nock("https://api.github.com")
      .post(`/repos/${repo}/check-runs`, (body) => {
        captured.body = body as typeof captured.body;
        return true;
      })
      .reply(201, { id: 1 });
    await deliver("pull_request", payload);
    expect(captured.body).toMatchObject({
      conclusion: "neutral",
      output: {
        title: "No agent claim involved",
        annotations: [
          {
            path: ".github/claim-hold.yml",
            start_line: expect.any(Number),
            end_line: expect.any(Number),
            annotation_level: "warning",
            message: expect.stringMatching(error),
          },
        ],
      },
    });
    const annotation = captured.body!.output.annotations[0]!;
    expect(annotation.message).toContain(`line ${annotation.start_line}`);
    expect(captured.body!.output.summary).toContain("is invalid, so the defaults were used");
  });

  it("refuses /reclaim without the configured permission, politely and without any change", async () => {
    const comment = loadFixture("issue_comment.created-reclaim");
    comment.issue.number = 7;
    nockCreateInstallationToken(github, installationId);
    nockAddReaction(github, repo, comment.comment.id);
    nockGetConfigFile(github, repo, "");
    nockGetCollaboratorPermission(github, repo, human.login, "read");
    nockSubjectStatus(github, { ...issue7, assignees: [{ login: agent.login, id: agent.node_id }] });
    const reply = nockApplyTransition(github);
    await deliver("issue_comment", comment, "delivery-refused");
    expect(reply.variables).toEqual({
      comment0: {
        subjectId: issueNodeId(issue7),
        body: "@Codertocat, sorry: `/reclaim` needs write permission on Codertocat/Hello-World (you have read). Nothing was changed.",
      },
    });
    expect(await stores.claims.get(key)).toBeNull();
    // Redelivered: the delivery id alone stops it, even before the comment id would.
    const mark = github.count();
    await deliver(
      "issue_comment",
      { ...comment, comment: { ...comment.comment, id: 1 } },
      "delivery-refused",
    );
    await deliver("issue_comment", comment, "delivery-refused-again");
    expect(github.count()).toBe(mark);
  });

  it("fails a PR linked only through a superseded claim's branch (rule 5, branch index)", async () => {
    await app.close();
    app = await startApp({ stores, fences, appId: testAppId, publicUrl });
    const agentA = { kind: "agent" as const, login: agent.login, ...actorA };
    const agentB = { kind: "agent" as const, login: agent.login, ...actorB };
    await fences.recordClaim(key, { generation: 1, actor: agentA, branch });
    await stores.claims.restore(
      {
        ...key,
        repo,
        generation: 2,
        state: "active",
        actor: agentB,
        taskClass: "author",
        branch: "agent/B/7-y",
        durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
        claimedAt: app.clock.now,
        lastHeartbeatAt: app.clock.now,
        appAssigned: true,
        sync: "done",
      },
      app.clock.now,
    );
    const payload = prPayload("opened", sha1);
    payload.pull_request.body = "Work in progress, no closing keyword.";
    nockCreateInstallationToken(github, installationId);
    nockGetConfigFile(github, repo, "");
    checks.expectEvaluation(sha1, {
      conclusion: "failure",
      title: "Superseded holder",
      summary: summaryOf([[subject7, holderB, "2", "active", "—"]]),
      text: [`generation 1 (${holderA}) was superseded by ${holderB} (generation 2)`],
      detailsUrl,
    });
    await deliver("pull_request", payload);
    expect(checks.conclusionOf(sha1)).toBe("failure");
  });

  it("links what GitHub links (closingIssuesReferences), not what a body regex finds: a URL reference fences a superseded holder", async () => {
    await app.close();
    app = await startApp({ stores, fences, appId: testAppId, publicUrl });
    const agentA = { kind: "agent" as const, login: agent.login, ...actorA };
    const agentB = { kind: "agent" as const, login: agent.login, ...actorB };
    await fences.recordClaim(key, { generation: 1, actor: agentA, branch });
    await fences.attest(key, 1, sha1, app.clock.now);
    await stores.claims.restore(
      {
        ...key,
        repo,
        generation: 2,
        state: "active",
        actor: agentB,
        taskClass: "author",
        branch: "agent/B/7-y",
        durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
        claimedAt: app.clock.now,
        lastHeartbeatAt: app.clock.now,
        appAssigned: true,
        sync: "done",
      },
      app.clock.now,
    );
    // A branch no claim named, and a body whose only reference is a URL: GitHub links #7 all the same.
    const payload = prPayload("opened", sha1);
    payload.pull_request.head.ref = "feature/parser";
    payload.pull_request.body = `Fixes https://github.com/${repo}/issues/7`;
    checks.link(2, [7]);
    nockCreateInstallationToken(github, installationId);
    nockGetConfigFile(github, repo, "");
    const mark = github.count();
    checks.expectEvaluation(sha1, {
      conclusion: "failure",
      title: "Superseded holder",
      summary: summaryOf([[subject7, holderB, "2", "active", "generation 1"]]),
      text: [`generation 1 (${holderA}) was superseded by ${holderB} (generation 2)`],
      detailsUrl,
    });
    await deliver("pull_request", payload);
    expect(checks.conclusionOf(sha1)).toBe("failure");
    expect((await fences.pullRequest({ installationId, repoId }, 2))?.linked).toEqual([7]);
    // The closing references came with the evaluation's one read: no request was added for them.
    expect(
      github
        .since(mark)
        .map((r) => `${r.method} ${r.path}`)
        .filter((r) => !r.includes("access_tokens") && !r.includes("/contents/")),
    ).toEqual(["POST /graphql", `POST /repos/${repo}/check-runs`]);
  });

  it("refuses /reclaim of another human's assignment to a writer who is not a maintainer", async () => {
    const comment = loadFixture("issue_comment.created-reclaim");
    comment.issue.number = 7;
    nockCreateInstallationToken(github, installationId);
    nockAddReaction(github, repo, comment.comment.id);
    nockGetConfigFile(github, repo, "");
    nockGetCollaboratorPermission(github, repo, human.login, "write");
    nockSubjectStatus(github, { ...issue7, assignees: [{ login: "alice", id: "U_alice" }] });
    const reply = nockApplyTransition(github);
    await deliver("issue_comment", comment);
    expect((reply.variables!.comment0 as { body: string }).body).toBe(
      "@Codertocat, sorry: Codertocat/Hello-World#7 is held by @alice; only they or a maintainer can `/reclaim` it. Nothing was changed.",
    );
    expect(await stores.claims.get(key)).toBeNull();
  });

  it("ignores /reclaim from a bot without a single GitHub request", async () => {
    await deliver("issue_comment", loadFixture("issue_comment.created-by-a-bot"));
    expect(github.count()).toBe(0);
  });
});
