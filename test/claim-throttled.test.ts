// A claim with the App's production throttling on the simulator: still one read and one mutation, and only the mutation waits for the write limiter.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentClient, repo } from "./faults/support/world.js";
import { startThrottledStack, type ThrottledStack } from "./support/throttled-stack.js";

describe("a claim with production throttling", () => {
  let throttled: ThrottledStack;
  let stack: ThrottledStack["stack"];

  beforeAll(async () => {
    throttled = await startThrottledStack();
    stack = throttled.stack;
  });
  afterAll(() => stack?.stop());

  it("costs its two GitHub requests, of which only the mutation waits for the write limiter", async () => {
    const { sim, app } = stack;
    const client = agentClient(app.url);
    // The first claim warms the caches (installation token, the caller's identity and permission).
    await client.claim({ repo, issue: 1, actor: { sessionId: "warm-up" } });

    const mark = sim.requests.mark();
    const waitedBefore = throttled.waitedForWrites();
    const claimed = await client.claim({ repo, issue: 2, actor: { sessionId: "s2" } });
    expect(claimed).toMatchObject({ created: true, lease: { subject: `${repo}#2` } });
    expect(sim.requests.counts(mark)).toEqual({ "graphql:SubjectStatus": 1, "graphql:ApplyTransition": 1 });
    expect(sim.requests.since(mark).map((request) => request.operationType)).toEqual(["query", "mutation"]);
    expect(throttled.waitedForWrites() - waitedBefore).toBe(1);
  });
});
