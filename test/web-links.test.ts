// Web links by forge: one pure function over a web base chosen by the installation record, tested by table.
import { describe, expect, it } from "vitest";
import { giteaInstallationRecordId } from "../src/domain/forge.js";
import { type WebBase, type WebTarget, webBasesOf, webLink, webRootOf } from "../src/domain/web-links.js";

const github: WebBase = { forge: "github", url: "https://github.com" };
const ghe: WebBase = { forge: "github", url: "https://ghe.example.com" };
const gitea: WebBase = { forge: "gitea", url: "https://gitea.example.com" };
const giteaUnderPath: WebBase = { forge: "gitea", url: "https://example.com/git" };
const repo = "octo/widgets";

describe("webLink", () => {
  it.each<[string, WebBase, WebTarget, string]>([
    ["a GitHub repository", github, { kind: "repository", repo }, "https://github.com/octo/widgets"],
    [
      "a GitHub issue",
      github,
      { kind: "issue", repo, issue: 12 },
      "https://github.com/octo/widgets/issues/12",
    ],
    [
      "a GHE issue",
      ghe,
      { kind: "issue", repo, issue: 12 },
      "https://ghe.example.com/octo/widgets/issues/12",
    ],
    ["a GitHub PR", github, { kind: "pull", repo, pull: 34 }, "https://github.com/octo/widgets/pull/34"],
    [
      "a GitHub PR's checks",
      github,
      { kind: "pull-checks", repo, pull: 34 },
      "https://github.com/octo/widgets/pull/34/checks",
    ],
    [
      "a GitHub comment",
      github,
      { kind: "comment", repo, issue: 12, commentId: 99 },
      "https://github.com/octo/widgets/issues/12#issuecomment-99",
    ],
    [
      "a GitHub branch",
      github,
      { kind: "branch", repo, branch: "agent/s-1/12-fix?x#y" },
      "https://github.com/octo/widgets/tree/agent/s-1/12-fix%3Fx%23y",
    ],
    [
      "a GitHub commit's checks",
      github,
      { kind: "commit-checks", repo, sha: "abc123" },
      "https://github.com/octo/widgets/commit/abc123/checks",
    ],
    ["a Gitea repository", gitea, { kind: "repository", repo }, "https://gitea.example.com/octo/widgets"],
    [
      "a Gitea issue",
      gitea,
      { kind: "issue", repo, issue: 12 },
      "https://gitea.example.com/octo/widgets/issues/12",
    ],
    [
      "a Gitea PR",
      gitea,
      { kind: "pull", repo, pull: 34 },
      "https://gitea.example.com/octo/widgets/pulls/34",
    ],
    [
      "a Gitea PR's checks (its statuses show on the PR)",
      gitea,
      { kind: "pull-checks", repo, pull: 34 },
      "https://gitea.example.com/octo/widgets/pulls/34",
    ],
    [
      "a Gitea comment",
      gitea,
      { kind: "comment", repo, issue: 12, commentId: 99 },
      "https://gitea.example.com/octo/widgets/issues/12#issuecomment-99",
    ],
    [
      "a Gitea branch",
      gitea,
      { kind: "branch", repo, branch: "agent/s-1/12-fix?x#y" },
      "https://gitea.example.com/octo/widgets/src/branch/agent/s-1/12-fix%3Fx%23y",
    ],
    [
      "a Gitea commit's statuses",
      gitea,
      { kind: "commit-checks", repo, sha: "abc123" },
      "https://gitea.example.com/octo/widgets/commit/abc123",
    ],
    [
      "a Gitea served under a path",
      giteaUnderPath,
      { kind: "issue", repo, issue: 1 },
      "https://example.com/git/octo/widgets/issues/1",
    ],
    [
      "an odd repository name, encoded",
      gitea,
      { kind: "issue", repo: "octo/wid gets?", issue: 1 },
      "https://gitea.example.com/octo/wid%20gets%3F/issues/1",
    ],
  ])("%s", (_name, base, target, url) => {
    expect(webLink(base, target)).toBe(url);
  });
});

describe("webBasesOf: the web base of an installation record", () => {
  const withGitea = webBasesOf({
    github: "https://ghe.example.com",
    gitea: { url: "https://gitea.example.com/", installationId: 1 },
  });
  const secondInstance = webBasesOf({
    github: "https://github.com",
    gitea: { url: "https://gitea.example.com", installationId: 2 },
  });
  const githubOnly = webBasesOf({ github: "https://github.com" });
  it.each<[string, (id: number) => WebBase | null, number, WebBase | null]>([
    ["a GitHub installation", withGitea, 42, ghe],
    ["the served Gitea record", withGitea, giteaInstallationRecordId(1), gitea],
    ["the served record under GITEA_INSTALLATION_ID=2", secondInstance, giteaInstallationRecordId(2), gitea],
    [
      "another Gitea record (not the instance served): no links",
      withGitea,
      giteaInstallationRecordId(2),
      null,
    ],
    [
      "record 1 while the instance is served as 2: no links",
      secondInstance,
      giteaInstallationRecordId(1),
      null,
    ],
    [
      "a Gitea record with no instance served: no links (not GitHub's)",
      githubOnly,
      giteaInstallationRecordId(1),
      null,
    ],
    ["a GitHub installation, GitHub only", githubOnly, 42, github],
  ])("%s", (_name, of, installationId, base) => {
    expect(of(installationId)).toStrictEqual(base);
  });

  it.each([
    ["https://gitea.example.com/", "https://gitea.example.com"],
    ["http://127.0.0.1:3000", "http://127.0.0.1:3000"],
    ["https://example.com/git//", "https://example.com/git"],
    ["javascript:alert(1)", null],
    ["not a url", null],
  ])("the web root of %s is %s", (url, root) => {
    expect(webRootOf(url)).toBe(root);
  });
});
