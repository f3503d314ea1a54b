// A Gitea claim write that fails half-way, and whose undo fails too, leaves nothing reconcile cannot find: the refused generation stays as an ended record whose write is pending, and the reconcile takes the App-made assignee off.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClaimHoldClient, isClaimHoldError } from "../../src/agent/client/index.js";
import type { SimIssue } from "../../tools/gitea-sim/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";
import { probeRedis, uniqueKeyPrefix } from "../support/redis.js";
import {
  agentToken,
  botToken,
  type GiteaSimFixture,
  giteaInstallation,
  startGiteaSimFixture,
} from "./sim-fixture.js";

const redisProbe = await probeRedis();
const repo = "octo/widgets";
const appId = 1;

describe.skipIf(!redisProbe.available)(
  "a Gitea claim write that fails half-way, its undo failing too",
  () => {
    const clock = { now: Date.parse("2026-12-03T10:00:00Z") };
    const keyPrefix = uniqueKeyPrefix("gitea-partial-claim");
    let gitea: GiteaSimFixture;
    let stack: LocalStack<AppHarness>;
    let issue: SimIssue;
    const agent = () =>
      createClaimHoldClient({ baseUrl: stack.app.url, githubToken: agentToken, forge: "gitea", retries: 0 });
    const labelsOf = (subject: SimIssue) =>
      subject.labelIds.map((id) => gitea.repo.labels.find((label) => label.id === id)?.name);
    const writesSince = (mark: number) =>
      gitea.sim.requests
        .slice(mark)
        .filter((request) => request.method !== "GET")
        .map((request) => `${request.route} ${request.status}`);

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
            gitea: {
              url: gitea.sim.url,
              token: botToken,
              webhookSecret: "gitea-webhook-secret-for-tests",
              installationId: 1,
              writeSpacingMs: 0,
            },
          }),
      });
    });
    afterAll(async () => {
      await stack?.stop();
      await gitea?.sim.close();
    });
    beforeEach(async () => {
      // A first claim creates the repository's managed labels: the claim under test then makes no
      // label write of the repository's, its first write is on the issue.
      const first = gitea.sim.state.addIssue(gitea.repo, { title: "First", author: "maintainer" });
      const claimed = await agent().claim({
        repo,
        issue: first.number,
        actor: { runtime: "codex", sessionId: "first" },
      });
      await agent().release(claimed.lease, { outcome: "abandoned" });
      issue = gitea.sim.state.addIssue(gitea.repo, { title: "Half-written claim", author: "maintainer" });
    });

    it("the assignee write lands, the label write and the undo fail: the claim's generation stays as an ended record, and reconcile takes the assignee off", async () => {
      const mark = gitea.sim.requests.length;
      // The seeded fault schedule's shape (FAULT_SEED=931296277, iteration 32): one write goes through
      // (late), then Gitea answers 503 to the next two, the claim's second write and its undo.
      gitea.sim.fail({ writes: true, issue: issue.number, delayMs: 1 });
      gitea.sim.fail({ writes: true, issue: issue.number, status: 503, times: 2 });
      const refused = await agent()
        .claim({ repo, issue: issue.number, actor: { runtime: "codex", sessionId: "half-1" } })
        .then(
          () => null,
          (error: unknown) => (isClaimHoldError(error) ? { status: error.status, code: error.code } : error),
        );
      expect(refused).toEqual({ status: 502, code: "github_failed" });
      expect(writesSince(mark)).toEqual([
        "PATCH /repos/{owner}/{repo}/issues/{index} 201",
        "POST /repos/{owner}/{repo}/issues/{index}/labels 503",
        "PATCH /repos/{owner}/{repo}/issues/{index} 503",
      ]);
      // The App's assignment is left, with no label and no claim comment to find it by: the store
      // keeps the refused generation as ended, its write pending.
      expect({ assignees: issue.assignees, labels: labelsOf(issue) }).toEqual({
        assignees: ["fleet-bot"],
        labels: [],
      });
      const key = { installationId: giteaInstallation, repoId: gitea.repo.id, issue: issue.number };
      const leftover = await stack.stores.claims.get(key);
      // Whether the App's assignment landed is read when the write is retried (the issue's timeline).
      expect(leftover).toMatchObject({ state: "revoked", sync: "pending", appAssigned: false });

      gitea.sim.clearFaults();
      await stack.app.services.janitor.sweep({ reconcile: true });
      // The reconcile's pending retry took the App's assignment off and marked the record written.
      expect({ assignees: issue.assignees, labels: labelsOf(issue) }).toEqual({ assignees: [], labels: [] });
      expect(await stack.stores.claims.get(key)).toMatchObject({ state: "revoked", sync: "done" });

      // The issue is free again; the refused generation stays burnt.
      const claimed = await agent().claim({
        repo,
        issue: issue.number,
        actor: { runtime: "codex", sessionId: "half-2" },
      });
      expect(claimed).toMatchObject({ created: true, lease: { generation: leftover!.generation + 1 } });
      expect({ assignees: issue.assignees, labels: labelsOf(issue) }).toEqual({
        assignees: ["fleet-bot"],
        labels: ["agent:claimed"],
      });
      await agent().release(claimed.lease, { outcome: "abandoned" });
    });

    it.each([
      [422, null],
      [503, { state: "revoked", sync: "pending" }],
    ])(
      "an undo that is written after a %s: a refusal leaves no record; an unanswered write keeps the generation for the reconcile",
      async (status, kept) => {
        gitea.sim.fail({ writes: true, issue: issue.number, delayMs: 1 });
        gitea.sim.fail({ writes: true, issue: issue.number, status });
        await expect(
          agent().claim({
            repo,
            issue: issue.number,
            actor: { runtime: "codex", sessionId: `half-${status}` },
          }),
        ).rejects.toMatchObject({ status: 502, code: "github_failed" });
        expect({ assignees: issue.assignees, labels: labelsOf(issue) }).toEqual({
          assignees: [],
          labels: [],
        });
        const key = { installationId: giteaInstallation, repoId: gitea.repo.id, issue: issue.number };
        const record = await stack.stores.claims.get(key);
        if (kept === null) expect(record).toBeNull();
        else expect(record).toMatchObject(kept);
      },
    );
  },
);
