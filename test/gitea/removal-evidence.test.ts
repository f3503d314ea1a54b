// inferRemovals: what a person took off, from a delivery's lists as they now are and what the App showed — a table of senders × label states.
import { describe, expect, it } from "vitest";
import type { ClaimRecord } from "../../src/domain/claim.js";
import {
  type ChangeSender,
  confirmRemovals,
  type InferredRemoval,
  inferRemovals,
  removalsOnceWritten,
  type ShownByApp,
} from "../../src/handlers/removal-evidence.js";
import { authorDurations } from "../support/seed-claims.js";

const labels = { claimed: "agent:claimed", stale: "agent:stale", needsHuman: "agent:needs-human" };

const live: ClaimRecord = {
  installationId: 1,
  repoId: 7,
  issue: 3,
  repo: "octo/widgets",
  generation: 4,
  state: "active",
  actor: { kind: "agent", login: "fleet-bot" },
  taskClass: "author",
  durations: authorDurations,
  claimedAt: 0,
  lastHeartbeatAt: 0,
  tokenDigest: "d",
  appAssigned: true,
  assigneeNodeId: "fleet-bot",
  sync: "done",
};

const shown = (over: Partial<ShownByApp> = {}): ShownByApp => ({
  record: live,
  tripShown: false,
  askShown: false,
  ...over,
});
const claimedGone: InferredRemoval = { kind: "label", name: "agent:claimed" };
const needsHumanGone: InferredRemoval = { kind: "label", name: "agent:needs-human" };

describe("inferRemovals: labels (label_updated, label_cleared)", () => {
  const rows: [string, ChangeSender, string[], ShownByApp, InferredRemoval[]][] = [
    ["a person took the claimed label off", "person", ["bug"], shown(), [claimedGone]],
    ["a person cleared every label", "person", [], shown(), [claimedGone]],
    ["the claimed label is still on (another label edited)", "person", ["agent:claimed"], shown(), []],
    ["label names compare case-insensitively", "person", ["Agent:Claimed"], shown(), []],
    ["the App's own account", "app", [], shown(), []],
    ["an agent account", "fleet", [], shown(), []],
    [
      "the claim's write has not landed (sync pending): another label's edit is no evidence",
      "person",
      ["bug"],
      shown({ record: { ...live, sync: "pending" } }),
      [],
    ],
    [
      "a stale claim shows agent:stale, not the claimed label",
      "person",
      ["agent:stale"],
      shown({ record: { ...live, staleMarkedAt: 5 } }),
      [],
    ],
    [
      "a stale claim's label taken off: GitHub revokes only for the claimed label",
      "person",
      [],
      shown({ record: { ...live, staleMarkedAt: 5 } }),
      [],
    ],
    [
      "a stale mark being lifted: agent:stale still on, agent:claimed not yet",
      "person",
      ["agent:stale", "bug"],
      shown(),
      [],
    ],
    ["a human claim", "person", [], shown({ record: { ...live, actor: { kind: "human", login: "m" } } }), []],
    ["an ended claim", "person", [], shown({ record: { ...live, state: "revoked" } }), []],
    ["no record", "person", [], shown({ record: null }), []],
    [
      "the breaker's trip shown, a person took needs-human off",
      "person",
      ["agent:claimed"],
      shown({ tripShown: true }),
      [needsHumanGone],
    ],
    [
      "the breaker's trip shown, an agent account took needs-human off",
      "fleet",
      ["agent:claimed"],
      shown({ tripShown: true }),
      [],
    ],
    [
      "the breaker's trip not written yet: needs-human missing is no evidence",
      "person",
      ["agent:claimed"],
      shown(),
      [],
    ],
    [
      "the holder's ask shown, a person took needs-human off",
      "person",
      ["agent:claimed"],
      shown({ askShown: true }),
      [needsHumanGone],
    ],
    [
      "needs-human still on",
      "person",
      ["agent:claimed", "agent:needs-human"],
      shown({ tripShown: true, askShown: true }),
      [],
    ],
    [
      "both taken off at once (label_cleared)",
      "person",
      [],
      shown({ askShown: true }),
      [claimedGone, needsHumanGone],
    ],
  ];
  it.each(rows)("%s", (_name, sender, now, shownByApp, expected) => {
    expect(inferRemovals({ sender, changed: "labels", now, shown: shownByApp, labels })).toEqual(expected);
  });
});

