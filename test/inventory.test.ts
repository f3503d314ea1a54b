// The claim inventory (GET …/claims) and the janitor's reconcile pass, through the real App with nock.
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryStores } from "../src/providers/memory/memory-store.js";
import type { Stores } from "../src/providers/stores.js";
import { type AppHarness, signedClaimComment, startApp, testAdminToken } from "./support/app-harness.js";
import {
  agent,
  agentToken,
  GitHubRequestLog,
  githubScope,
  type IssueState,
  nockCreateInstallationToken,
  nockGetCollaboratorPermission,
  nockGetRepoInstallation,
  nockGetUser,
  nockListAppInstallations,
  nockListInstallationRepositories,
  nockNoConfigFile,
  nockOpenIssues,
} from "./support/github-fake/index.js";

const installationId = 42;
const repo = "octo/widgets";
const repoId = 1296269;
let app: AppHarness;
let stores: Stores;
let github: GitHubRequestLog;

beforeEach(async () => {
  stores = createMemoryStores();
  github = new GitHubRequestLog();
  app = await startApp({ stores, adminToken: testAdminToken });
});

afterEach(async () => {
  await app.close();
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

async function seedClaim(issue: number) {
  const key = { installationId, repoId, issue };
  await stores.claims.epoch(installationId, app.clock.now - 1);
  const outcome = await stores.claims.claim({
    key,
    repo,
    actor: { kind: "agent", login: agent.login, runtime: "codex", sessionId: `s${issue}` },
    taskClass: "author",
    durations: { ttlMs: 1_800_000, reclaimAfterMs: 3_600_000, heartbeatMs: 300_000 },
    branch: `agent/s${issue}/${issue}-x`,
    tokenDigest: "c".repeat(64),
    takeover: false,
    now: app.clock.now,
    minGeneration: 0,
    appAssigned: true,
    issueNodeId: `I_${repoId}_${issue}`,
    assigneeNodeId: agent.node_id,
    caps: { perSession: 5, perLogin: 50 },
  });
  if (outcome.kind !== "created") throw new Error(outcome.kind);
  await stores.claims.commitClaim(key, 1, { commentNodeId: `IC_${issue}`, commentId: issue });
  return outcome.record;
}

function issue(number: number, extra: Partial<IssueState> = {}): IssueState {
  return { repo, repoId, number, title: `Issue ${number}`, ...extra };
}

async function inventory(query = "") {
  const response = await fetch(`${app.url}/api/v1/repos/${repo}/claims${query}`, {
    headers: { authorization: `Bearer ${agentToken}` },
  });
  return {
    status: response.status,
    body: (await response.json()) as { claims: Record<string, unknown>[]; truncated: boolean },
  };
}

describe("GET /api/v1/repos/{owner}/{repo}/claims", () => {
  it("joins the store's claims with one read of the open issues: agent, human, phantom; plain issues left out", async () => {
    const record = await seedClaim(1);
    nockGetUser(github, agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockGetCollaboratorPermission(github, repo, agent.login, "read");
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, [
      issue(1, {
        assignees: [{ login: agent.login, id: agent.node_id }],
        labels: ["agent:claimed"],
        comments: [
          { id: "IC_1", databaseId: 1, body: signedClaimComment(record, "active"), viewerDidAuthor: true },
        ],
      }),
      issue(2, { assignees: [{ login: "alice", id: "U_alice" }] }),
      issue(3, { labels: ["agent:claimed"] }),
      issue(4),
    ]);
    const mark = github.count();
    const { status, body } = await inventory();
    expect(status).toBe(200);
    expect(github.since(mark).filter((r) => r.path === "/graphql")).toHaveLength(1);
    expect(body.truncated).toBe(false);
    expect(body.claims.map((c) => [c.subject, c.state])).toEqual([
      ["octo/widgets#1", "active"],
      ["octo/widgets#2", "human"],
      ["octo/widgets#3", "phantom"],
    ]);
    expect(body.claims[0]).toMatchObject({
      actor: { kind: "agent", login: agent.login, sessionId: "s1" },
      generation: 1,
      taskClass: "author",
      branch: "agent/s1/1-x",
      reasons: expect.arrayContaining(["heartbeat-live"]),
      lastHeartbeatAt: new Date(app.clock.now).toISOString(),
      claimAgeSeconds: 0,
    });
  });

  it("filters by state and bounds the answer with limit and truncated", async () => {
    nockGetUser(github, agentToken, agent);
    nockGetRepoInstallation(github, repo);
    nockCreateInstallationToken(github);
    nockGetCollaboratorPermission(github, repo, agent.login, "read");
    nockNoConfigFile(github, repo);
    const humans = [2, 3, 4].map((n) => issue(n, { assignees: [{ login: "alice", id: "U_alice" }] }));
    nockOpenIssues(github, repo, repoId, [...humans, issue(5, { labels: ["agent:claimed"] })]);
    const { body } = await inventory("?state=human&limit=2");
    expect(body.claims.map((c) => c.subject)).toEqual(["octo/widgets#2", "octo/widgets#3"]);
    expect(body.truncated).toBe(true);
    const bad = await fetch(`${app.url}/api/v1/repos/${repo}/claims?limit=500`, {
      headers: { authorization: `Bearer ${agentToken}` },
    });
    expect(bad.status).toBe(422);
  });
});

describe("reconcile", () => {
  it("rebuilds a record from a current claim comment and leaves alone a label that no claim comment explains (claim state unknown)", async () => {
    const lost = await seedClaim(1);
    const fresh = createMemoryStores();
    await app.close();
    stores = fresh;
    app = await startApp({ stores, adminToken: testAdminToken });
    nockListAppInstallations(github, [installationId]);
    nockCreateInstallationToken(github);
    nockListInstallationRepositories(github, [repo]);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, [
      issue(1, {
        assignees: [{ login: agent.login, id: agent.node_id }],
        labels: ["agent:claimed"],
        comments: [
          { id: "IC_1", databaseId: 1, body: signedClaimComment(lost, "active"), viewerDidAuthor: true },
        ],
      }),
      issue(3, { labels: ["agent:claimed"] }),
    ]);
    const report = await app.services.janitor.sweep({ reconcile: true });
    expect(report.actions).toEqual([
      { subject: "octo/widgets#1", action: "repair", reason: "record-rebuilt-from-claim-comment" },
    ]);
    const restored = await stores.claims.get({ installationId, repoId, issue: 1 });
    expect(restored).toMatchObject({
      generation: 1,
      state: "active",
      actor: { sessionId: "s1" },
      appAssigned: true,
    });
    expect(await stores.installations.installations()).toEqual([installationId]);
    // Invariant 12: a managed label with no verifiable claim comment is not taken for "never claimed".
    expect(report.skipped).toBeGreaterThanOrEqual(1);
    expect(await stores.claims.get({ installationId, repoId, issue: 3 })).toBeNull();
  });

  it("runs through the operator route with the admin token only", async () => {
    const denied = await fetch(`${app.url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: "Bearer wrong-token-000000000000", "content-type": "application/json" },
      body: "{}",
    });
    expect(denied.status).toBe(401);
    // The store knows no installation: the sweep asks GitHub for the App's (here: none).
    nockListAppInstallations(github, []);
    const ran = await fetch(`${app.url}/api/v1/admin/janitor/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ dryRun: true }),
    });
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({
      dryRun: true,
      installations: 0,
      actions: [],
      githubRequests: 1,
    });
  });

  it("an empty store set is read back from GitHub and reconciled; once GitHub says none, sweeps ask nothing", async () => {
    const lost = await seedClaim(1);
    stores = createMemoryStores();
    await app.close();
    app = await startApp({ stores, adminToken: testAdminToken });
    nockListAppInstallations(github, [installationId]);
    nockCreateInstallationToken(github);
    nockListInstallationRepositories(github, [repo]);
    nockNoConfigFile(github, repo);
    nockOpenIssues(github, repo, repoId, [
      issue(1, {
        assignees: [{ login: agent.login, id: agent.node_id }],
        labels: ["agent:claimed"],
        comments: [
          { id: "IC_1", databaseId: 1, body: signedClaimComment(lost, "active"), viewerDidAuthor: true },
        ],
      }),
    ]);
    // The reconcile refreshes the candidate index too: one page of open issues, none blocked, no PR.
    githubScope({ log: github }).get(`/repos/${repo}/issues`).query(true).reply(200, []);
    // An ordinary sweep, not a reconcile pass: the empty set is taken for a store loss.
    const report = await app.services.janitor.sweep();
    expect(report).toMatchObject({
      installations: 1,
      reconciled: true,
      actions: [{ subject: "octo/widgets#1", action: "repair", reason: "record-rebuilt-from-claim-comment" }],
      // the App's installations, the installation's repositories, 2 config reads, the open issues,
      // the candidate index's listing
      githubRequests: 6,
    });
    expect(await stores.claims.get({ installationId, repoId, issue: 1 })).toMatchObject({ state: "active" });
    expect(await stores.installations.installations()).toEqual([installationId]);
    expect(await app.services.janitor.sweep()).toMatchObject({ installations: 1, githubRequests: 0 });

    // The App uninstalled everywhere: GitHub's empty answer is remembered, not asked for again.
    await stores.installations.purgeInstallation(installationId);
    nockListAppInstallations(github, []);
    expect(await app.services.janitor.sweep()).toMatchObject({ installations: 0, githubRequests: 1 });
    expect(await app.services.janitor.sweep()).toMatchObject({ installations: 0, githubRequests: 0 });
    const listings = github
      .since(0)
      .filter((r) => `${r.method} ${r.path.split("?")[0]}` === "GET /app/installations");
    expect(listings).toHaveLength(2);
  });
});
