// Closing keywords as Gitea finds them (modules/references, default CLOSE_KEYWORDS): a table of descriptions and commit messages.
import { describe, expect, it } from "vitest";
import {
  closingReferencesIn,
  giteaClosingIssues,
} from "../../src/providers/gitea/gitea-closing-references.js";

const repo = "octo/widgets";

describe("closingReferencesIn", () => {
  const table: [string, number[]][] = [
    ["closes #12", [12]],
    ["Closes #12", [12]],
    ["CLOSED #12", [12]],
    ["fix #3", [3]],
    ["fixes #3", [3]],
    ["fixed #3", [3]],
    ["resolve #4", [4]],
    ["resolves #4", [4]],
    ["resolved #4", [4]],
    ["Fixes: #5", [5]],
    ["(closes #6)", [6]],
    ["[fixes #7]", [7]],
    ["closes !8", [8]],
    ["fixes #9, fixes #10.", [9, 10]],
    ["This closes #11\nand fixes #13", [11, 13]],
    ["closes octo/widgets#14", [14]],
    ["closes Octo/Widgets#15", [15]],
    // Not closing: no keyword, a keyword Gitea does not have, two spaces, a word ending in a keyword,
    // another repository, a reopen keyword, a reference glued to text.
    ["see #20", []],
    ["closing #21", []],
    ["implements #22", []],
    ["closes  #23", []],
    ["encloses #24", []],
    ["closes other/repo#25", []],
    ["reopens #26", []],
    ["closes #27abc", []],
    ["closes#28", []],
  ];
  it.each(table)("%j → %j", (text, issues) => {
    expect(closingReferencesIn(text, repo)).toEqual(issues);
  });
});

describe("giteaClosingIssues", () => {
  it("reads the description (not its code) and each commit message, each issue once, in the order found", () => {
    const body = "Fixes #3\n\n```\ncloses #40\n```\n\nand `closes #41` in code; resolves #5";
    const commitMessages = ["Refactor\n\ncloses #7", "fixes #3 again", "wip"];
    expect(giteaClosingIssues({ body, commitMessages }, repo)).toEqual([3, 5, 7]);
  });

  it("counts a link to an issue of this instance as a reference, another instance's not", () => {
    const body =
      "closes https://gitea.example/octo/widgets/issues/8 and fixes https://other.example/octo/widgets/issues/9";
    expect(giteaClosingIssues({ body, commitMessages: [] }, repo, "https://gitea.example/")).toEqual([8]);
  });

  it("a PR without description or closing commit closes nothing", () => {
    expect(giteaClosingIssues({ body: null, commitMessages: ["work"] }, repo)).toEqual([]);
  });
});
