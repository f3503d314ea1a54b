// giteaSnapshotOf (pure): which claim markers a Gitea issue's comments give the lease core, by table.
import { describe, expect, it } from "vitest";
import { renderClaimComment, sealClaimComment } from "../../src/domain/claim-marker.js";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import type { GiteaIssueComment, GiteaIssueRead } from "../../src/providers/gitea/gitea-schemas.js";
import { giteaSnapshotOf } from "../../src/providers/gitea/gitea-subject-snapshot.js";
import { agentClaimRecord } from "../support/claim-record.js";

const seal = createMarkerSeal("gitea-snapshot-secret");
const bot = "claim-hold-bot";
const issue: GiteaIssueRead = {
  id: 9001,
  number: 12,
  title: "Fix the widget",
  state: "open",
  updated_at: "2026-12-01T10:00:00Z",
  comments: 3,
  pull_request: null,
  assignees: [{ id: 4, login: "fleet-bot" }],
  labels: [{ id: 11, name: "agent:claimed" }],
  repository: { id: 77, full_name: "octo/widgets-renamed" },
};
const marker = (generation: number, subject = "octo/widgets#12") =>
  sealClaimComment(
    renderClaimComment(
      agentClaimRecord({
        generation,
        repo: subject.split("#")[0] ?? "",
        issue: Number(subject.split("#")[1]),
      }),
      "active",
    ),
    seal,
  );
let nextId = 100;
const comment = (login: string, body: string): GiteaIssueComment => ({
  id: nextId++,
  body,
  user: { id: 1, login },
});

describe("giteaSnapshotOf", () => {
  it("shows the issue: repository id and current name, assignees by login, labels, updated time", () => {
    expect(giteaSnapshotOf(issue, [], { seal, botLogin: bot })).toEqual({
      repoId: 77,
      repo: "octo/widgets-renamed",
      issue: 12,
      nodeId: "9001",
      title: "Fix the widget",
      state: "open",
      assignees: [{ login: "fleet-bot", nodeId: "fleet-bot" }],
      labels: ["agent:claimed"],
      claimComments: [],
      rejectedMarkers: 0,
      rejectedAfterTrusted: 0,
      auditComments: 0,
      failureSummaries: [],
      markerSearch: "complete",
      openPullRequests: [],
      branchCommittedAt: null,
      updatedAt: Date.parse("2026-12-01T10:00:00Z"),
    });
  });

  it.each([
    ["the bot's signed marker: trusted, read under the current name", [comment(bot, marker(3))], [3], 0, 0],
    ["the bot's login in another case: still the bot", [comment("Claim-Hold-Bot", marker(3))], [3], 0, 0],
    ["a person's copy of a signed marker: not trusted, not counted", [comment("octo", marker(3))], [], 0, 0],
    [
      "another issue's marker (transferred here): skipped",
      [comment(bot, marker(3, "octo/widgets#13"))],
      [],
      0,
      0,
    ],
    [
      "a tampered marker after a trusted one: counted as after the latest trusted",
      [comment(bot, marker(3)), comment(bot, marker(4).replace('"generation":4', '"generation":5'))],
      [3],
      1,
      1,
    ],
    [
      "a trusted marker after a rejected one: resets what is after it",
      [comment(bot, "<!-- claim-hold:v1 {} -->"), comment(bot, marker(4))],
      [4],
      1,
      0,
    ],
    [
      "a comment without user (a deleted account): nobody's",
      [{ id: 1, body: marker(3), user: null }],
      [],
      0,
      0,
    ],
  ])("%s", (_, comments, generations, rejected, rejectedAfter) => {
    const snapshot = giteaSnapshotOf(issue, comments, { seal, botLogin: bot });
    expect(snapshot.claimComments.map((c) => c.marker.generation)).toEqual(generations);
    for (const found of snapshot.claimComments) expect(found.marker.subject).toBe("octo/widgets-renamed#12");
    expect([snapshot.rejectedMarkers, snapshot.rejectedAfterTrusted]).toEqual([rejected, rejectedAfter]);
  });

  it("counts the bot's audit comments, not a person's", () => {
    const snapshot = giteaSnapshotOf(
      issue,
      [comment(bot, "⏸️ No heartbeat for 30 minutes"), comment("octo", "🧹 Reaped (quoted)")],
      { seal, botLogin: bot },
    );
    expect(snapshot.auditComments).toBe(1);
  });

  const summary = "🧯 octo/widgets#12 failed 3 times in a row, so it leaves the agent queue";
  it.each([
    ["the bot's failure summary", [comment(bot, summary)], [summary]],
    ["a person's quoting one", [comment("octo", summary)], []],
    ["the bot's other comments", [comment(bot, "🧹 Reaped"), comment(bot, "no summary 🧯")], []],
    [
      "two summaries, in order",
      [comment(bot, `${summary} A`), comment(bot, `${summary} B`)],
      [`${summary} A`, `${summary} B`],
    ],
  ])("collects %s as failure summaries", (_name, comments, expected) => {
    expect(giteaSnapshotOf(issue, comments, { seal, botLogin: bot }).failureSummaries).toEqual(expected);
  });
});
