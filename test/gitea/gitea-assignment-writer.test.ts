// GiteaAssignmentWriter.apply and ensureLabels against Gitea's REST API (nock): exact requests per transition.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { renderClaimComment, verifyClaimMarker } from "../../src/domain/claim-marker.js";
import { createMarkerSeal } from "../../src/domain/marker-seal.js";
import { GitHubWriteError, type TransitionWrite } from "../../src/providers/assignment-provider.js";
import { commentIdOf, GiteaAssignmentWriter } from "../../src/providers/gitea/gitea-assignment-writer.js";
import { agentClaimRecord } from "../support/claim-record.js";
import {
  type GiteaRequestLog,
  giteaBotToken,
  giteaClient,
  nockAddIssueLabels,
  nockCreateComment,
  nockCreateLabel,
  nockEditComment,
  nockGetIssue,
  nockListLabels,
  nockRefuse,
  nockRemoveIssueLabel,
  nockSetAssignees,
} from "../support/gitea-fake.js";

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

const seal = createMarkerSeal("gitea-test-secret");
const ref = { installationId: 1, repo: "octo/widgets", issue: 12 };
const record = agentClaimRecord({ assigneeNodeId: "fleet-bot" });
const claimed = { id: 11, name: "agent:claimed" };
const stale = { id: 12, name: "agent:stale" };
const bug = { id: 3, name: "bug" };

function writer() {
  const kinds: string[] = [];
  const client = giteaClient(kinds);
  return { writer: new GiteaAssignmentWriter({ client, seal }), client, kinds };
}

const signedBy = (state: string) => (text: string) => {
  const parsed = verifyClaimMarker(text, seal);
  return parsed.kind === "marker" && parsed.marker.state === state;
};

const claimWrite = (): TransitionWrite => ({
  subjectNodeId: "unused-on-gitea",
  assign: ["fleet-bot"],
  addLabels: ["agent:claimed"],
  removeLabels: ["agent:stale"],
  createClaimComment: renderClaimComment(record, "active"),
});

