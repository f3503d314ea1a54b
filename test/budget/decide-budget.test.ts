// Budget decisions by table (docs/agents.md#spend-and-budgets): usage only goes up, spend sums the generations, warn once, max ends or pauses the lease, a raise resumes it.
import { describe, expect, it } from "vitest";
import {
  type BudgetLimits,
  budgetAction,
  decideBudget,
  type SpendChange,
  subjectMaxUsd,
} from "../../src/budget/decide-budget.js";
import { needsHumanChange, needsHumanProblem } from "../../src/budget/needs-human.js";
import {
  checkUsage,
  type LeaseUsage,
  type ReportedUsage,
  subjectSpendMicros,
  usdToMicros,
} from "../../src/budget/usage.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";

const usd = usdToMicros;
const limits: BudgetLimits = { warnUsd: 5, maxUsd: 10 };

describe("checkUsage: a lease's usage is cumulative", () => {
  const rows: {
    name: string;
    last: LeaseUsage | undefined;
    reported: ReportedUsage;
    expected: ReturnType<typeof checkUsage>;
  }[] = [
    {
      name: "first report of a lease adds all of it",
      last: undefined,
      reported: { costMicros: usd(1.25), tokens: 900 },
      expected: { kind: "accepted", usage: { costMicros: usd(1.25), tokens: 900 }, addedMicros: usd(1.25) },
    },
    {
      name: "a later report adds only the difference",
      last: { costMicros: usd(1.25), tokens: 900 },
      reported: { costMicros: usd(2), tokens: 1500 },
      expected: { kind: "accepted", usage: { costMicros: usd(2), tokens: 1500 }, addedMicros: usd(0.75) },
    },
    {
      name: "the same figures again add nothing",
      last: { costMicros: usd(2), tokens: 1500 },
      reported: { costMicros: usd(2), tokens: 1500 },
      expected: { kind: "accepted", usage: { costMicros: usd(2), tokens: 1500 }, addedMicros: 0 },
    },
    {
      name: "a figure left out keeps its last value",
      last: { costMicros: usd(2), tokens: 1500 },
      reported: { tokens: 1600 },
      expected: { kind: "accepted", usage: { costMicros: usd(2), tokens: 1600 }, addedMicros: 0 },
    },
    {
      name: "a lower cost is refused, naming the last value in dollars",
      last: { costMicros: usd(2), tokens: 1500 },
      reported: { costMicros: usd(1.5), tokens: 1600 },
      expected: { kind: "decreased", field: "costUsd", last: 2, reported: 1.5 },
    },
    {
      name: "fewer tokens are refused",
      last: { costMicros: usd(2), tokens: 1500 },
      reported: { costMicros: usd(3), tokens: 10 },
      expected: { kind: "decreased", field: "tokens", last: 1500, reported: 10 },
    },
  ];
  it.each(rows)("$name", ({ last, reported, expected }) => {
    expect(checkUsage(last, reported)).toStrictEqual(expected);
  });

  it("adds cents exactly, where floating-point dollars would drift", () => {
    let last: LeaseUsage | undefined;
    let spend = 0;
    for (let i = 1; i <= 10; i++) {
      const check = checkUsage(last, { costMicros: usd(0.1 * i) });
      if (check.kind !== "accepted") throw new Error("refused");
      spend += check.addedMicros;
      last = check.usage;
    }
    expect(spend).toBe(usd(1));
  });
});

describe("subjectSpendMicros: the sum of each generation's last cost", () => {
  it("a takeover keeps the sum: generation 2 starts from its own zero, the subject does not", () => {
    const generation1 = { costMicros: usd(4), tokens: 100 };
    const generation2 = { costMicros: usd(0.5), tokens: 10 };
    expect(subjectSpendMicros([generation1])).toBe(usd(4));
    expect(subjectSpendMicros([generation1, generation2])).toBe(usd(4.5));
    // Generation 2's first report is checked against its own lease, not generation 1's figures.
    expect(checkUsage(undefined, { costMicros: usd(0.5) })).toMatchObject({ kind: "accepted" });
  });
});

