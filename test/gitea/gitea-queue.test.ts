// The queue on Gitea end to end: `claims/next` and the queue view over a Gitea instance's candidate index (its issue dependencies as blockers), and a Gitea claim's branch evidence as the janitor reads it; on the memory store and a real Redis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClaimHoldClient, createClaimHoldClient } from "../../src/agent/client/index.js";
import { leaseIdOf } from "../../src/domain/claim.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";
import {
  agentToken,
  type GiteaSimFixture,
  giteaInstallation,
  handMadeHooksGitea,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const appId = 1;
const webhookSecret = "gitea-webhook-secret-for-tests";

function countsOf(routes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const route of routes) counts[route] = (counts[route] ?? 0) + 1;
  return counts;
}

const storeKinds = [
  { name: "the memory store", redis: undefined },
  ...(redisProbe.available ? [{ name: "Redis", redis: "shared" as const }] : []),
];

describe.each(storeKinds)("the queue serves a Gitea instance, on $name", ({ redis }) => {
  const clock = { now: Date.parse("2026-11-29T10:00:00Z") };
  let gitea: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;
  let blocked: SimIssue;
  let blocker: SimIssue;
  let gpuTask: SimIssue;
  const agent = (): ClaimHoldClient =>
    createClaimHoldClient({
      baseUrl: stack.app.url,
      githubToken: agentToken,
      forge: "gitea",
      retries: 0,
      sleep: async (ms) => {
        stack.app.clock.now += ms;
      },
    });

  beforeAll(async () => {
    gitea = await startGiteaSimFixture(clock);
    const { state } = gitea.sim;
    // Oldest first: the blocked task would be picked first but for its dependency.
    blocked = state.addIssue(gitea.repo, { title: "Blocked task", author: "maintainer" });
    clock.now += 60_000;
    gpuTask = state.addIssue(gitea.repo, { title: "GPU task", author: "maintainer", labels: ["needs:gpu"] });
    clock.now += 60_000;
    blocker = state.addIssue(gitea.repo, { title: "Free task", author: "maintainer" });
    state.addDependency(blocked, blocker);
    stack = await startLocalStack({
      ...(redis ? { redis: { kind: redis, keyPrefix: uniqueKeyPrefix("gitea-queue") } } : {}),
      credentials: testCredentials(appId),
      startApp: (wiring) =>
        startApp({
          stores: wiring.stores,
          fences: wiring.fences,
          githubBaseUrl: wiring.githubBaseUrl,
          appId,
          now: clock.now,
          gitea: handMadeHooksGitea(gitea.sim, webhookSecret),
        }),
    });
    await stack.sim.flush();
  });
  afterAll(async () => {
    await stack?.stop();
    await gitea?.sim.close();
  });

  it("the queue view indexes the Gitea repository on a miss and skips the blocked issue with its reason", async () => {
    const githubMark = stack.sim.requests.mark();
    const mark = gitea.sim.requests.length;
    const view = await agent().queue(repo);
    expect(view.queue.map((entry) => entry.issue)).toEqual([blocker.number]);
    expect(view.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ issue: blocked.number, reason: "blocked" }),
        expect.objectContaining({ issue: gpuTask.number, reason: "missingCapability", missing: ["gpu"] }),
      ]),
    );
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual(QUEUE_VIEW_MISS_REQUESTS);
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
    // With the capability declared, the GPU task is eligible; the index is fresh: no refresh.
    const again = gitea.sim.requests.length;
    const withGpu = await agent().queue(repo, { capabilities: ["gpu"] });
    expect(withGpu.queue.map((entry) => entry.issue)).toEqual([gpuTask.number, blocker.number]);
    expect(countsOf(gitea.sim.routesSince(again))).toEqual(QUEUE_VIEW_FRESH_REQUESTS);
  });

  it("claims/next on Gitea picks the free issue, not the blocked one, under the Gitea record", async () => {
    const githubMark = stack.sim.requests.mark();
    const mark = gitea.sim.requests.length;
    const picked = await agent().claimNext({
      repo,
      actor: { runtime: "claude-code", sessionId: "q1" },
    });
    expect(picked.picked).toMatchObject({ issue: blocker.number, rank: 1 });
    expect(picked.lease.id).toBe(
      leaseIdOf({ installationId: giteaInstallation, repoId: gitea.repo.id, issue: blocker.number }, 1),
    );
    expect(blocker.assignees).toEqual(["fleet-bot"]);
    expect(blocked.assignees).toEqual([]);
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual(CLAIM_NEXT_REQUESTS);
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
  });

  it("the janitor leaves a silent Gitea claim with an open pull request from its branch, as on GitHub", async () => {
    const { state } = gitea.sim;
    const task = state.addIssue(gitea.repo, { title: "Work in review", author: "maintainer" });
    const branch = "agent/q2/work-in-review";
    const claimed = await agent().claim({
      repo,
      issue: task.number,
      actor: { runtime: "codex", sessionId: "q2" },
      branch,
    });
    state.addPullRequest(gitea.repo, { title: "Work in review", author: "fleet-bot", headRef: branch });
    stack.app.clock.now += 24 * 3_600_000;
    const githubMark = stack.sim.requests.mark();
    const mark = gitea.sim.requests.length;
    const report = await stack.app.services.janitor.sweep();
    // The claim `claims/next` took (silent, no pull request) is reaped; the one with an open pull
    // request from its branch is left alone, its assignee and label kept, as the janitor does on GitHub.
    const subjects = (issue: SimIssue) =>
      report.actions.filter((action) => action.subject === `${repo}#${issue.number}`).map((a) => a.action);
    expect(subjects(blocker)).toEqual(["reap"]);
    expect(subjects(task)).toEqual([]);
    expect(task.assignees).toEqual(["fleet-bot"]);
    const key = { installationId: giteaInstallation, repoId: gitea.repo.id, issue: task.number };
    expect(await stack.stores.claims.get(key)).toMatchObject({ state: "active", branch });
    expect(claimed.lease.id).toBe(leaseIdOf(key, 1));
    // Each due claim's issue and comments, the open pull requests and its branch; then the reap's writes.
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual(SWEEP_REQUESTS);
    await stack.sim.flush();
    expect(stack.sim.requests.counts(githubMark)).toEqual({});
  });

  it("`issues` deliveries keep the Gitea index current: an opened issue enters it, a closed blocker frees the issue it blocked, its reopening blocks it again", async () => {
    const { state } = gitea.sim;
    const deliver = (issue: SimIssue, action: string) =>
      gitea.sim.deliver({
        url: `${stack.app.url}/api/gitea/webhooks`,
        secret: webhookSecret,
        event: "issues",
        payload: gitea.sim.payloads.issues(gitea.repo, issue, "maintainer", action),
      });
    const fresh = state.addIssue(gitea.repo, { title: "Fresh task", author: "maintainer" });
    let mark = gitea.sim.requests.length;
    expect(await deliver(fresh, "opened")).toMatchObject({ status: 200, body: { status: "processed" } });
    // The issue as Gitea answers it now (the delivery is a hint), and its blockers once.
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual({
      "GET /repos/{owner}/{repo}/issues/{index}": 1,
      "GET /repos/{owner}/{repo}/issues/{index}/dependencies": 1,
    });
    mark = gitea.sim.requests.length;
    const view = await agent().queue(repo);
    expect(view.queue.map((entry) => entry.issue)).toContain(fresh.number);
    expect(view.skipped).toContainEqual(
      expect.objectContaining({ issue: blocked.number, reason: "blocked" }),
    );
    // The token and permission again (their cache aged a day in the sweep above), but no refresh.
    expect(gitea.sim.routesSince(mark)).not.toContain("GET /repos/{owner}/{repo}/issues");
    // The blocker closes: the issue it blocked is eligible without a refresh.
    blocker.state = "closed";
    expect(await deliver(blocker, "closed")).toMatchObject({ status: 200 });
    stack.app.clock.now += 60_000; // past the queue view's read cache
    const after = await agent().queue(repo);
    expect(after.queue.map((entry) => entry.issue)).toContain(blocked.number);
    expect(after.skipped.map((entry) => entry.issue)).not.toContain(blocker.number);
    // The blocker reopens: the issue it blocks is blocked again without a refresh.
    blocker.state = "open";
    mark = gitea.sim.requests.length;
    expect(await deliver(blocker, "reopened")).toMatchObject({ status: 200 });
    // The issue as Gitea answers it, its own blockers, the issues it blocks, and the blockers of each of those.
    expect(countsOf(gitea.sim.routesSince(mark))).toEqual({
      "GET /repos/{owner}/{repo}/issues/{index}": 1,
      "GET /repos/{owner}/{repo}/issues/{index}/dependencies": 2,
      "GET /repos/{owner}/{repo}/issues/{index}/blocks": 1,
    });
    stack.app.clock.now += 60_000;
    const reopened = await agent().queue(repo);
    expect(reopened.skipped).toContainEqual(
      expect.objectContaining({ issue: blocked.number, reason: "blocked" }),
    );
  });

  it("an `issues` delivery is a hint: a replayed `closed` of an issue open again, or one naming another repository's id, changes nothing in the index", async () => {
    const { state } = gitea.sim;
    const deliver = (payload: unknown) =>
      gitea.sim.deliver({
        url: `${stack.app.url}/api/gitea/webhooks`,
        secret: webhookSecret,
        event: "issues",
        payload,
      });
    const indexed = async (issue: SimIssue) => {
      const ref = await stack.stores.queue.repoOf(giteaInstallation, repo);
      return ref ? stack.stores.queue.candidate(ref, issue.number) : null;
    };
    await agent().queue(repo); // the repository indexed (a miss refreshes it)
    const task = state.addIssue(gitea.repo, { title: "Reopened task", author: "maintainer" });
    await deliver(gitea.sim.payloads.issues(gitea.repo, task, "maintainer", "opened"));
    // Closed, then open again: the old `closed` delivery replayed late must not drop it.
    task.state = "closed";
    const closed = gitea.sim.payloads.issues(gitea.repo, task, "maintainer", "closed");
    task.state = "open";
    expect((await deliver(closed)).status).toBe(200);
    expect(await indexed(task)).toMatchObject({ issue: task.number });
    // A signed delivery naming this repository under another repository's id feeds nothing.
    task.state = "closed";
    const forged = gitea.sim.payloads.issues(gitea.repo, task, "maintainer", "closed") as {
      repository: { id: number };
    };
    task.state = "open";
    forged.repository.id += 1000;
    const mark = gitea.sim.requests.length;
    await deliver(forged);
    expect(gitea.sim.routesSince(mark)).not.toContain("GET /repos/{owner}/{repo}/issues/{index}");
    expect(await indexed(task)).toMatchObject({ issue: task.number });
  });

  it("the janitor's reconcile visits the Gitea record and refreshes its index: an issue opened without a delivery is offered after it", async () => {
    const quiet = gitea.sim.state.addIssue(gitea.repo, { title: "Quiet task", author: "maintainer" });
    stack.app.clock.now += 60_000; // past the queue view's read cache
    expect((await agent().queue(repo)).queue.map((entry) => entry.issue)).not.toContain(quiet.number);
    const mark = gitea.sim.requests.length;
    const report = await stack.app.services.janitor.sweep({ reconcile: true });
    expect(report.reconciled).toBe(true);
    expect(gitea.sim.routesSince(mark)).toContain("GET /repos/{owner}/{repo}/issues");
    stack.app.clock.now += 60_000;
    expect((await agent().queue(repo)).queue.map((entry) => entry.issue)).toContain(quiet.number);
  });

  it("a claim without a branch is refused 409 pr_open for a writer's PR that closes the issue, not for a reader's from a branch of the repository", async () => {
    const { state } = gitea.sim;
    const takenByWriter = state.addIssue(gitea.repo, {
      title: "A writer's PR closes it",
      author: "maintainer",
    });
    const takenByReader = state.addIssue(gitea.repo, {
      title: "A reader's PR closes it",
      author: "maintainer",
    });
    state.addPullRequest(gitea.repo, {
      title: "the writer's",
      author: "maintainer",
      body: `Fixes #${takenByWriter.number}`,
      headRef: "feature/writer",
    });
    state.addPullRequest(gitea.repo, {
      title: "the reader's",
      author: "reader",
      body: `Fixes #${takenByReader.number}`,
      headRef: "feature/reader",
    });
    const actor = { runtime: "codex", sessionId: "q9" };
    const refused = await agent()
      .claim({ repo, issue: takenByWriter.number, actor })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 409,
      code: "pr_open",
      details: { pullRequests: [{ headRef: "feature/writer", author: "maintainer" }] },
    });
    expect(takenByWriter.assignees).toEqual([]);
    const claimed = await agent().claim({ repo, issue: takenByReader.number, actor });
    expect(claimed.lease.generation).toBe(1);
    expect(takenByReader.assignees).toEqual(["fleet-bot"]);
  });
});

