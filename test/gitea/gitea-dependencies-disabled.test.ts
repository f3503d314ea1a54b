// A Gitea repository with "Enable dependencies" off (its dependency routes answer 404): its issues are picked by claims/next and claimed directly, through the App.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaimHoldClient } from "../../src/agent/client/index.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type AppHarness, startApp, testCredentials } from "../support/app-harness.js";
import { agentToken, botToken, type GiteaSimFixture, startGiteaSimFixture } from "./sim-fixture.js";

const appId = 1;
const dependencyRoute = "GET /repos/{owner}/{repo}/issues/{index}/dependencies";

describe("a Gitea repository with dependencies disabled", () => {
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

  it("claims/next picks its oldest issue and a direct claim of another succeeds: a 404 from the dependency routes is no blocker", async () => {
    const { state } = gitea.sim;
    gitea.repo.dependenciesEnabled = false;
    const first = state.addIssue(gitea.repo, { title: "First", author: "maintainer" });
    clock.now += 60_000;
    const second = state.addIssue(gitea.repo, { title: "Second", author: "maintainer" });
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
    const picked = await agent.claimNext({
      repo: "octo/widgets",
      actor: { runtime: "codex", sessionId: "n1" },
    });
    expect(picked.picked).toMatchObject({ issue: first.number });
    const claimed = await agent.claim({
      repo: "octo/widgets",
      issue: second.number,
      actor: { runtime: "codex", sessionId: "n2" },
    });
    expect(claimed.lease.generation).toBe(1);
    expect(second.assignees).toEqual(["fleet-bot"]);
    // The refresh asked each open issue's dependencies once and was answered 404 each time.
    const dependencyReads = gitea.sim.requests
      .slice(mark)
      .filter((request) => request.route === dependencyRoute);
    expect(dependencyReads.map((request) => request.status)).toEqual([404, 404]);
  });
});
