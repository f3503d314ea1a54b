// The fence's Gitea parts, pure and by table: what a status shows of a check, the App's own status, the pull_request reader, the forge routing; the simulator's PR bodies against Gitea's definitions.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CheckConclusion } from "../../src/domain/check-values.js";
import { decideCheckWrite } from "../../src/fence/check-run-plan.js";
import type {
  ChecksProvider,
  DesiredCheckRun,
  ExistingCheckRun,
} from "../../src/providers/checks-provider.js";
import { existingOf, pullRequestHeadOf } from "../../src/providers/gitea/gitea-checks-provider.js";
import type { GiteaCommitStatus } from "../../src/providers/gitea/gitea-schemas.js";
import { GiteaPayloadError, readGiteaEvent } from "../../src/providers/gitea/gitea-webhook-events.js";
import { type FenceForgeParts, fencePartsByInstallation } from "../../src/wiring/forge-routing.js";
import type { RepoConfigCache } from "../../src/wiring/repo-config-source.js";
import { GiteaSimState } from "../../tools/gitea-sim/gitea-state.js";
import { renderCommit, renderPullRequest } from "../../tools/gitea-sim/render.js";

const desired = (conclusion: CheckConclusion, title: string, summary = "| table |"): DesiredCheckRun => ({
  conclusion,
  title,
  summary,
  text: "details",
  annotations: [],
});
const status = (state: string, description: string): ExistingCheckRun => ({
  kind: "commit-status",
  id: 9,
  conclusion: state,
  title: description,
  summary: null,
  text: null,
});

describe("decideCheckWrite on a commit status: only its state and description are shown", () => {
  const table: [string, ExistingCheckRun | null, DesiredCheckRun, string][] = [
    ["none yet", null, desired("success", "Current holder"), "create"],
    [
      "same state and description",
      status("success", "Current holder"),
      desired("success", "Current holder"),
      "none",
    ],
    [
      "another summary is not shown",
      status("success", "Current holder"),
      desired("success", "Current holder", "other"),
      "none",
    ],
    [
      "neutral shows as success",
      status("success", "Config invalid"),
      desired("neutral", "Config invalid"),
      "none",
    ],
    ["another state", status("success", "Current holder"), desired("failure", "Current holder"), "update"],
    [
      "another description",
      status("failure", "Not attested"),
      desired("failure", "Superseded holder"),
      "update",
    ],
    ["a pending one", status("pending", "Evaluating"), desired("success", "Evaluating"), "update"],
  ];
  it.each(table)("%s → %s", (_case, existing, wanted, kind) => {
    expect(decideCheckWrite(existing, wanted).kind).toBe(kind);
  });

  it("a check run still compares its summary and text (GitHub unchanged)", () => {
    const run = {
      id: 1,
      conclusion: "success",
      title: "Current holder",
      summary: "| table |",
      text: "details",
    };
    expect(decideCheckWrite(run, desired("success", "Current holder")).kind).toBe("none");
    expect(decideCheckWrite(run, desired("success", "Current holder", "other")).kind).toBe("update");
  });
});

describe("existingOf: the App's check is the newest claim-hold status, and only when the App wrote it", () => {
  const s = (id: number, context: string, creator: string | null, state = "success"): GiteaCommitStatus => ({
    id,
    context,
    status: state,
    description: `d${id}`,
    target_url: null,
    creator: creator === null ? null : { id: 1, login: creator },
  });
  const table: [string, GiteaCommitStatus[], number | null][] = [
    ["no status", [], null],
    ["another context only", [s(1, "ci/build", "claim-hold-bot")], null],
    [
      "the App's, newest first",
      [s(3, "claim-hold", "Claim-Hold-Bot"), s(2, "claim-hold", "claim-hold-bot")],
      3,
    ],
    ["someone else's on top", [s(3, "claim-hold", "maintainer"), s(2, "claim-hold", "claim-hold-bot")], null],
    ["no creator", [s(3, "claim-hold", null)], null],
    ["under another context first", [s(4, "ci", "x"), s(3, "claim-hold", "claim-hold-bot")], 3],
  ];
  it.each(table)("%s → %j", (_case, statuses, id) => {
    const existing = existingOf(statuses, "claim-hold-bot");
    expect(existing?.id ?? null).toBe(id);
    if (existing) expect(existing).toMatchObject({ kind: "commit-status", title: `d${id}`, summary: null });
  });
});

