// Decision tables: which PRs a merge group holds, the worst verdict over them, and the run of an evaluation that could not finish.
import { describe, expect, it } from "vitest";
import type { CheckConclusion, QueueEntry } from "../../src/domain/check-values.js";
import { type CheckVerdict, decideGroupCheck, unevaluatedVerdict } from "../../src/fence/check-verdict.js";
import { membersOfGroup, parseMergeGroupRef } from "../../src/fence/merge-group-plan.js";

const base = "a".repeat(40);
const groupHead = (n: number) => String(n).repeat(40).slice(0, 40);

function entry(
  position: number,
  number: number,
  groupHeadSha: string | null = groupHead(number),
): QueueEntry {
  return {
    position,
    groupHeadSha,
    pullRequest: {
      number,
      headSha: `${number}`.padEnd(40, "f"),
      headRef: `agent/s/${number}`,
      author: { login: "fleet-bot", bot: false },
      closes: [number * 10],
    },
  };
}

function verdict(conclusion: CheckConclusion, title: string): CheckVerdict {
  return {
    conclusion,
    title,
    summaryRows: [{ subject: `o/r#${title.length}`, holder: "h", generation: 1, state: "active" }],
    text: `- ${title}`,
  };
}

describe("parseMergeGroupRef", () => {
  it.each([
    [`refs/heads/gh-readonly-queue/main/pr-104-${base}`, { base: "main", number: 104 }],
    [`refs/heads/gh-readonly-queue/release/v2/pr-7-${base}`, { base: "release/v2", number: 7 }],
    [`refs/heads/gh-readonly-queue/main/pr-0-${base}`, null],
    [`refs/heads/gh-readonly-queue/main/pr-12-${base.slice(1)}`, null],
    ["refs/heads/main", null],
    [`gh-readonly-queue/main/pr-104-${base}`, null],
    [`refs/heads/gh-readonly-queue/main/pr-99999999999999999999-${base}`, null],
  ])("%s → %j", (ref, expected) => {
    expect(parseMergeGroupRef(ref)).toEqual(expected);
  });
});

describe("membersOfGroup", () => {
  const queue = [entry(3, 9), entry(1, 7), entry(2, 8)];
  const ref = (n: number) => `refs/heads/gh-readonly-queue/main/pr-${n}-${base}`;
  it.each([
    { name: "the head entry's group holds only its own PR", head: groupHead(7), ref: ref(7), expected: [7] },
    {
      name: "a later group holds the entries ahead, in queue order",
      head: groupHead(9),
      ref: ref(9),
      expected: [7, 8, 9],
    },
    {
      name: "matched by the group head even when the ref names another PR",
      head: groupHead(8),
      ref: ref(9),
      expected: [7, 8],
    },
    {
      name: "a head GitHub does not show yet: the entry of the PR the ref names",
      head: "e".repeat(40),
      ref: ref(8),
      expected: [7, 8],
    },
    { name: "an entry no longer in the queue: unknown", head: "e".repeat(40), ref: ref(5), expected: null },
    {
      name: "a ref that is no merge group's, unknown head: unknown",
      head: "e".repeat(40),
      ref: "refs/heads/main",
      expected: null,
    },
  ])("$name", ({ head, ref: headRef, expected }) => {
    expect(membersOfGroup(queue, { headSha: head, headRef })?.map((pr) => pr.number) ?? null).toEqual(
      expected,
    );
  });

  it("skips an entry ahead whose pull request GitHub does not show (no access), keeping the rest", () => {
    const hidden: QueueEntry = { position: 1, groupHeadSha: groupHead(6), pullRequest: null };
    expect(
      membersOfGroup([hidden, entry(2, 8)], { headSha: groupHead(8), headRef: ref(8) })?.map((p) => p.number),
    ).toEqual([8]);
    expect(membersOfGroup([hidden], { headSha: groupHead(6), headRef: ref(6) })).toBeNull();
  });
});

describe("decideGroupCheck: the worst verdict over the group's PRs", () => {
  const ok = verdict("success", "Attested by the current holder");
  const human = verdict("neutral", "Human change on a subject with an agent claim");
  const superseded = verdict("failure", "Superseded holder");
  const notAttested = verdict("failure", "Not attested by the current holder");
  it.each([
    { name: "one PR: its verdict and title", members: [[7, ok]], conclusion: "success", title: ok.title },
    {
      name: "all attested: success",
      members: [
        [7, ok],
        [8, ok],
      ],
      conclusion: "success",
      title: `#7: ${ok.title}`,
    },
    {
      name: "a neutral PR makes the group neutral",
      members: [
        [7, ok],
        [8, human],
      ],
      conclusion: "neutral",
      title: `#8: ${human.title}`,
    },
    {
      name: "a superseded holder anywhere fails the group, named in the title",
      members: [
        [7, ok],
        [8, human],
        [9, superseded],
      ],
      conclusion: "failure",
      title: `#9: ${superseded.title}`,
    },
    {
      name: "among equal failures the first in queue order decides the title",
      members: [
        [7, notAttested],
        [8, superseded],
      ],
      conclusion: "failure",
      title: `#7: ${notAttested.title}`,
    },
  ] as { name: string; members: [number, CheckVerdict][]; conclusion: CheckConclusion; title: string }[])(
    "$name",
    ({ members, conclusion, title }) => {
      const group = decideGroupCheck(members.map(([number, v]) => ({ number, verdict: v })));
      expect({ conclusion: group.conclusion, title: group.title }).toEqual({ conclusion, title });
      expect(group.summaryRows).toEqual(members.flatMap(([, v]) => v.summaryRows));
      for (const [number, v] of members) expect(group.text).toContain(`| #${number} | ${v.conclusion} |`);
    },
  );

  it("fails a group whose pull requests are unknown", () => {
    expect(decideGroupCheck([])).toMatchObject({
      conclusion: "failure",
      title: "Merge group not found in the queue",
    });
  });
});

describe("unevaluatedVerdict: a run that completes when the evaluation cannot", () => {
  it.each([
    {
      cause: "store-unavailable",
      agentInvolved: true,
      conclusion: "failure",
      says: /claim store \(Redis\) did not answer/,
    },
    {
      cause: "store-unavailable",
      agentInvolved: false,
      conclusion: "neutral",
      says: /does not block the merge/,
    },
    { cause: "error", agentInvolved: true, conclusion: "failure", says: /fails closed/ },
    { cause: "error", agentInvolved: false, conclusion: "neutral", says: /GitHub or the claim store/ },
  ] as const)(
    "$cause, agent involved: $agentInvolved → $conclusion",
    ({ cause, agentInvolved, conclusion, says }) => {
      const v = unevaluatedVerdict({ cause, agentInvolved, detail: "HTTP 502: Server Error" });
      expect(v).toMatchObject({ conclusion, title: "claim-hold could not evaluate" });
      expect(v.text).toMatch(says);
      expect(v.text).toContain("What failed: HTTP 502: Server Error");
    },
  );
});
