// A claim with the App's production throttling on the simulator: still one read and one mutation, and only the mutation waits for the write limiter.
import { randomBytes } from "node:crypto";
import Bottleneck from "bottleneck";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { createClaimHoldOctokit } from "../src/providers/github/claim-hold-octokit.js";
import { type LocalStack, startLocalStack } from "../tools/local-stack/start-local-stack.js";
import { type StackApp, startStackApp } from "../tools/local-stack/start-stack-app.js";
import { agentClient, repo, seedWorld } from "./faults/support/world.js";
import { testCredentials } from "./support/app-harness.js";

describe("a claim with production throttling", () => {
  /**
   * The throttling plugin's own write limiter, built as the plugin builds it (one job at a time, 1 s
   * apart, per installation) and handed in through its `throttle.write` option, so the test sees
   * every request that waits on it.
   */
  const writeLimiter = new Bottleneck.Group({ id: "octokit-write", maxConcurrent: 1, minTime: 1_000 });
  let waitedForWrites = 0;
  writeLimiter.on("created", (limiter: Bottleneck) => limiter.on("received", () => waitedForWrites++));
  let stack: LocalStack<StackApp>;

  beforeAll(async () => {
    stack = await startLocalStack({
      credentials: testCredentials(),
      startApp: (wiring) =>
        startStackApp({
          ...wiring,
          log: createLogger({ level: "silent" }),
          Octokit: createClaimHoldOctokit({ throttle: { write: writeLimiter } }),
          app: {
            tokenSecret: randomBytes(32).toString("hex"),
            credentialsLoaded: true,
            disabledJobs: ["janitor"],
          },
        }),
    });
    seedWorld(stack.sim);
    await stack.sim.flush();
  });
  afterAll(() => stack?.stop());

  it("costs its two GitHub requests, of which only the mutation waits for the write limiter", async () => {
    const { sim, app } = stack;
    const client = agentClient(app.url);
    // The first claim warms the caches (installation token, the caller's identity and permission).
    await client.claim({ repo, issue: 1, actor: { sessionId: "warm-up" } });

    const mark = sim.requests.mark();
    const waitedBefore = waitedForWrites;
    const claimed = await client.claim({ repo, issue: 2, actor: { sessionId: "s2" } });
    expect(claimed).toMatchObject({ created: true, lease: { subject: `${repo}#2` } });
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 1, "graphql:ApplyTransition": 1 });
    expect(sim.requests.since(mark).map((request) => request.operationType)).toEqual(["query", "mutation"]);
    expect(waitedForWrites - waitedBefore).toBe(1);
  });
});
