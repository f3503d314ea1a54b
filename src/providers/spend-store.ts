// The store's side of budgets (docs/agents.md#spend-and-budgets): each subject's spend across generations, and the once-only budget marks.
import type { SubjectKey } from "../domain/claim.js";

/**
 * What a heartbeat's usage report did to its subject's spend (micro-dollars). The store keeps each
 * generation's last reported cost; the subject's spend is their sum, so a takeover keeps it.
 */
export interface SpendReport {
  beforeMicros: number;
  afterMicros: number;
  /** The subject's `budget-warn` already went out. */
  warned: boolean;
}

/** A heartbeat's usage lower than the lease's last one: refused (422) and nothing stored. */
export interface UsageDecreased {
  kind: "usage_decreased";
  field: "costUsd" | "tokens";
  /** The lease's last value (dollars for `costUsd`). */
  last: number;
}

export interface SpendStore {
  /** The spend of each subject in micro-dollars, in the order asked (0 when none): one round trip. */
  spendOf(keys: readonly SubjectKey[]): Promise<number[]>;
  /** True for the first caller only, across replicas: a subject's `budget-warn` goes out once. */
  markBudgetWarned(key: SubjectKey): Promise<boolean>;
  /**
   * Marks the ended record of `generation` as ended by its budget, so its lease calls answer
   * `410 budget_exhausted`; nothing happens when the record moved on to another generation.
   */
  markBudgetExhausted(key: SubjectKey, generation: number): Promise<void>;
  /**
   * Pauses the active `generation` by its budget (`onExhausted: pause`): true for the first caller
   * only (the one that shows the pause); false when already paused or the record moved on.
   */
  markBudgetPaused(key: SubjectKey, generation: number): Promise<boolean>;
  /** Lifts the subject's budget pause, whichever generation holds it: true when there was one. */
  clearBudgetPaused(key: SubjectKey): Promise<boolean>;
  /** The subject's own limit in micro-dollars (set by `/budget`), or null when it has none. */
  budgetLimitOf(key: SubjectKey): Promise<number | null>;
  /** Sets the subject's own limit (micro-dollars); it replaces its class's `maxUsd` for it. */
  setBudgetLimit(key: SubjectKey, micros: number): Promise<void>;
}
