// `/budget` by table (docs/reference/github-surfaces.md#budget): what a comment says, and whether it raises the subject's limit.
import { describe, expect, it } from "vitest";
import { usdToMicros } from "../../src/budget/usage.js";
import {
  type BudgetCommandEvidence,
  budgetRaisedBody,
  decideBudgetCommand,
  parseBudgetCommand,
} from "../../src/handlers/budget-decision.js";
import { parseReclaimCommand } from "../../src/lease/reclaim-command.js";

const usd = usdToMicros;

describe("parseBudgetCommand", () => {
  it.each([
    { body: "/budget +5", expected: { kind: "budget", amount: { mode: "raise", usd: 5 } } },
    { body: "/budget 20", expected: { kind: "budget", amount: { mode: "set", usd: 20 } } },
    { body: "/Budget $12.50", expected: { kind: "budget", amount: { mode: "set", usd: 12.5 } } },
    { body: "/budget +$2.25  ", expected: { kind: "budget", amount: { mode: "raise", usd: 2.25 } } },
    {
      body: "> quoted ask\n\n/budget +5\nthanks",
      expected: { kind: "budget", amount: { mode: "raise", usd: 5 } },
    },
    { body: "/budget", expected: { kind: "budget", amount: null } },
    { body: "/budget lots", expected: { kind: "budget", amount: null } },
    { body: "/budget -5", expected: { kind: "budget", amount: null } },
    { body: "/budget 0", expected: { kind: "budget", amount: null } },
    { body: "/budget 1.005", expected: { kind: "budget", amount: null } },
    { body: "/budget 5 please", expected: { kind: "budget", amount: null } },
    { body: "please /budget +5", expected: null },
    { body: "```\n/budget +5\n```", expected: null },
    { body: "/budgets +5", expected: null },
    { body: "/reclaim", expected: null },
  ])("$body", ({ body, expected }) => {
    expect(parseBudgetCommand(body)).toStrictEqual(expected);
  });

  it("a comment is one command at most: /budget is no /reclaim and the reverse", () => {
    expect(parseReclaimCommand("/budget +5")).toBeNull();
    expect(parseBudgetCommand("/reclaim release")).toBeNull();
  });
});

describe("decideBudgetCommand", () => {
  const evidence: BudgetCommandEvidence = {
    command: { kind: "budget", amount: { mode: "raise", usd: 5 } },
    commenter: "alice",
    commenterIsFleet: false,
    permission: "maintain",
    needed: "write",
    subject: "octo/widgets#1",
    spentMicros: usd(2.25),
    limitUsd: 2,
  };
  const rows: {
    name: string;
    change: Partial<BudgetCommandEvidence>;
    expected: RegExp | { from: number; to: number };
  }[] = [
    { name: "+5 raises the current limit by $5", change: {}, expected: { from: 2, to: 7 } },
    {
      name: "20 sets the limit to $20",
      change: { command: { kind: "budget", amount: { mode: "set", usd: 20 } } },
      expected: { from: 2, to: 20 },
    },
    {
      name: "+0.10 from a raised limit adds exactly",
      change: { command: { kind: "budget", amount: { mode: "raise", usd: 0.1 } }, limitUsd: 7.2 },
      expected: { from: 7.2, to: 7.3 },
    },
    {
      name: "the fleet's own account is no person, even with permission",
      change: { commenterIsFleet: true, permission: "admin" },
      expected: /^`\/budget` is for people\. `alice` runs agent sessions here/,
    },
    {
      name: "a reader lacks the reclaim permission",
      change: { permission: "read" },
      expected: /needs write permission/,
    },
    {
      name: "an unreadable amount",
      change: { command: { kind: "budget", amount: null } },
      expected: /could not read an amount/,
    },
    {
      name: "a limit not above the spend",
      change: { command: { kind: "budget", amount: { mode: "set", usd: 2.25 } } },
      expected: /a limit of \$2\.25 is not above what octo\/widgets#1 has spent so far \(\$2\.25\)/,
    },
    {
      name: "a limit above the spend but below the current one: only raises",
      change: {
        command: { kind: "budget", amount: { mode: "set", usd: 5 } },
        spentMicros: usd(1),
        limitUsd: 8,
      },
      expected: /\$5\.00 is not above octo\/widgets#1's limit of \$8\.00/,
    },
    {
      name: "a class without maxUsd has no limit to raise",
      change: { limitUsd: null },
      expected: /has no budget limit/,
    },
  ];
  it.each(rows)("$name", ({ change, expected }) => {
    const decision = decideBudgetCommand({ ...evidence, ...change });
    if (expected instanceof RegExp) {
      expect(decision.kind).toBe("refuse");
      expect(decision.kind === "refuse" && decision.reply).toMatch(expected);
    } else {
      expect(decision).toStrictEqual({ kind: "raise", fromUsd: expected.from, toUsd: expected.to });
    }
  });

  it("the fleet's refusal mentions nobody", () => {
    const decision = decideBudgetCommand({ ...evidence, commenterIsFleet: true });
    expect(decision.kind === "refuse" && decision.reply).not.toContain("@");
  });
});

describe("budgetRaisedBody", () => {
  it("says who raised it from what to what, and that the paused lease goes on", () => {
    expect(
      budgetRaisedBody({ commenter: "alice", fromUsd: 2, toUsd: 7, spentMicros: usd(2.5), resumed: true }),
    ).toBe(
      "💸 @alice raised this issue's budget from $2.00 to $7.00 (spent so far: $2.50).\n\nThe lease paused by its budget goes on.",
    );
    expect(
      budgetRaisedBody({ commenter: "alice", fromUsd: 2, toUsd: 7, spentMicros: usd(2.5), resumed: false }),
    ).not.toContain("goes on");
  });
});
