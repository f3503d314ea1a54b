// The `claim-hold` commit status on Gitea (nock): verdict mapping by table, one read, a write only when it would change.
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import type { CheckConclusion } from "../../src/domain/check-values.js";
import {
  commitStatusOf,
  type DesiredCommitStatus,
  GiteaCommitStatuses,
} from "../../src/providers/gitea/gitea-commit-statuses.js";
import {
  type GiteaRequestLog,
  giteaClient,
  nockCreateStatus,
  nockListStatuses,
} from "../support/gitea-fake.js";

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

const sha = "b".repeat(40);
const ref = { installationId: 1, repo: "octo/widgets" };

describe("commitStatusOf", () => {
  const table: [CheckConclusion | null, string, DesiredCommitStatus["state"]][] = [
    ["success", "Claimed by fleet-bot", "success"],
    ["neutral", "No claim to check", "success"],
    ["failure", "Superseded claim", "failure"],
    [null, "Evaluating", "pending"],
  ];
  it.each(table)("%j is %j → %j", (conclusion, title, state) => {
    expect(commitStatusOf(conclusion, title)).toEqual({ state, context: "claim-hold", description: title });
  });

  it("keeps the description on one short line and passes the details URL", () => {
    const status = commitStatusOf(
      "failure",
      `line one\nline two ${"x".repeat(200)}`,
      "https://claims.example/s/1",
    );
    expect(status.description).toHaveLength(140);
    expect(status.description.startsWith("line one line two")).toBe(true);
    expect(status.description.endsWith("…")).toBe(true);
    expect(status.target_url).toBe("https://claims.example/s/1");
  });
});

describe("GiteaCommitStatuses.set", () => {
  it("writes the status when the head has none of ours: 2 requests", async () => {
    const log: GiteaRequestLog = [];
    nockListStatuses(log, sha, [{ id: 1, context: "ci/build", status: "success", description: "ok" }]);
    nockCreateStatus(log, sha, { state: "failure", context: "claim-hold", description: "Superseded claim" });
    const result = await new GiteaCommitStatuses(giteaClient()).set(
      ref,
      sha,
      commitStatusOf("failure", "Superseded claim"),
    );
    expect(result).toEqual({ written: true, requests: 2 });
    expect(log).toEqual([
      "GET /api/v1/repos/octo/widgets/statuses/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
      "POST /api/v1/repos/octo/widgets/statuses/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    ]);
  });

  it("skips the write when the newest claim-hold status already says it: 1 request", async () => {
    nockListStatuses([], sha, [
      { id: 3, context: "claim-hold", status: "success", description: "Claimed by fleet-bot" },
      { id: 2, context: "claim-hold", status: "failure", description: "older" },
    ]);
    const result = await new GiteaCommitStatuses(giteaClient()).set(
      ref,
      sha,
      commitStatusOf("success", "Claimed by fleet-bot"),
    );
    expect(result).toEqual({ written: false, requests: 1 });
  });
});
