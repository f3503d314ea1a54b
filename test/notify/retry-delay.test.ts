// The outbox's retry schedule: exponential backoff from the base, capped, and a last try after which the delivery is dropped.
import { describe, expect, it } from "vitest";
import { defaultRetryPolicy, retryDelayMs } from "../../src/notify/retry-delay.js";

describe("retryDelayMs", () => {
  it.each([
    [1, 5_000],
    [2, 10_000],
    [3, 20_000],
    [4, 40_000],
    [7, 320_000],
    [8, null],
    [9, null],
  ])("after failed try %i of the default policy waits %s ms", (attempt, wait) => {
    expect(retryDelayMs(attempt, defaultRetryPolicy)).toBe(wait);
  });

  it("never waits longer than the cap", () => {
    const policy = { maxAttempts: 30, baseDelayMs: 1_000, maxDelayMs: 60_000 };
    expect(retryDelayMs(6, policy)).toBe(32_000);
    expect(retryDelayMs(7, policy)).toBe(60_000);
    expect(retryDelayMs(29, policy)).toBe(60_000);
    expect(retryDelayMs(30, policy)).toBeNull();
  });
});
