// Which notifications a transition makes: one row per event, read as a table.
import { describe, expect, it } from "vitest";
import { defaultRepoConfig } from "../../src/config/repo-config.js";
import type { ChangeCause, ClaimChange } from "../../src/domain/claim-change.js";
import { notificationsFor } from "../../src/notify/notifications-for.js";
import { agentClaimRecord } from "../support/claim-record.js";

const agentLive = agentClaimRecord({ sync: "done" });
const humanLive = agentClaimRecord({ actor: { kind: "human", login: "alice" }, state: "human" });
const next = agentClaimRecord({
  generation: 4,
  actor: { kind: "agent", login: "fleet-bot", sessionId: "s2" },
});

function change(cause: ChangeCause, previous: ClaimChange["previous"], extra: Partial<ClaimChange> = {}) {
  return { cause, at: 1_000, record: next, previous, ...extra };
}

describe("notificationsFor", () => {
  it.each<[string, ClaimChange, string[]]>([
    ["a claim over an agent's live claim is a takeover", change("claimed", agentLive), ["takeover"]],
    ["a claim over a person's claim is no takeover", change("claimed", humanLive), []],
    ["a claim of a free subject says nothing", change("claimed", null), []],
    ["a claim over an ended claim says nothing", change("claimed", { ...agentLive, state: "reaped" }), []],
    ["a re-claim by the same holder says nothing", change("token-rotated", agentLive), []],
    [
      "a stale mark is stale",
      change("stale", null, { record: { ...agentLive, staleMarkedAt: 900 } }),
      ["stale"],
    ],
    ["a reap is reaped", change("reaped", agentLive), ["reaped"]],
    [
      "an over-budget end is budget-exhausted",
      change("budget-exhausted", agentLive, { spend: { spentUsd: 11, limitUsd: 10 } }),
      ["budget-exhausted"],
    ],
    ["a revocation says nothing", change("revoked", agentLive), []],
    ["a release says nothing", change("released", null), []],
    ["a completion says nothing", change("completed", agentLive), []],
  ])("%s", (_name, input, events) => {
    expect(notificationsFor(input, defaultRepoConfig).map((n) => n.event)).toEqual(events);
  });

  it("names each occurrence so a redelivery queues nothing more", () => {
    const [stale] = notificationsFor(
      change("stale", null, { record: { ...agentLive, staleMarkedAt: 900 } }),
      defaultRepoConfig,
    );
    expect(stale?.key).toBe("stale:1:7:12:3:900");
    const [takeover] = notificationsFor(change("claimed", agentLive), defaultRepoConfig);
    expect(takeover).toMatchObject({
      key: "takeover:1:7:12:4",
      data: { previousGeneration: 3, generation: 4 },
    });
  });
});