/** A miss: the repository's id, one page of open issues, one of open pull requests, one dependency read per open issue. */
const QUEUE_VIEW_MISS_REQUESTS: Record<string, number> = {
  "GET /user": 1,
  "GET /repos/{owner}/{repo}": 2,
  "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": 1,
  "GET /repos/{owner}/{repo}/raw/{filepath}": 2,
  "GET /repos/{owner}/{repo}/issues": 1,
  "GET /repos/{owner}/{repo}/pulls": 1,
  "GET /repos/{owner}/{repo}/issues/{index}/dependencies": 3,
};
/** A fresh index answers from the store: no Gitea request. */
const QUEUE_VIEW_FRESH_REQUESTS: Record<string, number> = {};
/**
 * A pick on a fresh index: the agent's token was identified by the view (cached), the bot's login,
 * then the claim of the picked issue: its read and the open pull requests (a PR closing it refuses
 * a claim with or without a branch), the labels listed and the missing one created, the
 * transition's writes (the issue read again, the assignee, the label, the claim comment).
 */
const CLAIM_NEXT_REQUESTS: Record<string, number> = {
  "GET /user": 1,
  "GET /repos/{owner}/{repo}/issues/{index}": 2,
  "GET /repos/{owner}/{repo}/pulls": 1,
  "GET /repos/{owner}/{repo}/labels": 1,
  "POST /repos/{owner}/{repo}/labels": 1,
  "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/labels": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
};
/**
 * Two due claims with a branch: each 4 reads (issue, comments, open pull requests, branch); the
 * permission of the author of the PR from one's branch (it counts only when its author can write);
 * the config once; the reap of the other.
 */
const SWEEP_REQUESTS: Record<string, number> = {
  "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": 1,
  "GET /repos/{owner}/{repo}/raw/{filepath}": 2,
  "GET /repos/{owner}/{repo}/issues/{index}": 3,
  "GET /repos/{owner}/{repo}/issues/{index}/comments": 2,
  "GET /repos/{owner}/{repo}/pulls": 2,
  "GET /repos/{owner}/{repo}/branches/{branch}": 2,
  "PATCH /repos/{owner}/{repo}/issues/{index}": 1,
  "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}": 1,
  "PATCH /repos/{owner}/{repo}/issues/comments/{id}": 1,
  "POST /repos/{owner}/{repo}/issues/{index}/comments": 1,
};