describe("GiteaAssignmentWriter.apply", () => {
  it("claims on a repository seen for the first time: issue, assignees, label list, label create, label add, signed claim comment — 6 requests", async () => {
    const log: GiteaRequestLog = [];
    nockGetIssue(log, 12, { assignees: [], labels: [bug] });
    nockSetAssignees(log, 12, ["fleet-bot"]);
    nockListLabels(log, [bug]);
    nockCreateLabel(
      log,
      {
        name: "agent:claimed",
        color: "#1d76db",
        description: "A live agent claim holds this issue (claim-hold)",
      },
      11,
    );
    nockAddIssueLabels(log, 12, [11]);
    nockCreateComment(log, 12, 901, signedBy("active"));
    const { writer: w, client, kinds } = writer();

    const applied = await w.apply(ref, claimWrite());

    expect(applied).toEqual({ claimComment: { nodeId: "901", databaseId: 901 }, requests: 6 });
    expect(log).toEqual([
      "GET /api/v1/repos/octo/widgets/issues/12",
      "PATCH /api/v1/repos/octo/widgets/issues/12",
      "GET /api/v1/repos/octo/widgets/labels",
      "POST /api/v1/repos/octo/widgets/labels",
      "POST /api/v1/repos/octo/widgets/issues/12/labels",
      "POST /api/v1/repos/octo/widgets/issues/12/comments",
    ]);
    expect(kinds).toEqual([
      "get-issue",
      "edit-issue",
      "list-labels",
      "create-label",
      "add-issue-labels",
      "create-comment",
    ]);
    expect(client.requests).toBe(6);
  });

  it("a later claim in the same repository knows the label: 4 requests, no listing, no create", async () => {
    const log: GiteaRequestLog = [];
    const { writer: w } = writer();
    nockGetIssue(log, 12, { assignees: [], labels: [] });
    nockSetAssignees(log, 12, ["fleet-bot"]);
    nockListLabels(log, [claimed, stale]);
    nockAddIssueLabels(log, 12, [11]);
    nockCreateComment(log, 12, 901, signedBy("active"));
    expect((await w.apply(ref, claimWrite())).requests).toBe(5);

    const next = { ...ref, issue: 13 };
    nockGetIssue(log, 13, { assignees: ["alice"], labels: [] });
    nockSetAssignees(log, 13, ["alice", "fleet-bot"]);
    nockAddIssueLabels(log, 13, [11]);
    nockCreateComment(log, 13, 902, signedBy("active"));
    const applied = await w.apply(next, claimWrite());
    expect(applied).toEqual({ claimComment: { nodeId: "902", databaseId: 902 }, requests: 4 });
  });

  it("marks a claim stale: swaps the labels and edits the claim comment, assignees untouched — 5 requests", async () => {
    const log: GiteaRequestLog = [];
    nockGetIssue(log, 12, { assignees: ["fleet-bot"], labels: [claimed] });
    nockListLabels(log, [claimed, stale, bug]);
    nockAddIssueLabels(log, 12, [12]);
    nockRemoveIssueLabel(log, 12, 11);
    nockEditComment(log, 901, signedBy("stale"));
    const { writer: w } = writer();

    const applied = await w.apply(ref, {
      subjectNodeId: "unused-on-gitea",
      addLabels: ["agent:stale"],
      removeLabels: ["agent:claimed"],
      editComments: [{ nodeId: "901", body: renderClaimComment(record, "stale") }],
    });

    expect(applied).toEqual({ requests: 5 });
    expect(log).toEqual([
      "GET /api/v1/repos/octo/widgets/issues/12",
      "GET /api/v1/repos/octo/widgets/labels",
      "POST /api/v1/repos/octo/widgets/issues/12/labels",
      "DELETE /api/v1/repos/octo/widgets/issues/12/labels/11",
      "PATCH /api/v1/repos/octo/widgets/issues/comments/901",
    ]);
  });

  it("releases: keeps a person's assignment, removes only the labels the issue carries, defuses markers in the audit comment — 5 requests", async () => {
    const log: GiteaRequestLog = [];
    nockGetIssue(log, 12, { assignees: ["alice", "fleet-bot"], labels: [bug, claimed] });
    nockSetAssignees(log, 12, ["alice"]);
    nockRemoveIssueLabel(log, 12, 11);
    nockEditComment(log, 901, signedBy("released"));
    nockCreateComment(log, 12, 950, (text) => text === "Released. &lt;!-- claim-hold:v1 {} -->");
    const { writer: w } = writer();

    const applied = await w.apply(ref, {
      subjectNodeId: "unused-on-gitea",
      unassign: ["fleet-bot"],
      removeLabels: ["agent:claimed", "agent:stale"],
      editComments: [{ nodeId: "901", body: renderClaimComment(record, "released") }],
      addComments: ["Released. <!-- claim-hold:v1 {} -->"],
    });

    expect(applied).toEqual({ addedComments: ["950"], requests: 5 });
  });

  it("asks for a person: agent:needs-human is created on first use with its attention colour — 4 requests", async () => {
    const log: GiteaRequestLog = [];
    nockGetIssue(log, 12, { assignees: ["fleet-bot"], labels: [claimed] });
    nockListLabels(log, [claimed, stale]);
    nockCreateLabel(
      log,
      {
        name: "agent:needs-human",
        color: "#d93f0b",
        description: "The agent holding this issue asked for a person (claim-hold)",
      },
      13,
    );
    nockAddIssueLabels(log, 12, [13]);
    const { writer: w } = writer();
    const applied = await w.apply(ref, {
      subjectNodeId: "unused-on-gitea",
      addLabels: ["agent:needs-human"],
    });
    expect(applied).toEqual({ requests: 4 });
  });

  it("a label removed by someone else since the read (404) is what the transition wanted", async () => {
    const log: GiteaRequestLog = [];
    nockGetIssue(log, 12, { assignees: [], labels: [claimed] });
    nockRefuse(log, "delete", "/issues/12/labels/11", 404);
    const { writer: w } = writer();
    const applied = await w.apply(ref, { subjectNodeId: "unused-on-gitea", removeLabels: ["agent:claimed"] });
    expect(applied).toEqual({ requests: 2 });
  });

  it("repeating a transition Gitea already shows costs the issue read only", async () => {
    const log: GiteaRequestLog = [];
    nockGetIssue(log, 12, { assignees: ["Fleet-Bot"], labels: [claimed] });
    const { writer: w } = writer();
    const { createClaimComment: _none, ...write } = claimWrite();
    expect(await w.apply(ref, write)).toEqual({ requests: 1 });
  });

  it("a write that changes nothing on the issue sends nothing", async () => {
    const { writer: w, client } = writer();
    expect(await w.apply(ref, { subjectNodeId: "unused-on-gitea", assign: [], addComments: [] })).toEqual({
      requests: 0,
    });
    expect(client.requests).toBe(0);
  });

  it("a refused write throws the port's GitHubWriteError with Gitea's status, naming the issue, never the token", async () => {
    const log: GiteaRequestLog = [];
    nockGetIssue(log, 12, { assignees: [], labels: [] });
    nockRefuse(log, "patch", "/issues/12", 403);
    const { writer: w } = writer();

    const error = await w.apply(ref, claimWrite()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GitHubWriteError);
    expect((error as GitHubWriteError).status).toBe(403);
    expect((error as Error).message).toBe(
      "failed to apply claim transition on octo/widgets#12: PATCH /repos/octo/widgets/issues/12: Gitea answered 403: refused by Gitea",
    );
    expect((error as Error).message).not.toContain(giteaBotToken);
  });

  it("refuses a comment node id that is not a Gitea comment id", () => {
    expect(commentIdOf("901")).toBe(901);
    for (const bad of ["IC_kwDOA", "0", "-1", "1.5", ""]) expect(() => commentIdOf(bad)).toThrow(TypeError);
  });
});

describe("GiteaAssignmentWriter.ensureLabels", () => {
  it("lists once and creates only the missing labels; a second call sends nothing", async () => {
    const log: GiteaRequestLog = [];
    nockListLabels(log, [claimed]);
    nockCreateLabel(log, { name: "agent:stale", color: "#fbca04", description: "stale" }, 12);
    nockCreateLabel(log, { name: "agent:needs-human", color: "#d93f0b", description: "ask" }, 13);
    const { writer: w, client } = writer();
    const labels = [
      { name: "agent:claimed", color: "1d76db", description: "claimed" },
      { name: "agent:stale", color: "fbca04", description: "stale" },
      { name: "agent:needs-human", color: "d93f0b", description: "ask" },
    ];

    await w.ensureLabels({ installationId: 1, repo: "octo/widgets" }, labels);
    expect(client.requests).toBe(3);
    await w.ensureLabels({ installationId: 1, repo: "octo/widgets" }, labels);
    expect(client.requests).toBe(3);
  });

  it("reads every page of a repository with many labels before creating one", async () => {
    const log: GiteaRequestLog = [];
    const many = Array.from({ length: 50 }, (_, i) => ({ id: 100 + i, name: `area/${i}` }));
    nockListLabels(log, many, 1);
    nockListLabels(log, [claimed], 2);
    const { writer: w, client } = writer();
    await w.ensureLabels({ installationId: 1, repo: "octo/widgets" }, [
      { name: "agent:claimed", color: "1d76db", description: "claimed" },
    ]);
    expect(client.requests).toBe(2);
  });
});
