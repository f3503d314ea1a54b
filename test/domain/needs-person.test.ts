// What needs a person on a subject (the dashboard's "clear needs-human" offers itself and refuses by it): a live holder's ask, a tripped failure breaker, both, a leftover label, or neither.
import { describe, expect, it } from "vitest";
import { defaultRepoConfig, type RepoConfig } from "../../src/config/repo-config.js";
import type { ClaimRecord } from "../../src/domain/claim.js";
import type { FailedAttempt } from "../../src/domain/failure-breaker.js";
import { needsPersonOf } from "../../src/handlers/operator-clear-needs-human.js";
import { agentClaimRecord } from "../support/claim-record.js";

const config: RepoConfig = {
  ...defaultRepoConfig,
  queue: { ...defaultRepoConfig.queue, maxFailures: 2, retryBackoff: 60_000 },
};
const now = 1_000_000;
const attempt = (endedAt: number): FailedAttempt => ({
  generation: 1,
  reason: "reaped",
  actor: { kind: "agent", login: "fleet-bot", sessionId: "s0" },
  claimedAt: 0,
  endedAt,
});
const asking = agentClaimRecord({ needsHuman: true, blocker: "which schema?" });

describe("needsPersonOf", () => {
  it.each<[string, ClaimRecord | null, FailedAttempt[], ReturnType<typeof needsPersonOf>]>([
    ["no record, no failure", null, [], null],
    ["a live claim that does not ask", agentClaimRecord(), [], null],
    [
      "a live holder's ask",
      asking,
      [],
      {
        ask: { holder: "fleet-bot", blocker: "which schema?" },
        trippedFailures: null,
        failures: 0,
        leftoverLabel: false,
      },
    ],
    [
      "an ask without a blocker (restored from a label)",
      agentClaimRecord({ needsHuman: true }),
      [],
      {
        ask: { holder: "fleet-bot", blocker: null },
        trippedFailures: null,
        failures: 0,
        leftoverLabel: false,
      },
    ],
    [
      "an ended claim's leftover flag asks nothing",
      agentClaimRecord({ state: "released", needsHuman: true }),
      [],
      null,
    ],
    ["one failure, backing off: not tripped", agentClaimRecord({ state: "reaped" }), [attempt(now)], null],
    [
      "an ask with one failure, not tripped: the failure counted all the same (a clear forgets it)",
      asking,
      [attempt(now)],
      {
        ask: { holder: "fleet-bot", blocker: "which schema?" },
        trippedFailures: null,
        failures: 1,
        leftoverLabel: false,
      },
    ],
    [
      "maxFailures failures: tripped",
      agentClaimRecord({ state: "reaped" }),
      [attempt(0), attempt(now)],
      { ask: null, trippedFailures: 2, failures: 2, leftoverLabel: false },
    ],
    [
      "an ask on an overridden claim of a tripped subject: both",
      asking,
      [attempt(0), attempt(1)],
      {
        ask: { holder: "fleet-bot", blocker: "which schema?" },
        trippedFailures: 2,
        failures: 2,
        leftoverLabel: false,
      },
    ],
  ])("%s", (_, record, attempts, expected) => {
    expect(needsPersonOf(record, attempts, config, now)).toStrictEqual(expected);
  });

  // The issue shows the needs-human label (a clear whose GitHub write failed leaves it behind).
  it.each<[string, ClaimRecord | null, FailedAttempt[], ReturnType<typeof needsPersonOf>]>([
    ["no record: nothing to fence a write by", null, [], null],
    [
      "an ended claim, nothing tripped: the label is a leftover",
      agentClaimRecord({ state: "released" }),
      [],
      { ask: null, trippedFailures: null, failures: 0, leftoverLabel: true },
    ],
    [
      "a live claim that does not ask: a leftover",
      agentClaimRecord(),
      [attempt(now)],
      { ask: null, trippedFailures: null, failures: 1, leftoverLabel: true },
    ],
    [
      "the App's ask on a stall shows it: cleared like the holder's ask, not a leftover",
      agentClaimRecord({ stallAsk: true }),
      [],
      {
        ask: { holder: "fleet-bot", blocker: "stalled (the App asked on its behalf)" },
        trippedFailures: null,
        failures: 0,
        leftoverLabel: false,
      },
    ],
    [
      "a holder's ask shows it: not a leftover",
      asking,
      [],
      {
        ask: { holder: "fleet-bot", blocker: "which schema?" },
        trippedFailures: null,
        failures: 0,
        leftoverLabel: false,
      },
    ],
    [
      "a tripped breaker shows it: not a leftover",
      agentClaimRecord({ state: "reaped" }),
      [attempt(0), attempt(now)],
      { ask: null, trippedFailures: 2, failures: 2, leftoverLabel: false },
    ],
  ])("label shown: %s", (_, record, attempts, expected) => {
    expect(needsPersonOf(record, attempts, config, now, true)).toStrictEqual(expected);
  });
});
