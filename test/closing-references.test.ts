// parseClosingReferences: which issues of the same repository a PR body closes.
import { describe, expect, it } from "vitest";
import { parseClosingReferences } from "../src/lease/closing-references.js";

const repo = "Codertocat/Hello-World";

describe("parseClosingReferences", () => {
  it.each([
    ["Closes #7", [7]],
    ["fixes #7, resolves #8 and Fixed: #9", [7, 8, 9]],
    ["CLOSE #7\nclosed #7", [7]],
    ["Resolves codertocat/hello-world#12", [12]],
    ["Fixes other/repo#12", []],
    ["Mentions #7 but closes nothing", []],
    ["prefixes #7 and unfixes #8", []],
    ["`closes #7` in code\n```\nfixes #8\n```", []],
    ["", []],
  ])("%j → %j", (body, expected) => {
    expect(parseClosingReferences(body, repo)).toEqual(expected);
  });
});
