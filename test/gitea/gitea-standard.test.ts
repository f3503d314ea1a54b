// Gitea held to GitHub's standard end to end (issue 27): no duplicate pickup, generations never reused, humans never touched, store loss recovered from the bot's sealed markers; on the Gitea simulator and a real Redis.
// A superseded holder's PR red on Gitea: test/gitea/gitea-fence.test.ts ("red again after /reclaim").
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ClaimHoldClient,
  createClaimHoldClient,
  isClaimHoldError,
} from "../../src/agent/client/index.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";
import { deleteKeysWithPrefix, probeRedis, uniqueKeyPrefix } from "../support/redis.js";
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
const hour = 3_600_000;

function claimMarkersIn(issue: SimIssue): { generation: number; state: string }[] {
  return issue.comments
    .filter((comment) => comment.author === botLogin)
    .flatMap((comment) => {
      const match = /<!-- claim-hold:v1 (\{.*\}) -->/.exec(comment.body);
      if (!match) return [];
      const marker = JSON.parse(match[1]!) as { generation: number; state: string };
      return [{ generation: marker.generation, state: marker.state }];
    });
}

const refusal = (error: unknown) =>
  isClaimHoldError(error) ? { status: error.status, code: error.code } : Promise.reject(error);

describe.skipIf(!redisProbe.available)("Gitea held to the same standard, on Redis", () => {
  const clock = { now: Date.parse("2026-12-02T10:00:00Z") };
  const keyPrefix = uniqueKeyPrefix("gitea-standard");
  let gitea: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;
  let issue: SimIssue;
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
  const labelsOf = (subject: SimIssue) =>
    subject.labelIds.map((id) => gitea.repo.labels.find((label) => label.id === id)?.name);
  const keyOf = (subject: SimIssue) => ({
    installationId: giteaInstallation,
    repoId: gitea.repo.id,
    issue: subject.number,
  });

  beforeAll(async () => {
    gitea = await startGiteaSimFixture(clock);
    stack = await startLocalStack({
      redis: { kind: "shared", keyPrefix },
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
  });
  afterAll(async () => {
    await stack?.stop();
    await gitea?.sim.close();
  });
  beforeEach(() => {
    issue = gitea.sim.state.addIssue(gitea.repo, { title: "Shared task", author: "maintainer" });
  });

  it("no duplicate pickup: 12 sessions claim one Gitea issue at once, exactly one wins, one assignment, one claim comment", async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        agent()
          .claim({ repo, issue: issue.number, actor: { runtime: "claude-code", sessionId: `race-${n}` } })
          .then((claimed) => ({ status: 201, generation: claimed.lease.generation }), refusal),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toEqual([{ status: 201, generation: 1 }]);
    expect(answers.filter((answer) => answer.status !== 201)).toEqual(
      Array.from({ length: 11 }, () => ({ status: 409, code: "held" })),
    );
    expect(issue.assignees).toEqual(["fleet-bot"]);
    expect(labelsOf(issue)).toEqual(["agent:claimed"]);
    expect(claimMarkersIn(issue)).toEqual([{ generation: 1, state: "active" }]);
    expect(await stack.stores.claims.get(keyOf(issue))).toMatchObject({ generation: 1, state: "active" });
  });

  it("generations never reused: claim, release, claim, reap, claim — each a new generation, every marker's its own", async () => {
    const first = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "codex", sessionId: "g-1" },
    });
    await agent().release(first.lease, { outcome: "abandoned" });
    const second = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "codex", sessionId: "g-2" },
    });
    // Silent far past reclaimAfter: the janitor reaps it on Gitea, spending its generation.
    stack.app.clock.now += 24 * hour;
    const report = await stack.app.services.janitor.sweep();
    expect(report.actions).toContainEqual(
      expect.objectContaining({ subject: `${repo}#${issue.number}`, action: "reap" }),
    );
    await expect(agent().heartbeat(second.lease)).rejects.toMatchObject({ status: 410 });
    const third = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "codex", sessionId: "g-3" },
    });
    const generations = [first, second, third].map((claimed) => claimed.lease.generation);
    expect(generations).toEqual([1, 2, 4]);
    expect(claimMarkersIn(issue)).toEqual([
      { generation: 1, state: "released" },
      { generation: 2, state: "reaped" },
      { generation: 4, state: "active" },
    ]);
    // The old leases stay dead: each is told a newer generation holds the issue.
    for (const old of [first, second]) {
      expect(
        await agent()
          .heartbeat(old.lease)
          .then(() => null, refusal),
      ).toEqual({
        status: 409,
        code: "superseded",
      });
    }
    await agent().release(third.lease, { outcome: "abandoned" });
  });

  it("humans never touched: a person's Gitea issue is refused without a write, and no sweep unassigns the person", async () => {
    issue.assignees = ["maintainer"];
    const mark = gitea.sim.requests.length;
    const refused = await agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "claude-code", sessionId: "h-1" } })
      .then(() => null, refusal);
    expect(refused).toMatchObject({ status: 409, code: "human_held" });
    const writes = gitea.sim.routesSince(mark).filter((route) => !route.startsWith("GET "));
    expect(writes).toEqual([]);

    stack.app.clock.now += 48 * hour;
    const sweepMark = gitea.sim.requests.length;
    await stack.app.services.janitor.sweep({ reconcile: true });
    await stack.app.services.janitor.sweep();
    // The reconcile read the Gitea issues and wrote nothing to the person's issue.
    const swept = gitea.sim.routesSince(sweepMark);
    expect(swept).toContain("GET /repos/{owner}/{repo}/issues");
    expect(swept.filter((route) => !route.startsWith("GET "))).toEqual([]);
    expect(issue.assignees).toEqual(["maintainer"]);
    expect(labelsOf(issue)).toEqual([]);
    expect(issue.comments.filter((comment) => comment.author === botLogin)).toEqual([]);
  });

  it("store loss: the App's Redis keys are gone, the holder's heartbeat restores its Gitea claim from the bot's sealed marker, generations go on", async () => {
    const holder = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "pi", sessionId: "sl-1" },
    });
    stack.app.clock.now += 20_000;
    await agent().heartbeat(holder.lease);

    // Only this App's keys: the shared Redis serves other tests.
    await deleteKeysWithPrefix(stack.redis!.client, keyPrefix);
    expect(await stack.stores.claims.get(keyOf(issue))).toBeNull();

    const mark = gitea.sim.requests.length;
    expect(await agent().heartbeat(holder.lease)).toMatchObject({ generation: 1, state: "active" });
    // The repository by id, then the issue and its comments, where the bot's marker names the token's digest, and the open PRs.
    expect(gitea.sim.routesSince(mark).filter((route) => !route.startsWith("GET /user"))).toEqual([
      "GET /repositories/{id}",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/issues/{index}/comments",
      "GET /repos/{owner}/{repo}/pulls",
    ]);
    expect(await agent().verify(holder.lease)).toMatchObject({ holder: true, generation: 1 });
    expect(await stack.stores.claims.get(keyOf(issue))).toMatchObject({
      generation: 1,
      state: "active",
      actor: { login: "fleet-bot" },
    });
    expect(issue.assignees).toEqual(["fleet-bot"]);

    // Another session is still refused, and the next generation after the restored one is 2, never 1 again.
    const refused = await agent()
      .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: "sl-2" } })
      .then(() => null, refusal);
    expect(refused).toEqual({ status: 409, code: "held" });
    await agent().release(holder.lease, { outcome: "handoff" });
    const next = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "codex", sessionId: "sl-3" },
    });
    expect(next.lease.generation).toBe(2);
    await agent().release(next.lease, { outcome: "abandoned" });
  });

  it("store loss while a person unassigns the agent: the heartbeat reads the issue's timeline, finds the person's act and restores the claim revoked, never live", async () => {
    const holder = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "pi", sessionId: "sl-5" },
    });
    await deleteKeysWithPrefix(stack.redis!.client, keyPrefix);
    gitea.sim.people.unassign({ repo, issue: issue.number, login: "maintainer", assignees: ["fleet-bot"] });
    stack.app.clock.now += 20_000;

    const mark = gitea.sim.requests.length;
    const refused = await agent()
      .heartbeat(holder.lease)
      .then(() => null, refusal);
    expect(refused).toEqual({ status: 410, code: "gone" });
    // The issue shows no App-made assignee where its marker says one: the timeline, to its empty page.
    expect(gitea.sim.routesSince(mark).filter((route) => !route.startsWith("GET /user"))).toEqual([
      "GET /repositories/{id}",
      "GET /repos/{owner}/{repo}/issues/{index}",
      "GET /repos/{owner}/{repo}/issues/{index}/comments",
      "GET /repos/{owner}/{repo}/pulls",
      "GET /repos/{owner}/{repo}/issues/{index}/timeline",
      "GET /repos/{owner}/{repo}/issues/{index}/timeline",
    ]);
    expect(await stack.stores.claims.get(keyOf(issue))).toMatchObject({
      generation: 2,
      state: "revoked",
      actor: { login: "fleet-bot" },
    });
    expect(
      await agent()
        .verify(holder.lease)
        .then(() => null, refusal),
    ).toEqual({ status: 410, code: "gone" });
  });

  it("store loss after the App itself took the assignee off (no person's act): the timeline says so and the claim comes back live", async () => {
    const holder = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "pi", sessionId: "sl-6" },
    });
    await deleteKeysWithPrefix(stack.redis!.client, keyPrefix);
    // A late write of the App's own bot account, as an older generation's cleanup would make it.
    gitea.sim.people.unassign({ repo, issue: issue.number, login: botLogin, assignees: ["fleet-bot"] });
    stack.app.clock.now += 20_000;

    const mark = gitea.sim.requests.length;
    expect(await agent().heartbeat(holder.lease)).toMatchObject({ generation: 1, state: "active" });
    expect(gitea.sim.routesSince(mark).filter((route) => route.endsWith("/timeline"))).toHaveLength(2);
    expect(await stack.stores.claims.get(keyOf(issue))).toMatchObject({
      generation: 1,
      state: "active",
      actor: { login: "fleet-bot" },
    });
    await agent().release(holder.lease, { outcome: "abandoned" });
  });

  it("store loss: the next sweep lists the Gitea instance's record, rebuilds a silent claim from its marker and reaps nothing", async () => {
    const silent = await agent().claim({
      repo,
      issue: issue.number,
      actor: { runtime: "codex", sessionId: "sl-4" },
    });
    await deleteKeysWithPrefix(stack.redis!.client, keyPrefix);
    expect(await stack.stores.installations.installations()).toEqual([]);
    stack.app.clock.now += 20_000;

    // Not a reconcile pass: the store's empty set is a loss, so the list is read and the Gitea record reconciled.
    const mark = gitea.sim.requests.length;
    const report = await stack.app.services.janitor.sweep();
    expect(report).toMatchObject({ installations: 1, reconciled: true });
    expect(report.actions.filter((action) => action.action === "reap")).toEqual([]);
    expect(gitea.sim.routesSince(mark)).toContain("GET /repos/{owner}/{repo}/issues");
    expect(await stack.stores.installations.installations()).toEqual([giteaInstallation]);
    expect(await stack.stores.claims.get(keyOf(issue))).toMatchObject({
      generation: 1,
      state: "active",
      actor: { login: "fleet-bot" },
    });
    expect(issue.assignees).toEqual(["fleet-bot"]);
    expect(labelsOf(issue)).toEqual(["agent:claimed"]);
    // Its lease answers again, from the rebuilt record.
    expect(await agent().verify(silent.lease)).toMatchObject({ holder: true, generation: 1 });
    await agent().release(silent.lease, { outcome: "abandoned" });
  });
});
