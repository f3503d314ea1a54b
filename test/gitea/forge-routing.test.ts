// routeByForge by table: a GitHub installation goes to GitHub, the configured Gitea record to Gitea, any other record in Gitea's id space (a made-up lease id) to nobody.
import { describe, expect, it } from "vitest";
import { giteaInstallationRecordId } from "../../src/domain/forge.js";
import type {
  AssignmentProvider,
  IdentityProvider,
  SubjectSnapshot,
} from "../../src/providers/assignment-provider.js";
import {
  type ForgeProviders,
  type ForgeQueue,
  queueByForge,
  routeByForge,
  unservedChecks,
} from "../../src/wiring/forge-routing.js";

/** A forge whose every answer names it; what it was asked is recorded. */
function forge(name: string, asked: string[]): ForgeProviders {
  const answer =
    <T>(what: string, value: T) =>
    async (): Promise<T> => {
      asked.push(`${name}:${what}`);
      return value;
    };
  const assignments: AssignmentProvider = {
    status: answer("status", { repo: name } as unknown as SubjectSnapshot),
    listOpenIssues: answer("list", { repoId: 1, issues: [], hasNextPage: false, endCursor: null }),
    listRepositories: answer("repos", [`${name}/repo`]),
    repositoryName: answer("name", `${name}/repo`),
    lastEvidenceChange: answer("evidence", { kind: "added" as const, by: "claim-hold-bot", byPerson: false }),
    apply: answer("apply", { claimComment: null } as never),
    ensureLabels: answer("labels", undefined),
  };
  const identity: IdentityProvider = {
    userForToken: async () => null,
    installationFor: async () => null,
    permission: answer("permission", "write" as const),
    repoConfig: answer("config", {}),
  };
  return { assignments, identity };
}

describe("routeByForge", () => {
  const configured = giteaInstallationRecordId(1);
  const another = giteaInstallationRecordId(2);
  const asked: string[] = [];
  const { assignments, identity } = routeByForge({
    github: forge("github", asked),
    gitea: { ...forge("gitea", asked), installationId: configured },
  });
  const ref = (installationId: number) => ({ installationId, repo: "octo/widgets", issue: 1 });

  it.each([
    ["a GitHub installation", 42, "github"],
    ["the configured Gitea record", configured, "gitea"],
  ])("sends %s to its forge", async (_name, installationId, name) => {
    asked.length = 0;
    expect(await assignments.status(ref(installationId))).toEqual({ repo: name });
    expect(await identity.permission(installationId, "octo/widgets", "a")).toBe("write");
    expect(asked).toEqual([`${name}:status`, `${name}:permission`]);
  });

  it("answers a record of another Gitea instance as served by nobody, asking no forge", async () => {
    asked.length = 0;
    expect(await assignments.status(ref(another))).toBeNull();
    expect(await assignments.listRepositories(another)).toEqual([]);
    expect(await assignments.repositoryName(another, 1)).toBeNull();
    expect(
      await assignments.listOpenIssues({ installationId: another, repo: "octo/widgets" }, { first: 10 }),
    ).toEqual({ repoId: null, issues: [], hasNextPage: false, endCursor: null });
    expect(await assignments.lastEvidenceChange(ref(another), { kind: "label", name: "x" } as never)).toEqual(
      {
        kind: "unknown",
      },
    );
    expect(await identity.permission(another, "octo/widgets", "a")).toBe("none");
    expect(await identity.repoConfig(another, "octo/widgets")).toBeNull();
    await expect(assignments.apply(ref(another), { subjectNodeId: "" } as never)).rejects.toThrow(
      "no forge serves this installation record",
    );
    expect(asked).toEqual([]);
  });
});

