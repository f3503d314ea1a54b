// The lease API on Gitea end to end: agents claim, heartbeat and release a Gitea issue through the App, on the memory store and a real Redis, beside a GitHub installation of the same id and repository.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClaimHoldClient,
  createClaimHoldClient,
  isClaimHoldError,
} from "../../src/agent/client/index.js";
import { leaseIdOf } from "../../src/domain/claim.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";
import {
  agentToken,
  botLogin,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const appId = 1;
/** The GitHub installation numbered like the Gitea instance (`GITEA_INSTALLATION_ID=1`). */
const githubInstallation = 1;
const otherGiteaToken = "gitea-sim-other-agent-token-0000001";
const githubAgent = { login: "fleet-bot", id: 501, token: "ghp_fleetbot00000000000000000000000forge" };

function claimMarkersIn(bodies: string[]): { generation: number; state: string }[] {
  return bodies.flatMap((body) => {
    const match = /<!-- claim-hold:v1 (\{.*\}) -->/.exec(body);
    if (!match) return [];
    const marker = JSON.parse(match[1]!) as { generation: number; state: string };
    return [{ generation: marker.generation, state: marker.state }];
  });
}

/** Counts of `METHOD route` in a list of logged routes. */
function countsOf(routes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const route of routes) counts[route] = (counts[route] ?? 0) + 1;
  return counts;
}

const storeKinds = [
  { name: "the memory store", redis: undefined },
  ...(redisProbe.available ? [{ name: "Redis", redis: "shared" as const }] : []),
];

