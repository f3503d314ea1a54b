// What a subject's spend after a usage report calls for (docs/agents.md#spend-and-budgets): a warning once, and at the limit the lease's end or pause; pure.
import { usdToMicros } from "./usage.js";

/** `budgets.<class>` of the repository config (`maxUsd` replaced by the subject's `/budget` limit when it has one). */
export interface BudgetLimits {
  warnUsd: number | null;
  maxUsd: number | null;
  /** What reaching `maxUsd` does; absent: `pause`. */
  onExhausted?: "end" | "pause";
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
  /** The subject's spend reached its limit: what that does to the lease is `budgetAction`'s. */
  exhausted: boolean;
}

/**
 * At or past `warnUsd` the subject is warned once, at its first report there; at or past `maxUsd`
 * it is exhausted. The cap is hard: a subject already past it (a human removed the label without
 * raising the limit) stops its next lease at that lease's first report. A report that jumps past both
 * limits does both.
 */
export function decideBudget(change: SpendChange, limits: BudgetLimits): BudgetDecision {
  const reached = (usd: number | null) => usd !== null && change.afterMicros >= usdToMicros(usd);
  return {
    warn: !change.warned && reached(limits.warnUsd),
    exhausted: reached(limits.maxUsd),
  };
}

/**
 * What the limit does to the lease: `end` it (`onExhausted: end`), `pause` it (once: a lease already
 * paused is not asked about again), `resume` a paused lease whose spend is below the limit again
 * (a `/budget` raise, or `maxUsd` raised in the config), or nothing.
 */
export type BudgetAction = "end" | "pause" | "resume" | "none";

export function budgetAction(input: {
  exhausted: boolean;
  onExhausted: "end" | "pause" | undefined;
  paused: boolean;
}): BudgetAction {
  if (input.exhausted) {
    if (input.onExhausted === "end") return "end";
    return input.paused ? "none" : "pause";
  }
  return input.paused ? "resume" : "none";
}

/**
 * The limit a subject's spend is judged against: its class's `maxUsd`, or the subject's own
 * `/budget` limit when that is higher (a `/budget` only raises; a class without `maxUsd` has none).
 */
export function subjectMaxUsd(classMaxUsd: number | null, raisedUsd: number | null): number | null {
  if (classMaxUsd === null) return null;
  return raisedUsd === null ? classMaxUsd : Math.max(classMaxUsd, raisedUsd);
}
