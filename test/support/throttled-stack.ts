// The local stack with the App's production throttling, whose write limiter the test can watch.
import { randomBytes } from "node:crypto";
import Bottleneck from "bottleneck";
import { createLogger } from "../../src/logger.js";
import { createClaimHoldOctokit } from "../../src/providers/github/claim-hold-octokit.js";
import { type LocalStack, startLocalStack } from "../../tools/local-stack/start-local-stack.js";
import { type StackApp, startStackApp } from "../../tools/local-stack/start-stack-app.js";
import { seedWorld } from "../faults/support/world.js";
import { testCredentials } from "./app-harness.js";

export interface ThrottledStack {
  stack: LocalStack<StackApp>;
  /** Requests that have waited on the write limiter so far. */
  waitedForWrites(): number;
}

/**
 * Starts App + simulator + store with the throttling plugin's own write limiter, built as the plugin
 * builds it (one job at a time, 1 s apart, per installation) and handed in through its `throttle.write`
 * option, so the test sees every request that waits on it; the world is seeded with `issues` issues.
 */
export async function startThrottledStack(issues?: number): Promise<ThrottledStack> {
  const writeLimiter = new Bottleneck.Group({ id: "octokit-write", maxConcurrent: 1, minTime: 1_000 });
  let waited = 0;
  writeLimiter.on("created", (limiter: Bottleneck) => limiter.on("received", () => waited++));
  const stack = await startLocalStack({
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
          coalesceWrites: true,
        },
      }),
  });
  seedWorld(stack.sim, ...(issues === undefined ? [] : [issues]));
  await stack.sim.flush();
  return { stack, waitedForWrites: () => waited };
}