describe("decideBudget", () => {
  const rows: {
    name: string;
    change: SpendChange;
    limits: BudgetLimits;
    warn: boolean;
    exhausted: boolean;
  }[] = [
    {
      name: "below warn: nothing",
      change: { beforeMicros: usd(1), afterMicros: usd(4.99), warned: false },
      limits,
      warn: false,
      exhausted: false,
    },
    {
      name: "warn crossed: one warning",
      change: { beforeMicros: usd(4.99), afterMicros: usd(5), warned: false },
      limits,
      warn: true,
      exhausted: false,
    },
    {
      name: "past warn, already warned: no second warning",
      change: { beforeMicros: usd(5), afterMicros: usd(7), warned: true },
      limits,
      warn: false,
      exhausted: false,
    },
    {
      name: "max crossed: the lease ends (warned earlier)",
      change: { beforeMicros: usd(9), afterMicros: usd(10), warned: true },
      limits,
      warn: false,
      exhausted: true,
    },
    {
      name: "one report past both limits: warned and ended",
      change: { beforeMicros: usd(1), afterMicros: usd(12), warned: false },
      limits,
      warn: true,
      exhausted: true,
    },
    {
      name: "already past max (label removed, max not raised): the next lease ends at its first report",
      change: { beforeMicros: usd(11), afterMicros: usd(11), warned: true },
      limits,
      warn: false,
      exhausted: true,
    },
    {
      name: "after a takeover the summed spend counts: generation 2's $1 on top of generation 1's $9.50",
      change: { beforeMicros: usd(9.5), afterMicros: usd(10.5), warned: true },
      limits,
      warn: false,
      exhausted: true,
    },
    {
      name: "no limits configured: never",
      change: { beforeMicros: 0, afterMicros: usd(1_000_000), warned: false },
      limits: { warnUsd: null, maxUsd: null },
      warn: false,
      exhausted: false,
    },
    {
      name: "a max without a warn",
      change: { beforeMicros: usd(2), afterMicros: usd(3), warned: false },
      limits: { warnUsd: null, maxUsd: 3 },
      warn: false,
      exhausted: true,
    },
  ];
  it.each(rows)("$name", ({ change, limits, warn, exhausted }) => {
    expect(decideBudget(change, limits)).toStrictEqual({ warn, exhausted });
  });
});

describe("needsHumanChange", () => {
  const rows: {
    name: string;
    before: boolean;
    heartbeat: { needsHuman?: boolean; blocker?: string };
    expected: ReturnType<typeof needsHumanChange>;
  }[] = [
    {
      name: "asked",
      before: false,
      heartbeat: { needsHuman: true, blocker: "need the staging password" },
      expected: { kind: "asked", blocker: "need the staging password" },
    },
    {
      name: "asked again while asking: no news",
      before: true,
      heartbeat: { needsHuman: true, blocker: "still the password" },
      expected: { kind: "unchanged" },
    },
    {
      name: "the next heartbeat without it clears",
      before: true,
      heartbeat: {},
      expected: { kind: "cleared" },
    },
    {
      name: "an explicit false clears",
      before: true,
      heartbeat: { needsHuman: false },
      expected: { kind: "cleared" },
    },
    { name: "never asked", before: false, heartbeat: { blocker: "CI" }, expected: { kind: "unchanged" } },
  ];
  it.each(rows)("$name", ({ before, heartbeat, expected }) => {
    expect(needsHumanChange(before, heartbeat)).toStrictEqual(expected);
  });

  it("asking needs a blocker in the same heartbeat", () => {
    expect(needsHumanProblem({ needsHuman: true })).toMatch(/needs a blocker/);
    expect(needsHumanProblem({ needsHuman: true, blocker: "   " })).toMatch(/needs a blocker/);
    expect(needsHumanProblem({ needsHuman: true, blocker: "why" })).toBeNull();
    expect(needsHumanProblem({ needsHuman: false })).toBeNull();
  });
});