describe("routeByForge: the dashboard's subject addresses", () => {
  const configured = giteaInstallationRecordId(1);
  const another = giteaInstallationRecordId(2);
  /** Each forge finds `octo/widgets` under its record, nothing else; what it was asked is recorded. */
  const asked: string[] = [];
  const finding = (name: string, record: number): ForgeProviders => ({
    ...forge(name, asked),
    identity: {
      ...forge(name, asked).identity,
      installationFor: async (repo) => {
        asked.push(`${name}:installationFor ${repo}`);
        return repo === "octo/widgets" ? record : null;
      },
    },
  });
  const withGitea = routeByForge({
    github: finding("github", 42),
    gitea: { ...finding("gitea", configured), installationId: configured },
  });
  const githubOnly = routeByForge({ github: finding("github", 42) });

  it.each([
    ["a GitHub installation", 42, true, true],
    ["the configured Gitea record", configured, true, false],
    ["another Gitea instance's record", another, false, false],
  ])("serves %s: with Gitea %s, GitHub alone %s", (_name, record, served, servedAlone) => {
    expect(withGitea.serves(record)).toBe(served);
    expect(githubOnly.serves(record)).toBe(servedAlone);
  });

  it.each([
    [
      "no record: GitHub's installation of the repository",
      { repo: "octo/widgets" },
      42,
      ["github:installationFor octo/widgets"],
    ],
    [
      "the configured record: Gitea's, asked of Gitea",
      { repo: "octo/widgets", installationId: configured },
      configured,
      ["gitea:installationFor octo/widgets"],
    ],
    [
      "the configured record, a repository Gitea lacks",
      { repo: "octo/none", installationId: configured },
      null,
      ["gitea:installationFor octo/none"],
    ],
    [
      "another instance's record: nobody, nothing asked",
      { repo: "octo/widgets", installationId: another },
      null,
      [],
    ],
  ])("installationOf %s", async (_name, subject, record, calls) => {
    asked.length = 0;
    expect(await withGitea.installationOf(subject)).toBe(record);
    expect(asked).toEqual(calls);
  });

  it("GitHub alone: a Gitea record is nobody's", async () => {
    asked.length = 0;
    expect(await githubOnly.installationOf({ repo: "octo/widgets", installationId: configured })).toBeNull();
    expect(asked).toEqual([]);
  });
});

describe("queueByForge", () => {
  const configured = giteaInstallationRecordId(1);
  const another = giteaInstallationRecordId(2);

  /** A forge's queue whose every answer names it. */
  const queue = (name: string): ForgeQueue => ({
    refresh: async (repo) => ({
      repo: `${name}:${repo.repo}`,
      candidates: 1,
      githubRequests: 0,
      truncated: false,
    }),
    refreshByName: async () => null,
    source: { openBlockers: async () => [`${name}#1`] },
  });
  const routed = queueByForge({
    github: queue("github"),
    gitea: { installationId: configured, ...queue("gitea") },
  });

  it.each([
    ["a GitHub installation", 42, "github:octo/widgets", ["github#1"]],
    ["the configured Gitea record", configured, "gitea:octo/widgets", ["gitea#1"]],
    ["another record in Gitea's id space: nobody", another, "octo/widgets", []],
  ])("%s", async (_, installationId, refreshed, blockers) => {
    const repo = { installationId, repoId: 7, repo: "octo/widgets" };
    expect((await routed.refresh(repo)).repo).toBe(refreshed);
    expect(await routed.source.openBlockers(repo, 1)).toEqual(blockers);
  });
});

describe("routeByForge on a Gitea instance alone", () => {
  const configured = giteaInstallationRecordId(1);
  const asked: string[] = [];
  const gitea = { ...forge("gitea", asked), installationId: configured };
  const { assignments, identity, forges } = routeByForge({ gitea });
  const ref = (installationId: number) => ({ installationId, repo: "octo/widgets", issue: 1 });

  it("serves Gitea only: a request naming no forge is Gitea's, its tokens checked by Gitea", () => {
    expect(forges.served).toEqual(["gitea"]);
    expect(forges.identityOf("gitea")).toBe(gitea.identity);
  });

  it.each([
    ["a GitHub installation (a store once shared with a GitHub App)", 42],
    ["another record in Gitea's id space", giteaInstallationRecordId(2)],
  ])("answers %s as served by nobody, asking no forge", async (_name, installationId) => {
    asked.length = 0;
    expect(await assignments.status(ref(installationId))).toBeNull();
    expect(await identity.permission(installationId, "octo/widgets", "a")).toBe("none");
    await expect(assignments.apply(ref(installationId), { subjectNodeId: "" } as never)).rejects.toThrow(
      "no forge serves this installation record",
    );
    expect(asked).toEqual([]);
  });

  it("sends the configured record to Gitea", async () => {
    asked.length = 0;
    expect(await assignments.status(ref(configured))).toEqual({ repo: "gitea" });
    expect(asked).toEqual(["gitea:status"]);
  });
});

