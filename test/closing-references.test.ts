// The simulator's closing keywords: which issues a PR body closes, the way GitHub links them (closingIssuesReferences).
import { describe, expect, it } from "vitest";
import { parseClosingKeywords } from "../tools/github-sim/closing-keywords.js";

const bases = ["https://github.com", "http://127.0.0.1:4010"];

describe("parseClosingKeywords", () => {
  it.each([
    ["Closes #7", [{ number: 7 }]],
    ["fixes #7, resolves #8 and Fixed: #9", [{ number: 7 }, { number: 8 }, { number: 9 }]],
    ["CLOSE #7\nclosed #7", [{ number: 7 }]],
    ["Resolves codertocat/hello-world#12", [{ repo: "codertocat/hello-world", number: 12 }]],
    ["Fixes other/repo#12", [{ repo: "other/repo", number: 12 }]],
    ["Fixes https://github.com/octo/widgets/issues/1", [{ repo: "octo/widgets", number: 1 }]],
    ["RESOLVED: http://127.0.0.1:4010/octo/widgets/issues/3.", [{ repo: "octo/widgets", number: 3 }]],
    ["closes https://github.com/octo/widgets/issues/4#issuecomment-1", [{ repo: "octo/widgets", number: 4 }]],
    ["Fixes https://github.com/octo/widgets/pull/5", []],
    ["Fixes https://example.com/octo/widgets/issues/6", []],
    ["Fixes #1, #2", [{ number: 1 }]],
    ["Mentions #7 but closes nothing", []],
    ["prefixes #7 and unfixes #8", []],
    ["`closes #7` in code\n```\nfixes #8\n```", []],
    ["", []],
  ])("%j → %j", (body, expected) => {
    expect(parseClosingKeywords(body, bases)).toEqual(expected);
  });
});