describe("budgetAction: what reaching the limit does to the lease", () => {
  const rows: {
    name: string;
    exhausted: boolean;
    onExhausted: "end" | "pause" | undefined;
    paused: boolean;
    expected: ReturnType<typeof budgetAction>;
  }[] = [
    {
      name: "below the limit, not paused: nothing",
      exhausted: false,
      onExhausted: "pause",
      paused: false,
      expected: "none",
    },
    {
      name: "reached, onExhausted end: the lease ends",
      exhausted: true,
      onExhausted: "end",
      paused: false,
      expected: "end",
    },
    {
      name: "reached, onExhausted pause: paused",
      exhausted: true,
      onExhausted: "pause",
      paused: false,
      expected: "pause",
    },
    {
      name: "reached, onExhausted left out: paused (the default)",
      exhausted: true,
      onExhausted: undefined,
      paused: false,
      expected: "pause",
    },
    {
      name: "reached while paused: asked already, nothing",
      exhausted: true,
      onExhausted: "pause",
      paused: true,
      expected: "none",
    },
    {
      name: "below the limit while paused (maxUsd raised): resumes",
      exhausted: false,
      onExhausted: "pause",
      paused: true,
      expected: "resume",
    },
    {
      name: "paused, then the config says end: the lease ends",
      exhausted: true,
      onExhausted: "end",
      paused: true,
      expected: "end",
    },
    {
      name: "paused, config says end, but below the limit: resumes",
      exhausted: false,
      onExhausted: "end",
      paused: true,
      expected: "resume",
    },
  ];
  it.each(rows)("$name", ({ exhausted, onExhausted, paused, expected }) => {
    expect(budgetAction({ exhausted, onExhausted, paused })).toBe(expected);
  });
});

describe("subjectMaxUsd: the limit a subject is judged against", () => {
  it.each([
    { name: "no /budget: the class's maxUsd", classMax: 2, raised: null, expected: 2 },
    { name: "raised above it: the subject's own", classMax: 2, raised: 7, expected: 7 },
    {
      name: "maxUsd raised past the subject's own since: the class's",
      classMax: 10,
      raised: 7,
      expected: 10,
    },
    {
      name: "a class without maxUsd has no limit, whatever was raised",
      classMax: null,
      raised: 7,
      expected: null,
    },
  ])("$name", ({ classMax, raised, expected }) => {
    expect(subjectMaxUsd(classMax, raised)).toBe(expected);
  });

  it("judges a report against the raised limit: $7.50 is past $7, $6.50 is not", () => {
    const raisedLimits = { warnUsd: null, maxUsd: subjectMaxUsd(2, 7) };
    expect(
      decideBudget({ beforeMicros: usd(6), afterMicros: usd(6.5), warned: true }, raisedLimits),
    ).toMatchObject({
      exhausted: false,
    });
    expect(
      decideBudget({ beforeMicros: usd(6.5), afterMicros: usd(7.5), warned: true }, raisedLimits),
    ).toMatchObject({ exhausted: true });
  });
});

describe("budgets.<class>.onExhausted in the repository config", () => {
  it("is pause unless the repository says end; anything else is refused naming the field", () => {
    expect(parseRepoConfig({}).config.budgets.author.onExhausted).toBe("pause");
    expect(parseRepoConfig({ budgets: { author: { maxUsd: 2 } } }).config.budgets.author).toStrictEqual({
      warnUsd: null,
      maxUsd: 2,
      onExhausted: "pause",
    });
    expect(
      parseRepoConfig({ budgets: { reviewer: { maxUsd: 2, onExhausted: "end" } } }).config.budgets.reviewer,
    ).toMatchObject({ onExhausted: "end" });
    expect(parseRepoConfig({ budgets: { author: { onExhausted: "stop" } } }).error).toMatch(
      /^\.github\/claim-hold\.yml: budgets\.author\.onExhausted: /,
    );
  });
});
