// planIssueWrites: what a transition changes on a Gitea issue as it stands, by table.
import { describe, expect, it } from "vitest";
import { type IssueWritePlan, planIssueWrites } from "../../src/providers/gitea/plan-issue-writes.js";

const user = (login: string, id = 1) => ({ login, id });
const claimed = { id: 11, name: "agent:claimed" };
const stale = { id: 12, name: "agent:stale" };

type Case = [
  string,
  Parameters<typeof planIssueWrites>[0],
  Parameters<typeof planIssueWrites>[1],
  IssueWritePlan,
];
const table: Case[] = [
  [
    "a claim on a bare issue",
    { assignees: null, labels: null },
    { assign: ["fleet-bot"], addLabels: ["agent:claimed"], removeLabels: ["agent:stale"] },
    { assignees: ["fleet-bot"], addLabels: ["agent:claimed"], removeLabelIds: [] },
  ],
  [
    "a claim the issue already shows (logins and names compare case-insensitively)",
    { assignees: [user("Fleet-Bot")], labels: [{ id: 11, name: "Agent:Claimed" }] },
    { assign: ["fleet-bot"], addLabels: ["agent:claimed"], removeLabels: ["agent:stale"] },
    { assignees: null, addLabels: [], removeLabelIds: [] },
  ],
  [
    "a person's assignment stays, first in the list",
    { assignees: [user("alice")], labels: [] },
    { assign: ["fleet-bot"] },
    { assignees: ["alice", "fleet-bot"], addLabels: [], removeLabelIds: [] },
  ],
  [
    "unassigning the App's agent keeps everyone else",
    { assignees: [user("alice"), user("fleet-bot"), user("bob")], labels: [claimed, stale] },
    { unassign: ["fleet-bot"], removeLabels: ["agent:claimed", "agent:stale"] },
    { assignees: ["alice", "bob"], addLabels: [], removeLabelIds: [11, 12] },
  ],
  [
    "unassigning someone not assigned changes nothing",
    { assignees: [user("alice")], labels: [] },
    { unassign: ["fleet-bot"], removeLabels: ["agent:claimed"] },
    { assignees: null, addLabels: [], removeLabelIds: [] },
  ],
  [
    "a label added twice is added once; one both added and removed is removed",
    { assignees: [], labels: [stale] },
    { addLabels: ["agent:claimed", "AGENT:claimed", "agent:stale"], removeLabels: ["agent:stale"] },
    { assignees: null, addLabels: ["agent:claimed"], removeLabelIds: [12] },
  ],
];

describe("planIssueWrites", () => {
  it.each(table)("%s", (_name, issue, write, expected) => {
    expect(planIssueWrites(issue, write)).toEqual(expected);
  });
});