describe.each(storeKinds)("agents lease Gitea issues through the HTTP API, on $name", ({ redis }) => {
  const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
  let gitea: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;
  let issue: SimIssue;
  const agent = (token: string, forge?: string): ClaimHoldClient =>
    createClaimHoldClient({
      baseUrl: stack.app.url,
      githubToken: token,
      ...(forge ? { forge } : {}),
      retries: 0,
      sleep: async (ms) => {
        stack.app.clock.now += ms;
      },
    });

  const labelsOf = (subject: SimIssue) =>
    subject.labelIds.map((id) => gitea.repo.labels.find((label) => label.id === id)?.name);

  beforeAll(async () => {
    gitea = await startGiteaSimFixture(clock);
    gitea.sim.state.addUser("other-bot", otherGiteaToken);
    gitea.repo.permissions.set("other-bot", "write");
    issue = gitea.sim.state.addIssue(gitea.repo, { title: "Task 1", author: "maintainer" });
    stack = await startLocalStack({
      ...(redis ? { redis: { kind: redis, keyPrefix: uniqueKeyPrefix("gitea-api") } } : {}),
      credentials: testCredentials(appId),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: clock.now,
          gitea: handMadeHooksGitea(gitea.sim),
        }),
    });
    // On GitHub: installation 1 with octo/widgets, its repository id the Gitea repository's.
    stack.sim.seed({
      users: [{ login: githubAgent.login, id: githubAgent.id, tokens: [githubAgent.token] }],
      repos: [
        {
          fullName: repo,
          id: gitea.repo.id,
          collaborators: { [githubAgent.login]: "write" },
          issues: [{ number: 1, title: "Task 1", author: githubAgent.login }],
        },
      ],
      installations: [{ id: githubInstallation, account: "octo", repos: [repo] }],
    });
    await stack.sim.flush();
  });
  afterAll(async () => {
    await stack?.stop();
    await gitea?.sim.close();
  });

  it("claim → heartbeat → a second agent refused → release, with the Gitea requests of each pinned", async () => {
    const fleet = agent(agentToken, "gitea");
    const actor = { runtime: "claude-code", sessionId: "g1", host: "build-1" };

    const githubMark = stack.sim.requests.mark();
    let mark = gitea.sim.requests.length;
    const claimed = await fleet.claim({ repo, issue: issue.number, actor, branch: "agent/g1/1-task-1" });
    expect(claimed).toMatchObject({
      created: true,
      lease: { generation: 1, subject: `${repo}#${issue.number}` },
    });
    // The lease names the Gitea instance's installation record, never GitHub's installation 1.
    expect(claimed.lease.id).toBe(
      leaseIdOf({ installationId: giteaInstallation, repoId: gitea.repo.id, issue: issue.number }, 1),
    );
    expect(issue.assignees).toEqual(["fleet-bot"]);
    expect(labelsOf(issue)).toEqual(["agent:claimed"]);
    // The managed labels were created on first use.
    expect(gitea.repo.labels.map((label) => label.name)).toContain("agent:claimed");
    const botComments = issue.comments.filter((comment) => comment.author === botLogin);
    expect(claimMarkersIn(botComments.map((comment) => comment.body))).toEqual([
      { generation: 1, state: "active" },
    ]);
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual(CLAIM_REQUESTS);

    // Heartbeats are the store's alone: no Gitea request.
    mark = gitea.sim.requests.length;
    for (let beat = 0; beat < 3; beat++) {
      stack.app.clock.now += 10_000;
      expect(await fleet.heartbeat(claimed.lease)).toMatchObject({ generation: 1, state: "active" });
    }
    expect(gitea.sim.routesSince(mark)).toEqual([]);

    // Another agent's claim of the live lease is refused: no duplicate pickup, no Gitea write.
    mark = gitea.sim.requests.length;
    const refused = await agent(otherGiteaToken, "gitea")
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: "o1" } })
      .then(
        () => null,
        (error: unknown) => (isClaimHoldError(error) ? { status: error.status, code: error.code } : error),
      );
    expect(refused).toEqual({ status: 409, code: "held" });
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual(REFUSED_CLAIM_REQUESTS);
    expect(issue.assignees).toEqual(["fleet-bot"]);

    // The claim view over the Gitea token.
    const subject = await fleet.subject(repo, issue.number);
    expect(subject).toMatchObject({
      subject: `${repo}#${issue.number}`,
      state: "active",
      actor: { login: "fleet-bot" },
      generation: 1,
    });

    mark = gitea.sim.requests.length;
    await fleet.release(claimed.lease, { outcome: "completed", note: "done" });
    expect(issue.assignees).toEqual([]);
    expect(labelsOf(issue)).toEqual([]);
    expect(
      claimMarkersIn(issue.comments.filter((c) => c.author === botLogin).map((comment) => comment.body)),
    ).toEqual([{ generation: 1, state: "completed" }]);
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual(RELEASE_REQUESTS);
    // Not one GitHub request for the Gitea lease, from claim to release.
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
    expect(stack.app.logs.filter((line) => /"level":(40|50)/.test(line))).toEqual([]);
  });

  it("the GitHub installation of the same number and repository claims its own issue, independently", async () => {
    const giteaClaim = await agent(agentToken, "gitea").claim({
      repo,
      issue: issue.number,
      actor: { runtime: "claude-code", sessionId: "g2" },
    });
    const githubMark = stack.sim.requests.mark();
    const githubClaim = await agent(githubAgent.token).claim({
      repo,
      issue: 1,
      actor: { runtime: "claude-code", sessionId: "h1" },
    });
    await stack.sim.flush();
    expect(githubClaim).toMatchObject({ created: true, lease: { generation: 1 } });
    expect(githubClaim.lease.id).toBe(
      leaseIdOf({ installationId: githubInstallation, repoId: gitea.repo.id, issue: 1 }, 1),
    );
    expect(giteaClaim.lease.id).not.toBe(githubClaim.lease.id);
    expect(stack.sim.issue(repo, 1)).toMatchObject({
      assignees: [githubAgent.login],
      labels: ["agent:claimed"],
    });
    // GitHub's claim asks GitHub alone, its requests those of a GitHub-only App.
    expect(stack.sim.requests.counts(githubMark)).toEqual(GITHUB_CLAIM_REQUESTS);
    // Both hold: each lease heartbeats and releases on its own forge.
    expect(await agent(agentToken).heartbeat(giteaClaim.lease)).toMatchObject({ state: "active" });
    expect(await agent(githubAgent.token).heartbeat(githubClaim.lease)).toMatchObject({ state: "active" });
    await agent(agentToken).release(giteaClaim.lease, { outcome: "abandoned" });
    expect(await agent(githubAgent.token).verify(githubClaim.lease)).toMatchObject({ holder: true });
    expect(stack.sim.issue(repo, 1).assignees).toEqual([githubAgent.login]);
    // Two records in the store, one per forge.
    const giteaKey = { installationId: giteaInstallation, repoId: gitea.repo.id, issue: issue.number };
    const githubKey = { installationId: githubInstallation, repoId: gitea.repo.id, issue: 1 };
    expect(await stack.stores.claims.get(giteaKey)).toMatchObject({ state: "released", generation: 2 });
    expect(await stack.stores.claims.get(githubKey)).toMatchObject({ state: "active", generation: 1 });
    if (stack.redis) {
      const { client, keyPrefix } = stack.redis;
      expect(await client.hget(`${keyPrefix}{g:1}:s:${gitea.repo.id}:${issue.number}:rec`, "state")).toBe(
        "released",
      );
      expect(await client.hget(`${keyPrefix}{i:1}:s:${gitea.repo.id}:1:rec`, "state")).toBe("active");
    }
    // Released, so the next test's sweep finds nothing due on GitHub.
    await agent(githubAgent.token).release(githubClaim.lease, { outcome: "abandoned" });
  });

  it("the janitor's sweep reaps a silent Gitea claim on Gitea, asking GitHub nothing", async () => {
    const silent = gitea.sim.state.addIssue(gitea.repo, { title: "Silent work", author: "maintainer" });
    const claimed = await agent(agentToken, "gitea").claim({
      repo,
      issue: silent.number,
      actor: { runtime: "codex", sessionId: "silent" },
    });
    stack.app.clock.now += 24 * 3_600_000;
    const githubMark = stack.sim.requests.mark();
    const mark = gitea.sim.requests.length;
    const report = await stack.app.services.janitor.sweep();
    expect(report.actions).toContainEqual(
      expect.objectContaining({ subject: `${repo}#${silent.number}`, action: "reap" }),
    );
    expect(silent.assignees).toEqual([]);
    expect(labelsOf(silent)).toEqual([]);
    // The config (both paths), the issue and its comments, its branch's open pull requests and the
    // branch, then the release's writes; GitHub is not asked.
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual({
      "GET /repos/{owner}/{repo}/raw/{filepath}": 2,
      "GET /repos/{owner}/{repo}/issues/{index}": 2,
      "GET /repos/{owner}/{repo}/issues/{index}/comments": 1,
      "GET /repos/{owner}/{repo}/pulls": 1,
      "GET /repos/{owner}/{repo}/branches/{branch}": 1,
      "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
      "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}": 1,
      "PATCH /repos/{owner}/{repo}/issues/comments/{id}": 1,
      "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
    });
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
    await expect(agent(agentToken).heartbeat(claimed.lease)).rejects.toMatchObject({ status: 410 });
  });

  it("a request naming no forge is GitHub's; an unknown forge is 422 invalid_request", async () => {
    // The Gitea token is not a GitHub token: without the header, GitHub is asked and refuses it.
    const unnamed = await agent(agentToken)
      .inventory(repo)
      .then(
        () => null,
        (error: unknown) => (isClaimHoldError(error) ? error.status : error),
      );
    expect(unnamed).toBe(401);
    const answer = await fetch(`${stack.app.url}/api/v1/repos/${repo}/claims`, {
      headers: { authorization: `Bearer ${agentToken}`, "x-claim-hold-forge": "gitlab" },
    });
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ error: "invalid_request", field: "x-claim-hold-forge" });
  });

  it("a GitHub token sent for Gitea is refused 401 without reaching Gitea", async () => {
    const mark = gitea.sim.requests.length;
    const answer = await fetch(`${stack.app.url}/api/v1/repos/${repo}/claims`, {
      headers: { authorization: "Bearer ghp_aGitHubPersonalAccessToken", "x-claim-hold-forge": "gitea" },
    });
    expect(answer.status).toBe(401);
    const body = (await answer.json()) as { error: string; message: string };
    expect(body).toMatchObject({ error: "unauthorized" });
    expect(body.message).not.toContain("ghp_");
    expect(gitea.sim.routesSince(mark)).toEqual([]);
  });
});