describe("inferRemovals: assignees (unassigned)", () => {
  const gone: InferredRemoval = { kind: "assignee", login: "fleet-bot" };
  const rows: [string, ChangeSender, string[], ShownByApp, InferredRemoval[]][] = [
    ["a person unassigned the agent", "person", [], shown(), [gone]],
    ["a person unassigned someone else", "person", ["Fleet-Bot"], shown(), []],
    ["the App's own account", "app", [], shown(), []],
    ["an agent account", "fleet", [], shown(), []],
    [
      "the App did not make the assignment",
      "person",
      [],
      shown({ record: { ...live, appAssigned: false } }),
      [],
    ],
    [
      "the assignment's write has not landed",
      "person",
      [],
      shown({ record: { ...live, sync: "pending" } }),
      [],
    ],
    ["labels are not judged on an unassignment", "person", [], shown({ tripShown: true }), [gone]],
  ];
  it.each(rows)("%s", (_name, sender, now, shownByApp, expected) => {
    expect(inferRemovals({ sender, changed: "assignees", now, shown: shownByApp, labels })).toEqual(expected);
  });
});

describe("confirmRemovals: what the delivery names, against the issue as the forge answers it now", () => {
  const both = shown({ askShown: true });
  const person = (changed: "labels" | "assignees", now: string[], over = both) => ({
    sender: "person" as const,
    changed,
    now,
    shown: over,
    labels,
  });
  const rows: [
    string,
    ReturnType<typeof person>,
    { labels: string[]; assignees: string[] },
    InferredRemoval[],
  ][] = [
    [
      "the label is still off now: the removal stands",
      person("labels", []),
      { labels: [], assignees: ["fleet-bot"] },
      [claimedGone, needsHumanGone],
    ],
    [
      "a late delivery: both labels are back on now",
      person("labels", []),
      { labels: ["agent:claimed", "agent:needs-human"], assignees: ["fleet-bot"] },
      [],
    ],
    [
      "only the needs-human label is still off now",
      person("labels", []),
      { labels: ["Agent:Claimed"], assignees: [] },
      [needsHumanGone],
    ],
    [
      "the claim was marked stale since: the stale label now stands for it",
      person("labels", [], shown()),
      { labels: ["agent:stale"], assignees: ["fleet-bot"] },
      [],
    ],
    [
      "nothing removed by the delivery: Gitea's lacking label is no removal of this delivery's",
      person("labels", ["agent:claimed", "bug"], shown()),
      { labels: [], assignees: [] },
      [],
    ],
    [
      "an unassignment replayed while the agent is assigned again",
      person("assignees", [], shown()),
      { labels: ["agent:claimed"], assignees: ["Fleet-Bot"] },
      [],
    ],
    [
      "an unassignment that still stands",
      person("assignees", ["maintainer"], shown()),
      { labels: ["agent:claimed"], assignees: ["maintainer"] },
      [{ kind: "assignee", login: "fleet-bot" }],
    ],
    [
      "a fleet account's delivery: nothing, whatever Gitea shows",
      { ...person("labels", [], shown()), sender: "fleet" as never },
      { labels: [], assignees: [] },
      [],
    ],
  ];
  it.each(rows)("%s", (_name, evidence, current, expected) => {
    expect(confirmRemovals(evidence, current)).toEqual(expected);
  });
});

describe("removalsOnceWritten: a person's change delivered while the claim's write is on its way", () => {
  const pending: ClaimRecord = { ...live, sync: "pending" };
  const fleetGone: InferredRemoval = { kind: "assignee", login: "fleet-bot" };
  const rows: [string, ChangeSender, readonly string[], ClaimRecord | null, InferredRemoval[]][] = [
    ["write in flight, the agent not listed: decided once it lands", "person", [], pending, [fleetGone]],
    ["write in flight, the agent still listed: nothing to wait for", "person", ["fleet-bot"], pending, []],
    ["write in flight, an agent account's change: never evidence", "fleet", [], pending, []],
    ["no write in flight: inferRemovals decides now, nothing waits", "person", [], live, []],
    [
      "write in flight, the App did not assign: nothing it showed",
      "person",
      [],
      { ...pending, appAssigned: false },
      [],
    ],
    ["no record", "person", [], null, []],
  ];
  it.each(rows)("%s", (_name, sender, now, record, expected) => {
    const evidence = { sender, changed: "assignees" as const, now, shown: shown({ record }), labels };
    expect(removalsOnceWritten(evidence)).toEqual(expected);
    // While the write is in flight inferRemovals itself names nothing (the record is not `sync: done`).
    if (record?.sync === "pending") expect(inferRemovals(evidence)).toEqual([]);
  });
});