describe("queueByForge without GitHub", () => {
  const configured = giteaInstallationRecordId(1);
  const routed = queueByForge({
    gitea: {
      installationId: configured,
      refresh: async (repo) => ({
        repo: `gitea:${repo.repo}`,
        candidates: 1,
        githubRequests: 0,
        truncated: false,
      }),
      refreshByName: async () => null,
      source: { openBlockers: async () => ["gitea#1"] },
    },
  });

  it.each([
    ["a GitHub installation: nobody", 42, "octo/widgets", []],
    ["the configured Gitea record", configured, "gitea:octo/widgets", ["gitea#1"]],
  ])("%s", async (_, installationId, refreshed, blockers) => {
    const repo = { installationId, repoId: 7, repo: "octo/widgets" };
    expect((await routed.refresh(repo)).repo).toBe(refreshed);
    expect(await routed.source.openBlockers(repo, 1)).toEqual(blockers);
  });
});

describe("unservedChecks (the fence on a record no forge serves)", () => {
  const ref = { installationId: 42, repo: "octo/widgets" };

  it("reads nothing and refuses every write", async () => {
    expect(await unservedChecks.find(ref, "a".repeat(40))).toBeNull();
    expect(
      await unservedChecks.readPullRequestCheck({ ...ref, repoId: 1 }, { number: 1, headSha: "a" }),
    ).toEqual({ closes: [], closesElsewhere: [], existing: null });
    expect(
      await unservedChecks.readMergeGroupCheck({ ...ref, repoId: 1 }, { baseBranch: "main", headSha: "a" }),
    ).toEqual({ queue: null, existing: null });
    expect(await unservedChecks.pullRequest(ref, 1)).toBeNull();
    await expect(unservedChecks.start(ref, "a", { title: "t", summary: "s" })).rejects.toThrow(
      "no forge serves this installation record",
    );
  });
});

describe("routeByForge over several Gitea instances", () => {
  const asked: string[] = [];
  const instance = (number: number, name: string) => ({
    ...forge(`gitea${number}`, asked),
    installationId: giteaInstallationRecordId(number),
    name,
  });
  const one = instance(1, "gitea.example.com");
  const two = instance(2, "127.0.0.1:3001");
  const github = forge("github", asked);
  const { assignments, forges, serves } = routeByForge({ github, gitea: [one, two] });
  const ref = (installationId: number) => ({ installationId, repo: "octo/widgets", issue: 1 });

  it.each([
    ["a GitHub installation", 42, "github"],
    ["instance 1's record", giteaInstallationRecordId(1), "gitea1"],
    ["instance 2's record", giteaInstallationRecordId(2), "gitea2"],
  ])("sends %s to its own forge", async (_name, installationId, name) => {
    asked.length = 0;
    expect(await assignments.status(ref(installationId))).toEqual({ repo: name });
    expect(asked).toEqual([`${name}:status`]);
  });

  it("serves no record of an instance not configured", async () => {
    asked.length = 0;
    expect(serves(giteaInstallationRecordId(3))).toBe(false);
    expect(await assignments.status(ref(giteaInstallationRecordId(3)))).toBeNull();
    expect(asked).toEqual([]);
  });

  it("names the instances, and answers a token only with the identity of the instance named", () => {
    expect(forges.served).toEqual(["github", "gitea"]);
    expect(forges.giteaInstances).toEqual(["gitea.example.com", "127.0.0.1:3001"]);
    expect(forges.identityOf("gitea", "127.0.0.1:3001")).toBe(two.identity);
    expect(forges.identityOf("gitea", "GITEA.example.com")).toBe(one.identity);
    expect(forges.identityOf("github")).toBe(github.identity);
    // No name among several, or a name of none: nobody's identity, so no instance sees the token.
    for (const unnamed of [forges.identityOf("gitea"), forges.identityOf("gitea", "other.example.com")]) {
      expect(unnamed).not.toBe(one.identity);
      expect(unnamed).not.toBe(two.identity);
    }
  });
});
