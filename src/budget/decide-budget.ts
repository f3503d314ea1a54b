// What a subject's spend after a usage report calls for (docs/agents.md#spend-and-budgets): a warning once, or the lease's end; pure.
import { usdToMicros } from "./usage.js";

/** `budgets.<class>` of the repository config. */
export interface BudgetLimits {
  warnUsd: number | null;
  maxUsd: number | null;
}

/** The subject's spend before and after one accepted report, and whether its warning went out already. */
export interface SpendChange {
  beforeMicros: number;
  afterMicros: number;
  warned: boolean;
}

export interface BudgetDecision {
  /** Send `budget-warn` (once per subject: the store's first-time mark decides who sends it). */
  warn: boolean;
  /** End the lease `410 budget_exhausted`, release it with a note, label the subject over budget. */
  exhausted: boolean;
}

/**
 * At or past `warnUsd` the subject is warned once, at its first report there; at or past `maxUsd`
 * the lease ends. The cap is hard: a subject already past it (a human removed the label without
 * raising `maxUsd`) stops its next lease at that lease's first report. A report that jumps past both
 * limits does both.
 */
export function decideBudget(change: SpendChange, limits: BudgetLimits): BudgetDecision {
  const reached = (usd: number | null) => usd !== null && change.afterMicros >= usdToMicros(usd);
  return {
    warn: !change.warned && reached(limits.warnUsd),
    exhausted: reached(limits.maxUsd),
  };
}
