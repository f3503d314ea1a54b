// One Gitea instance, one cache of collaborator permissions: a login's permission read for a claim's caller is not read again as a closing pull request's author by the queue refresh, nor by the claim's subject read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";
import { agentToken, botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const appId = 1;
const permissionRoute = "GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission";

describe("the Gitea collaborator permission cache is one per instance", () => {
  const clock = { now: Date.parse("2026-12-03T10:00:00Z") };
  let gitea: GiteaSimFixture;
  let stack: LocalStack<AppHarness>;

  beforeAll(async () => {
    gitea = await startGiteaSimFixture(clock);
    stack = await startLocalStack({
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

  it("the agent's permission is read once across its claim (caller, PR author) and the queue refresh (PR author)", async () => {
    const { state } = gitea.sim;
    const task = state.addIssue(gitea.repo, { title: "Task", author: "maintainer" });
    const other = state.addIssue(gitea.repo, { title: "Other task", author: "maintainer" });
    // The agent's open pull request closes the other issue: its author's standing counts for the queue.
    state.addPullRequest(gitea.repo, {
      title: "Other work",
      author: "fleet-bot",
      body: `Closes #${other.number}`,
      headRef: "agent/s0/other",
    });
    const agent = createClaimHoldClient({
      baseUrl: stack.app.url,
      githubToken: agentToken,
      forge: "gitea",
      retries: 0,
      sleep: async (ms) => {
        stack.app.clock.now += ms;
      },
    });
    const mark = gitea.sim.requests.length;
    await agent.claim({
      repo: "octo/widgets",
      issue: task.number,
      actor: { runtime: "codex", sessionId: "s1" },
    });
    const view = await agent.queue("octo/widgets");
    expect(view.skipped).toContainEqual(expect.objectContaining({ issue: other.number }));
    const reads = gitea.sim.requests
      .slice(mark)
      .filter((request) => request.route === permissionRoute)
      .map((request) => request.path);
    expect(reads).toEqual(["/repos/octo/widgets/collaborators/fleet-bot/permission"]);
  });
});