/**
 * A claim on Gitea: the agent's token (`GET /user`) and its permission, the repository (the
 * installation record), the config (`.gitea/` then `.github/`), the issue, the bot's own login (once
 * per process), the managed labels listed and the missing one created; then the transition's writes:
 * the issue read again (only what differs is sent), the assignee, the label, the claim comment.
 * The first claim on a repository refreshes its candidate index (the direct claim's blockers): one
 * page of open issues, one of open pull requests, one dependency read per open issue. The claim's
 * branch is read with the issue: the open pull requests (duplicate work, resume) and the branch.
 */
const CLAIM_REQUESTS: Record<string, number> = {
  "GET /user": 2,
  "GET /repos/{owner}/{repo}": 1,
  "GET /repos/{owner}/{repo}/issues": 1,
  "GET /repos/{owner}/{repo}/issues/{index}/dependencies": 1,
  "GET /repos/{owner}/{repo}/pulls": 2,
  "GET /repos/{owner}/{repo}/branches/{branch}": 1,
  "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": 1,
  "GET /repos/{owner}/{repo}/raw/{filepath}": 2,
  "GET /repos/{owner}/{repo}/issues/{index}": 2,
  "GET /repos/{owner}/{repo}/labels": 1,
  "POST /repos/{owner}/{repo}/labels": 1,
  "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/labels": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
};
/**
 * A refused claim writes nothing: the second agent's token and permission, then the issue as the
 * core reads it, with the held claim's branch (its open pull requests and the branch).
 */
const REFUSED_CLAIM_REQUESTS: Record<string, number> = {
  "GET /user": 1,
  "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": 1,
  "GET /repos/{owner}/{repo}/issues/{index}": 1,
  "GET /repos/{owner}/{repo}/issues/{index}/comments": 1,
  "GET /repos/{owner}/{repo}/pulls": 1,
  "GET /repos/{owner}/{repo}/branches/{branch}": 1,
};
/**
 * A release as completed: the issue read (only what differs is sent), the assignee removed, the
 * claimed label removed, the claim comment edited to `completed`, the release's audit comment.
 */
const RELEASE_REQUESTS: Record<string, number> = {
  "GET /repos/{owner}/{repo}/issues/{index}": 1,
  "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
  "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}": 1,
  "PATCH /repos/{owner}/{repo}/issues/comments/{id}": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
};
/** A first GitHub claim, as in a GitHub-only App: token, installation, permission, one read, one mutation. */
const GITHUB_CLAIM_REQUESTS: Record<string, number> = {
  "GET /user": 1,
  "GET /repos/{owner}/{repo}/installation": 1,
  "GET /repos/{owner}/{repo}/collaborators/{username}/permission": 1,
  "graphql:SubjectStatus": 1,
  "graphql:ApplyTransition": 1,
};