describe("readGiteaEvent: pull_request", () => {
  const user = (login: string) => ({ id: 5, login, email: `${login}@x` });
  const payload = (action: string, over: Record<string, unknown> = {}) => ({
    action,
    number: 4,
    pull_request: {
      id: 40,
      number: 4,
      state: action === "closed" ? "closed" : "open",
      user: user("fleet-bot"),
      head: { ref: "agent/s1/3-work", sha: "a".repeat(40), repo_id: 77 },
      base: { ref: "main", sha: "b".repeat(40), repo_id: 77 },
    },
    repository: { id: 77, full_name: "octo/widgets" },
    sender: user("fleet-bot"),
    commit_id: "",
    requested_reviewer: null,
    review: null,
    ...over,
  });
  const fact = (action: string, changed = { body: false, base: false }) => ({
    kind: "pull-request",
    action,
    repository: { id: 77, fullName: "octo/widgets" },
    pullRequest: {
      number: 4,
      state: action === "closed" ? "closed" : "open",
      headSha: "a".repeat(40),
      headRef: "agent/s1/3-work",
      headRepoId: 77,
      author: { id: 5, login: "fleet-bot" },
    },
    changed,
    sender: { id: 5, login: "fleet-bot" },
  });
  it.each([
    ["opened", payload("opened"), fact("opened")],
    ["synchronized", payload("synchronized"), fact("synchronized")],
    ["reopened", payload("reopened"), fact("reopened")],
    ["closed", payload("closed"), fact("closed")],
    [
      "edited: the description",
      payload("edited", { changes: { body: { from: "" } } }),
      fact("edited", { body: true, base: false }),
    ],
    [
      "edited: the base branch",
      payload("edited", { changes: { ref: { from: "dev" } } }),
      fact("edited", { body: false, base: true }),
    ],
    ["edited: the title", payload("edited", { changes: { title: { from: "x" } } }), fact("edited")],
    ["label_updated", payload("label_updated"), { kind: "ignored", event: "pull_request.label_updated" }],
    [
      "review_requested",
      payload("review_requested"),
      { kind: "ignored", event: "pull_request.review_requested" },
    ],
  ])("%s", (_case, body, expected) => {
    expect(readGiteaEvent("pull_request", body)).toEqual(expected);
  });

  it("a handled action without the PR's head is a payload error naming it", () => {
    const broken = payload("opened", { pull_request: { number: 4, state: "open" } });
    expect(() => readGiteaEvent("pull_request", broken)).toThrow(GiteaPayloadError);
    expect(() => readGiteaEvent("pull_request", broken)).toThrow(/pull_request\.head/);
  });
});

describe("fencePartsByInstallation", () => {
  const calls: string[] = [];
  const partsOf = (name: string): FenceForgeParts => {
    const record = (method: string) => async () => {
      calls.push(`${name}.${method}`);
      return null as never;
    };
    const checks = Object.fromEntries(
      ["find", "readPullRequestCheck", "readMergeGroupCheck", "create", "start", "update", "pullRequest"].map(
        (m) => [m, record(m)],
      ),
    ) as unknown as ChecksProvider;
    const configs = {
      load: record("load"),
      peek: () => {
        calls.push(`${name}.peek`);
      },
      errorFor: () => {
        calls.push(`${name}.errorFor`);
      },
      forget: () => {
        calls.push(`${name}.forget`);
      },
    } as unknown as RepoConfigCache;
    return {
      checks,
      configs,
      assignments: { status: record("status"), lastEvidenceChange: record("evidence") },
    };
  };

  it("sends a call about a Gitea installation record to Gitea, any other to GitHub", async () => {
    const github = partsOf("github");
    expect(fencePartsByInstallation(github, [])).toBe(github);
    const routed = fencePartsByInstallation(github, [{ installationId: 7, ...partsOf("gitea") }]);
    const on = (installationId: number) => ({ installationId, repo: "o/r", repoId: 1 });
    await routed.checks.readPullRequestCheck(on(7), { number: 1, headSha: "s" });
    await routed.checks.update(on(7), { id: 1, headSha: "s" }, desired("success", "t"));
    await routed.checks.readPullRequestCheck(on(8), { number: 1, headSha: "s" });
    await routed.configs.load(7, "o/r");
    routed.configs.errorFor(8, "o/r");
    await routed.assignments.status({ installationId: 7, repo: "o/r", issue: 1 });
    expect(calls).toEqual([
      "gitea.readPullRequestCheck",
      "gitea.update",
      "github.readPullRequestCheck",
      "gitea.load",
      "github.errorFor",
      "gitea.status",
    ]);
  });
});

describe("the simulator's pull requests", () => {
  const contract = JSON.parse(
    readFileSync(new URL("../fixtures/gitea/gitea-api-contract.json", import.meta.url), "utf8"),
  ) as { definitions: Record<string, string[]> };
  const within = (definition: string, body: object) =>
    expect(Object.keys(body).filter((key) => !contract.definitions[definition]?.includes(key))).toEqual([]);

  it("renders a PullRequest, its PRBranchInfo heads and its Commits with their definitions' fields only", () => {
    const state = new GiteaSimState(() => 0);
    state.addUser("octo");
    const repo = state.addRepo("octo/widgets");
    const pull = state.addPullRequest(repo, {
      title: "t",
      author: "octo",
      headRef: "b",
      commits: ["one", "two"],
    });
    const rendered = renderPullRequest(state, repo, { ...pull, pull: pull.pull! });
    within("PullRequest", rendered);
    within("PRBranchInfo", rendered.head);
    within("PRBranchInfo", rendered.base);
    expect(rendered.head).toMatchObject({ ref: "b", sha: pull.pull?.commits[1]?.sha });
    const commit = renderCommit(state, repo, pull.pull!.commits[0]!);
    within("Commit", commit);
    within("RepoCommit", commit.commit);
  });

  it("a PR head read back carries no bot flag (Gitea users have none)", () => {
    const head = pullRequestHeadOf({
      number: 3,
      state: "open",
      title: "t",
      body: null,
      user: { id: 1, login: "fleet-bot" },
      head: { ref: "b", sha: "s" },
    });
    expect(head).toEqual({
      number: 3,
      state: "open",
      headSha: "s",
      headRef: "b",
      body: "",
      author: { login: "fleet-bot", bot: false },
    });
  });
});
